"""bench/reports.py: the share of rendering spent on maps counts the first pass only."""

from __future__ import annotations

import importlib.util
import types
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "reports.py"


def _bench() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("bench_reports", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_time_in_a_function_counts_only_inside_the_timed_block() -> None:
    bench = _bench()
    ticks = iter(range(100))
    target = types.SimpleNamespace(work=lambda x: x * 2)
    real = target.work
    with bench.timed(target, "work", lambda: float(next(ticks))) as watch:
        assert target.work(3) == 6
    assert watch.spent == 1.0
    assert target.work is real  # the second pass runs the function untimed
    target.work(4)
    assert watch.spent == 1.0
    assert bench.share(watch.spent, 4.0) == "25 %"
