"""YAML a user hands over: plain documents load as safe_load would, while aliases, deep nesting, a key given twice
and Python tags are refused with a YAML error pointing at them."""

from __future__ import annotations

import pytest
import yaml

from pubfetch.yamlsafe import MAX_DEPTH, load


def test_plain_documents_load_as_safe_load_would() -> None:
    text = "threads: 4\nendpoints:\n  europepmc: http://127.0.0.1:1/\nlist: [1, two, {three: 3}]\nempty:\n"
    assert load(text) == yaml.safe_load(text)
    assert load("") is None


def test_an_alias_is_refused_where_it_appears() -> None:
    with pytest.raises(yaml.YAMLError, match=r"aliases \(\*a\) are not accepted") as info:
        load("x: &a [1, 2]\ny: *a\n")
    assert info.value.problem_mark.line == 1


def test_billion_laughs_is_refused_before_it_grows() -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    with pytest.raises(yaml.YAMLError, match="aliases"):
        load("\n".join(levels) + "\n")


def test_nesting_up_to_the_limit_loads_and_deeper_is_refused() -> None:
    assert load("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(yaml.YAMLError, match=f"nested deeper than {MAX_DEPTH} levels"):
        load("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    with pytest.raises(yaml.YAMLError, match="nested deeper"):
        load("[" * 200_000)


def test_a_key_given_twice_is_refused_with_its_line() -> None:
    with pytest.raises(yaml.YAMLError, match="the key 'allow_private_addresses' is given twice") as info:
        load("allow_private_addresses: false\nthreads: 2\nallow_private_addresses: true\n")
    assert info.value.problem_mark.line == 2
    assert load("a: {k: 1}\nb: {k: 2}\n") == {"a": {"k": 1}, "b": {"k": 2}}  # the same key in two mappings


def test_python_tags_stay_refused() -> None:
    with pytest.raises(yaml.YAMLError):
        load("!!python/object/apply:os.system ['true']\n")
