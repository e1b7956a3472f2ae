"""``i18n.local_time`` writes its fields itself: the same text as ``strftime`` gives."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from pbem.render.i18n import local_time


def _strftime(when: datetime | str, tz: str) -> str:
    from zoneinfo import ZoneInfo

    if isinstance(when, str):
        when = datetime.fromisoformat(when.replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    utc = when.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    if tz in ("UTC", "Etc/UTC", ""):
        return utc
    return f"{when.astimezone(ZoneInfo(tz)).strftime('%Y-%m-%d %H:%M')} {tz} ({utc})"


TIMES: list[datetime | str] = [
    datetime(2026, 12, 1, 11, 43, 7, tzinfo=UTC), datetime(2026, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    datetime(2026, 3, 29, 1, 30), "2026-12-03T12:00:00Z", "2026-07-01T00:00:00+05:45",
    datetime(1000, 1, 1, 0, 30, tzinfo=UTC), datetime(999, 12, 31, 23, 0, tzinfo=UTC), datetime(1, 1, 1, 0, 0, tzinfo=UTC),
    datetime(1901, 1, 1, 0, 0, tzinfo=timezone(timedelta(hours=-3, minutes=-7))), datetime(9999, 12, 31, 12, 0, tzinfo=UTC),
]
ZONES = ["UTC", "Etc/UTC", "", "Asia/Taipei", "America/New_York", "Europe/Vienna", "Asia/Kathmandu", "America/St_Johns"]


@pytest.mark.parametrize("tz", ZONES)
def test_local_time_is_strftime(tz: str) -> None:
    for when in TIMES:
        try:
            expected = _strftime(when, tz)
        except (OverflowError, ValueError) as exc:  # a time a zone cannot show: refused alike
            with pytest.raises(type(exc)):
                local_time(when, tz)
            continue
        assert local_time(when, tz) == expected, when
    for hours in range(0, 24 * 400, 7):  # the minutes and days across a year and its DST changes
        when = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(hours=hours, minutes=hours % 60, seconds=hours % 59)
        assert local_time(when, tz) == _strftime(when, tz)
