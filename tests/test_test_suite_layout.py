"""The suite's own layout: test files hold tests, helpers live in tests/support/, and no module imports a test file.

A helper imported from another test file ties the two files together: running, moving or deleting one breaks the
other, and pytest collects the imported file's tests a second time under the importer's name when it imports a test
function. Shared helpers go to tests/support/, shared fixtures to tests/conftest.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
BENCHMARKS = TESTS.parent / "benchmarks"


def names_of_test_files() -> set[str]:
    return {path.stem for path in TESTS.glob("test_*.py")}


def imported_test_modules(source: str, tests: set[str]) -> list[str]:
    """The test modules ``source`` imports, at its top or inside a function, plainly or as ``tests.<name>``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [name for name in names if name.removeprefix("tests.").split(".")[0] in tests]
    return found


def test_the_check_sees_an_import_of_a_test_module() -> None:
    tests = {"test_report"}
    assert imported_test_modules("from test_report import publication\n", tests) == ["test_report"]
    assert imported_test_modules("def f():\n    import tests.test_report\n", tests) == ["tests.test_report"]
    assert imported_test_modules("from support.publications import fetched_publication\n", tests) == []


def test_no_module_imports_a_test_module() -> None:
    tests = names_of_test_files()
    sources = [*TESTS.glob("*.py"), *TESTS.glob("support/*.py"), *BENCHMARKS.glob("*.py")]
    assert len(tests) > 50 and len(sources) > len(tests)
    offenders = {str(path.relative_to(TESTS.parent)): imported
                 for path in sources if (imported := imported_test_modules(path.read_text(encoding="utf-8"), tests))}
    assert offenders == {}, "move what these import from test files into tests/support/ or tests/conftest.py"


def test_every_module_beside_the_tests_is_a_test_file() -> None:
    loose = sorted(path.name for path in TESTS.glob("*.py") if path.name != "conftest.py" and path.stem not in
                   names_of_test_files())
    assert loose == [], "helpers belong in tests/support/"
