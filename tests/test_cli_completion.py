"""Shell completion scripts, generated from the option table the parser reads: every option is completed, a file
option with file names, and an unknown shell is a usage error."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pubfetch.cli.completion import completion_script
from pubfetch.cli.errors import UsageError
from pubfetch.cli.options import GROUPS
from support.cli import Cli

pytest.importorskip("shtab", reason='shell completion needs shtab (pip install ".[test]")')


def bash_completions(script: str, tmp_path: Path, *words: str) -> list[str]:
    """What bash offers for the last of ``words`` after ``pubfetch``, with the script loaded."""
    path = tmp_path / "pubfetch.bash"
    path.write_text(script, encoding="utf-8")
    line = " ".join(("pubfetch", *words))
    command = (f'source "{path}"; COMP_WORDS=({line}); COMP_CWORD={len(words)}; COMP_LINE="{line}"; '
               f'COMP_POINT=${{#COMP_LINE}}; _shtab_pubfetch pubfetch "{words[-1]}"; printf "%s\\n" "${{COMPREPLY[@]}}"')
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=30, check=True)
    return sorted(done.stdout.split())


def test_every_option_of_the_table_is_completed() -> None:
    names = {name for group in GROUPS for opt in group.options for name in opt.names}
    bash = completion_script("bash")
    listed = bash.split("_shtab_pubfetch_option_strings=(", 1)[1].split(")", 1)[0].split()
    assert names <= set(listed)
    zsh = completion_script("zsh")
    assert zsh.startswith("#compdef pubfetch")
    assert [name for name in names if f'"{name}' not in zsh and f"'{name}" not in zsh and f"{{{name}" not in zsh
            and f",{name}" not in zsh] == []


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash completion is checked with bash")
def test_a_file_option_completes_file_names(tmp_path: Path) -> None:
    for name in ("ids-one.txt", "ids-two.txt", "other.txt"):
        (tmp_path / name).write_text("1\n", encoding="utf-8")
    script = completion_script("bash")
    assert bash_completions(script, tmp_path, "-pub-file", f"{tmp_path}/ids-") == [f"{tmp_path}/ids-one.txt",
                                                                                    f"{tmp_path}/ids-two.txt"]
    assert bash_completions(script, tmp_path, "-is-pmi") == ["-is-pmid"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash completion is checked with bash")
def test_bash_completes_operations_and_modifiers_by_their_beginning(tmp_path: Path) -> None:
    script = completion_script("bash")
    assert bash_completions(script, tmp_path, "-db-fetch") == ["-db-fetch", "-db-fetch-end"]
    assert bash_completions(script, tmp_path, "--ncbi") == ["--ncbi-api-key", "--ncbi-email"]


def test_an_unknown_shell_is_a_usage_error() -> None:
    with pytest.raises(UsageError) as info:
        completion_script("fish")
    assert str(info.value) == "option --print-completion: unknown shell 'fish': expected one of bash, zsh"
    assert info.value.exit_status == 2


def test_print_completion_for_an_unknown_shell_is_a_one_line_usage_error(cli: Cli) -> None:
    assert cli("--print-completion", "fish") == (2, "", "pubfetch: error: option --print-completion: unknown shell "
                                                        "'fish': expected one of bash, zsh\n")


def test_print_completion_prints_the_script(cli: Cli) -> None:
    code, out, err = cli("--print-completion", "zsh")
    assert (code, err) == (0, "") and out.startswith("#compdef pubfetch")
