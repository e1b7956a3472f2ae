"""The suite's own honesty: no test can pass (or skip) when the thing it checks is missing.

Read from the test sources themselves, so a new test that slips back into one of these habits
fails here by name:

- a skip only through ``conftest.require_service`` (which fails under ``CI=true``): no
  ``pytest.skip``, ``skipif``, ``importorskip`` or ``xfail`` anywhere else;
- no swallowed exception: every ``except`` in a test either re-raises, asserts or records what
  it caught, never ``pass``/``continue`` alone;
- no path into a person's or a machine's own files (a home folder, a checkout beside this one):
  a test reads only what the repository ships and the system packages CI installs (Debian's
  Chromium, fonts, dovecot);
- every test function asserts something, calls a helper that does, or expects an exception.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
SOURCES = sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)
TEST_FILES = [p for p in SOURCES if p.name.startswith("test_")]
SKIPS = {"skip", "skipif", "importorskip", "xfail"}
OUTSIDE = ("/home/", "/root/", "/work/", "/opt/", "/mnt/", "/srv/", "/media/")  # a person's or a machine's own files


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(TESTS.parent)}:{getattr(node, 'lineno', '?')}"


def test_there_are_sources_to_read() -> None:
    assert len(TEST_FILES) > 50 and TESTS / "conftest.py" in SOURCES


def test_a_test_skips_only_through_require_service() -> None:
    found = []
    for path in SOURCES:
        if path.name == "conftest.py":
            continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Attribute) and node.attr in SKIPS:
                base = node.value
                while isinstance(base, ast.Attribute):
                    base = base.value
                if isinstance(base, ast.Name) and base.id == "pytest":
                    found.append(f"{_where(path, node)} pytest...{node.attr}")
    assert found == [], "use conftest.require_service, which fails under CI=true:\n" + "\n".join(found)


def _swallows(handler: ast.ExceptHandler) -> bool:
    return all(isinstance(stmt, (ast.Pass, ast.Continue)) or
               (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
               for stmt in handler.body)


def test_no_test_swallows_an_exception() -> None:
    found = [_where(path, node) for path in SOURCES for node in ast.walk(_tree(path))
             if isinstance(node, ast.ExceptHandler) and _swallows(node)
             and not _expected_cleanup(node)]
    assert found == [], "an except clause that only passes hides a failure:\n" + "\n".join(found)


def _expected_cleanup(handler: ast.ExceptHandler) -> bool:
    """Tearing a server or a browser down may meet an error that is not the test's business:
    only such named, narrow kinds may be passed over."""
    names = []
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for kind in kinds:
        if isinstance(kind, ast.Name):
            names.append(kind.id)
        elif isinstance(kind, ast.Attribute):
            names.append(kind.attr)
    return bool(names) and all(n in CLEANUP_KINDS for n in names)


CLEANUP_KINDS = {"ProcessLookupError", "FileNotFoundError", "ConnectionError", "ConnectionResetError",
                 "BrokenPipeError", "TimeoutError", "OSError", "ChildProcessError", "StopIteration"}


def test_tests_read_only_what_the_repository_ships() -> None:
    found = []
    for path in SOURCES:
        if path == Path(__file__):
            continue  # it names those places to look for them
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if text.startswith(OUTSIDE) or "../" + "shared" in text:
                    found.append(f"{_where(path, node)} {text}")
    assert found == [], "a path outside the repository and the system:\n" + "\n".join(found)


def _asserts(fn: ast.FunctionDef, helpers: set[str] | frozenset[str]) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert) or isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in helpers or name.startswith(("assert", "check", "expect", "wait", "require")) \
                    or name in {"raises", "fail", "run_cli", "warns"}:
                return True
    return False


@cache
def _helpers() -> frozenset[str]:
    """Every function of the test sources that asserts: a test calling one asserts through it."""
    names: set[str] = set()
    functions = [n for p in SOURCES for n in ast.walk(_tree(p)) if isinstance(n, ast.FunctionDef)]
    changed = True
    while changed:
        changed = False
        for fn in functions:
            if fn.name not in names and _asserts(fn, names):
                names.add(fn.name)
                changed = True
    return frozenset(names)


@pytest.mark.parametrize("path", TEST_FILES, ids=lambda p: p.name)
def test_every_test_asserts_something(path: Path) -> None:
    helpers = _helpers()
    found = [_where(path, fn) + f" {fn.name}" for fn in ast.walk(_tree(path))
             if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test_") and not _asserts(fn, helpers)]
    assert found == [], "a test that asserts nothing passes whatever the code does:\n" + "\n".join(found)


def test_the_checks_above_catch_what_they_look_for() -> None:
    """Each check finds its habit in a sample, so none of them passes by finding nothing."""
    sample = ast.parse(
        "import pytest\n"
        "def test_nothing():\n    x = 1\n"
        "def test_swallows():\n    try:\n        f()\n    except Exception:\n        pass\n"
        "def test_skips():\n    pytest.skip('later')\n"
        "def test_counts():\n    assert 1\n")
    tests = {n.name: n for n in ast.walk(sample) if isinstance(n, ast.FunctionDef)}
    assert not _asserts(tests["test_nothing"], frozenset()) and _asserts(tests["test_counts"], frozenset())
    handlers = [n for n in ast.walk(sample) if isinstance(n, ast.ExceptHandler)]
    assert handlers and _swallows(handlers[0]) and not _expected_cleanup(handlers[0])
    assert any(isinstance(n, ast.Attribute) and n.attr in SKIPS for n in ast.walk(tests["test_skips"]))


# -- the claims the documents back with tests ---------------------------------------------------

DOCUMENTS = [TESTS.parent / "README.md", *sorted((TESTS.parent / "docs").glob("*.md"))]


def _test_names(path: Path) -> set[str]:
    return {n.name for n in ast.walk(_tree(path)) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test_")}


def _cited(text: str) -> list[tuple[str, str | None]]:
    """The tests ``text`` names in backticks: ``file.py::test_name`` (or ``tests/file.py``), and
    after one of those on the same line, a bare ``test_name`` of that same file."""
    out: list[tuple[str, str | None]] = []
    for line in text.splitlines():
        current = None
        for ref in re.findall(r"`([^`\s]+)`", line):
            m = re.fullmatch(r"(?:tests/)?(test_\w+\.py)(?:::(test_\w+))?", ref)
            if m:
                current = m.group(1)
                out.append((current, m.group(2)))
            elif current and re.fullmatch(r"test_\w+", ref):
                out.append((current, ref))
    return out


def test_the_documents_cite_tests() -> None:
    cited = [c for doc in DOCUMENTS for c in _cited(doc.read_text(encoding="utf-8"))]
    assert len([c for c in cited if c[1]]) >= 40  # the threat model's rows


@pytest.mark.parametrize("doc", DOCUMENTS, ids=lambda p: p.name)
def test_every_test_a_document_cites_exists(doc: Path) -> None:
    """A promise backed by a named test (README's threat model, docs/) is backed by a test that
    is there: a renamed or deleted test fails here by name instead of leaving the claim bare."""
    missing = []
    for file, name in _cited(doc.read_text(encoding="utf-8")):
        path = TESTS / file
        if not path.is_file():
            missing.append(file)
        elif name and name not in _test_names(path):
            missing.append(f"{file}::{name}")
    assert not missing, f"{doc.name} cites tests that do not exist: {missing}"
