"""The verdict file of an accepted order file, written into a fixed text by intake
(``intake.verdict_bytes``), is its canonical JSON and a line end, whatever its values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from pbem.common.canonical import canonical
from pbem.core.campaign import format_time
from pbem.core.intake import verdict_bytes

STRINGS = ["", "s00001", 'a"b\\c', "line\nbreak\ttab\x00\x1f\x7f", "普魯士 — Böhmen", "\u2028\u2029\ufeff", "emoji 🎲", "</script>"]


def _verdict(n: int) -> dict[str, Any]:
    pick = STRINGS[n % len(STRINGS)]
    return {
        "seat": f"s{n:05d}{pick}", "seq": n, "file": f"s{n:05d}.{n:06d}.yaml{pick}", "source": f"/m/new/{pick}{n}",
        "sender": None if n % 5 == 0 else f"{pick}@example.org", "received_at": f"2026-12-01T12:00:0{n % 10}Z{pick}",
        "raw_sha256": "ab" * 32, "body_sha256": pick + "cd" * 32, "problems": STRINGS[: n % 4] + [pick] * (n % 2),
        "archive_head": f"record {n} sha256:{'ef' * 32}{pick}",
    }


def test_verdict_bytes_are_canonical() -> None:
    for n in range(64):
        verdict = _verdict(n)
        assert verdict_bytes(verdict) == canonical(verdict) + b"\n", verdict


@pytest.mark.parametrize("change", [
    {"seq": True}, {"seq": 1.0}, {"seq": -(2**70)}, {"sender": 3}, {"problems": ("a", "b")}, {"problems": "ab"},
    {"problems": ["a", 1]}, {"seat": None}, {"extra": "x"}, {"source": ["x"]}, {"archive_head": {"a": 1}},
])
def test_unusual_verdicts_are_canonical_too(change: dict[str, Any]) -> None:
    verdict = {**_verdict(7), **change}
    assert verdict_bytes(verdict) == canonical(verdict) + b"\n"
    fewer = {k: v for k, v in verdict.items() if k != "file"}
    assert verdict_bytes(fewer) == canonical(fewer) + b"\n"


def test_a_verdict_that_is_not_text_raises_as_canonical_does() -> None:
    verdict = _verdict(3)
    verdict["seat"] = "lone \ud800 surrogate"
    for fn in (verdict_bytes, lambda v: canonical(v) + b"\n"):
        with pytest.raises(UnicodeEncodeError):
            fn(verdict)


def _spec_formatted(when: Any) -> str:
    u = when.astimezone(UTC)
    return f"{u.year:04d}-{u.month:02d}-{u.day:02d}T{u.hour:02d}:{u.minute:02d}:{u.second:02d}Z"


def test_format_time_writes_the_iso_fields() -> None:
    zones = [UTC, timezone(timedelta(hours=8)), timezone(timedelta(hours=-3, minutes=-30)), timezone(timedelta(seconds=-7))]
    for n in range(0, 24 * 3600 * 400, 7919):
        for tz in zones:
            when = datetime(2026, 1, 1, tzinfo=tz) + timedelta(seconds=n, microseconds=n % 1000)
            assert format_time(when) == _spec_formatted(when)
    for when in (datetime(999, 12, 31, 23, 59, 59, tzinfo=UTC), datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC),
                 datetime(1000, 1, 1, 0, 0, 1, tzinfo=timezone(timedelta(hours=1)))):
        assert format_time(when) == _spec_formatted(when)
