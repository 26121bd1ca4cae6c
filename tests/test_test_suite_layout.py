"""The suite's own layout: test files hold tests, helpers live in tests/support/, no module imports a test file, and
every module of the package has a test file named after it.

A helper imported from another test file ties the two files together: running, moving or deleting one breaks the
other, and pytest collects the imported file's tests a second time under the importer's name when it imports a test
function. Shared helpers go to tests/support/, shared fixtures to tests/conftest.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
BENCHMARKS = TESTS.parent / "benchmarks"
PACKAGE = TESTS.parent / "pubfetch"


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


def _test_names_for(module: Path) -> set[str]:
    """The test file names that cover ``module``: test_ and any tail of its dotted path joined by underscores
    (pubfetch/net/browser/worker.py: test_worker, test_browser_worker, test_net_browser_worker)."""
    parts = module.relative_to(PACKAGE).with_suffix("").parts
    return {"test_" + "_".join(parts[i:]) for i in range(len(parts))}


def test_every_module_has_a_test_file_named_after_it() -> None:
    """A newcomer changing a module finds its tests by its name; a new module comes with its test file."""
    present = names_of_test_files()
    missing = [str(m.relative_to(PACKAGE.parent)) for m in sorted(PACKAGE.rglob("*.py"))
               if m.name not in ("__init__.py", "__main__.py", "_version.py") and not _test_names_for(m) & present]
    assert not missing, "modules without a test file named after them (tests/test_<module>.py): " + ", ".join(missing)


def test_the_names_that_cover_a_module_are_the_tails_of_its_path() -> None:
    assert _test_names_for(PACKAGE / "net" / "browser" / "worker.py") == {
        "test_worker", "test_browser_worker", "test_net_browser_worker"}
