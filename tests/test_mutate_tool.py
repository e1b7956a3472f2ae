"""bench/mutate.py, the mutation tool, in small: the mutants it makes of a tiny module, and how a
mutant replaces the module's code where tests will see it (the tool's runs are not CI's)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutate_tool", ROOT / "bench" / "mutate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutate_tool"] = module
    spec.loader.exec_module(module)
    return module


def test_the_mutants_of_a_tiny_module(tmp_path: Path) -> None:
    src = tmp_path / "tiny.py"
    src.write_text('''"""Doc."""


def f(a: int, b: int) -> int:
    """Doc."""
    if a < b and b != 3:
        total = a + 1
        return min(total, b)
    state["x"] = 2
    return b
''')
    keys = [m.key for m in _tool().mutants(src)]
    assert keys == [
        "f: a < b -> (a <= b)",
        "f: a < b -> (a > b)",
        "f: a < b and b != 3 -> (not (a < b and b != 3))",
        "f: a < b and b != 3 -> (a < b or b != 3)",
        "f: b != 3 -> (b == 3)",
        "f: 3 -> (4)",
        "f: 3 -> (2)",
        "f: a + 1 -> (a - 1)",
        "f: 1 -> (2)",
        "f: 1 -> (0)",
        "f: return min(total, b) -> return None",
        "f: min(total, b) -> (max(total, b))",
        'f: state["x"] = 2 -> pass',
        "f: 2 -> (3)",
        "f: 2 -> (1)",
        "f: return b -> return None",
    ]
    assert [m.key for m in _tool().mutants(src)] == keys  # the same every time


def test_a_mutant_reaches_the_modules_that_imported_its_names(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The fork-and-patch step: the mutated function replaces the original in its module and in
    every module that imported it by name, so the tests see the mutant."""
    (tmp_path / "tiny_rules.py").write_text("LIMIT = 8\n\n\ndef too_far(n):\n    return n > LIMIT\n")
    (tmp_path / "tiny_user.py").write_text("from tiny_rules import LIMIT, too_far\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    tiny_rules = importlib.import_module("tiny_rules")
    tiny_user = importlib.import_module("tiny_user")
    tool = _tool()
    by_key = {m.key: m for m in tool.mutants(tmp_path / "tiny_rules.py")}
    assert set(by_key) == {"<module>: 8 -> (9)", "<module>: 8 -> (7)", "too_far: n > LIMIT -> (n >= LIMIT)",
                           "too_far: n > LIMIT -> (n < LIMIT)", "too_far: return n > LIMIT -> return None"}
    assert by_key["<module>: 8 -> (9)"].toplevel and not by_key["too_far: n > LIMIT -> (n >= LIMIT)"].toplevel
    try:
        assert tiny_user.too_far(8) is False
        tool.apply("tiny_rules", by_key["too_far: n > LIMIT -> (n >= LIMIT)"].source)
        assert tiny_user.too_far(8) is True and tiny_rules.too_far(8) is True
        tool.apply("tiny_rules", by_key["<module>: 8 -> (9)"].source)
        assert tiny_user.LIMIT == 9 and tiny_user.too_far(9) is False
    finally:
        for name in ("tiny_rules", "tiny_user"):
            sys.modules.pop(name, None)


def test_entries_of_the_equivalents_file_that_name_no_mutant_are_stale(tmp_path: Path) -> None:
    src = tmp_path / "tiny.py"
    src.write_text("def f(a: int) -> int:\n    return a + 1\n")
    equivalents = tmp_path / "equivalent.txt"
    equivalents.write_text(f"# a comment\n{src}::f: a + 1 -> (a - 1)  # a reason\n{src}::f: a * 2 -> (a // 2)  # code since changed\n"
                           f"{tmp_path / 'gone.py'}::g: 1 -> (2)  # a module since removed\n")
    assert _tool().stale_equivalents(equivalents) == {str(src): ["f: a * 2 -> (a // 2)"], str(tmp_path / "gone.py"): ["g: 1 -> (2)"]}
