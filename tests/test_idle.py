"""An idle ``pbem run`` reads the head record only (the idle mark, pbem.core.idle), and the mark
is rebuilt whenever anything its decision rests on changes."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import NOW
from orders_util import signed

from pbem.core import gm
from pbem.core.campaign import Campaign, parse_time
from pbem.core.idle import mark_path
from pbem.core.intake import intake
from pbem.core.pipeline import CampaignRun, run_campaign

_watch: list[str] = []  # the archive folder whose opened files are counted, while a test watches
_opened: list[str] = []


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _watch and isinstance(args[0], str | bytes):
        path = args[0].decode() if isinstance(args[0], bytes) else args[0]
        if path.startswith(_watch[0]):
            _opened.append(path)


sys.addaudithook(_hook)  # the interpreter's own record of every file opened (it cannot be removed: it is gated)


def _run(camp: Path, now: str) -> tuple[CampaignRun, list[str]]:
    """One run of the campaign at ``now``, and the archive records it opened."""
    _opened.clear()
    _watch[:] = [str(camp / "archive") + "/"]
    try:
        result = run_campaign(camp, parse_time(now), fetch_mail=False, send_mail=False)
    finally:
        _watch.clear()
    assert result.error is None, result.line()
    return result, sorted(set(_opened))


@pytest.fixture
def long_campaign(mini_campaign: Path) -> Path:
    """The mini campaign with 30 records: the deadline extended 29 times by an hour."""
    camp = Campaign(mini_campaign)
    with camp.locked() as c:
        for _ in range(29):
            gm.extend(c, 3600, parse_time(NOW), "snow")
    assert len(Campaign(mini_campaign).records()) == 30
    return mini_campaign


def test_an_idle_run_opens_the_head_record_only(long_campaign: Path) -> None:
    first, opened = _run(long_campaign, NOW)
    assert len(opened) >= 30  # the full run reads every record, then writes the mark
    assert first.waiting == "waiting for N, S until 2026-12-04T17:00:00Z"  # 48 h + 29 extensions of an hour
    assert mark_path(Campaign(long_campaign)).is_file()
    again, opened = _run(long_campaign, "2026-12-04T16:59:59Z")
    assert opened == [str(long_campaign / "archive" / "000029.json")]
    assert again.waiting == first.waiting and again.queued == 0 and not again.resolved


@pytest.fixture
def extended(mini_campaign: Path) -> Path:
    """The mini campaign with two records: its deadline extended by an hour."""
    with Campaign(mini_campaign).locked() as c:
        gm.extend(c, 3600, parse_time(NOW), "snow")
    return mini_campaign


def _changes(mini_campaign: Path, keys: dict[str, Path], tmp_path: Path) -> dict[str, Callable[[], None]]:
    camp = Campaign(mini_campaign)
    hand = json.loads((mini_campaign / "states" / "000000.json").read_bytes())["hands"]

    def take(seat: str) -> None:
        doc = signed(tmp_path, keys[seat], "mini-1", seat, "round-1", {seat[0].upper(): {"bid": hand[seat[0].upper()][0]}}, nonce=camp.nonce)
        with camp.locked() as c:
            assert intake(c, [doc], parse_time(NOW)).accepted == 1

    def extend() -> None:
        with camp.locked() as c:
            gm.extend(c, 7200, parse_time(NOW), "rain")

    def mail() -> None:
        (mini_campaign / "inbox" / "new" / "1764590400.M1P1.host").write_bytes(b"From: north@example.org\r\n\r\nhello\r\n")

    return {"extend": extend, "take": lambda: take("north"), "mail": mail}


@pytest.mark.parametrize("change", ["extend", "take", "mail"])
def test_the_mark_is_rebuilt_after_a_change(extended: Path, keys: dict[str, Path], tmp_path: Path, change: str) -> None:
    mini_campaign = extended
    _run(mini_campaign, NOW)
    before = mark_path(Campaign(mini_campaign)).read_bytes()
    assert len(_run(mini_campaign, NOW)[1]) == 1  # idle: the mark holds
    _changes(mini_campaign, keys, tmp_path)[change]()
    result, opened = _run(mini_campaign, NOW)
    assert len(opened) > 1, "the run after a change must read the archive, not trust the mark"
    expected = {
        "extend": "waiting for N, S until 2026-12-03T15:00:00Z",  # two hours more
        "take": "waiting for S until 2026-12-03T13:00:00Z",  # north's orders are in
        "mail": "waiting for N, S until 2026-12-03T13:00:00Z",
    }[change]
    assert result.waiting == expected
    if change == "mail":
        assert result.refused == 1
    after = mark_path(Campaign(mini_campaign)).read_bytes()
    assert (after != before) == (change != "mail")  # the mail changed nothing the mark rests on
    assert len(_run(mini_campaign, NOW)[1]) == 1  # and the next idle run trusts the new mark


def test_all_orders_in_resolve_although_the_mark_said_waiting(mini_campaign: Path, keys: dict[str, Path], tmp_path: Path) -> None:
    _run(mini_campaign, NOW)
    changes = _changes(mini_campaign, keys, tmp_path)
    changes["take"]()
    camp = Campaign(mini_campaign)
    hand = json.loads((mini_campaign / "states" / "000000.json").read_bytes())["hands"]
    doc = signed(tmp_path, keys["south"], "mini-1", "south", "round-1", {"S": {"bid": hand["S"][0]}}, nonce=camp.nonce)
    with camp.locked() as c:
        assert intake(c, [doc], parse_time(NOW)).accepted == 1
    result, _ = _run(mini_campaign, NOW)
    assert result.resolved == ["round-1"]


def test_the_deadline_passing_ends_the_marks_word(extended: Path) -> None:
    mini_campaign = extended
    first, _ = _run(mini_campaign, NOW)
    assert first.waiting == "waiting for N, S until 2026-12-03T13:00:00Z"
    assert len(_run(mini_campaign, "2026-12-03T12:59:59Z")[1]) == 1
    later = parse_time(NOW) + timedelta(hours=49)
    result, opened = _run(mini_campaign, later.isoformat())
    assert len(opened) > 1
    assert result.waiting.startswith("held:") or result.resolved == ["round-1"]


@pytest.mark.parametrize("target", ["head", "state", "mark"])
def test_a_changed_file_is_not_trusted(extended: Path, target: str) -> None:
    mini_campaign = extended
    _run(mini_campaign, NOW)
    path = {"head": mini_campaign / "archive" / "000001.json", "state": mini_campaign / "states" / "000000.json",
            "mark": mark_path(Campaign(mini_campaign))}[target]
    text = path.read_text()
    if target == "mark":  # a mark that claims the campaign waits for something else
        path.write_text(text.replace("waiting for N, S", "waiting for nobody"))
        result, opened = _run(mini_campaign, NOW)
        assert result.waiting.startswith("waiting for N, S") and len(opened) == 2  # its seal is broken: read in full
        assert len(_run(mini_campaign, NOW)[1]) == 1 and "nobody" not in path.read_text()  # and made again
        return
    path.write_text(text.replace("snow", "hail") if target == "head" else "{}\n")
    if target == "head":  # read in full again: the record as it now reads
        result, opened = _run(mini_campaign, NOW)
        assert len(opened) == 2 and result.waiting.startswith("waiting for N, S")
        assert len(_run(mini_campaign, NOW)[1]) == 1  # the mark made again, for the head as it is now
    else:  # the full run checks the state against its record, as before there was a mark
        result = run_campaign(mini_campaign, parse_time(NOW), fetch_mail=False, send_mail=False)
        assert result.error is not None and "does not match record 0" in result.error


def test_a_mark_that_cannot_be_written_leaves_every_run_full(extended: Path) -> None:
    mark_path(Campaign(extended)).mkdir()  # where the mark goes, something that cannot be replaced by a file
    for _ in range(2):
        result, opened = _run(extended, NOW)
        assert result.waiting.startswith("waiting for N, S") and len(opened) == 2
    assert mark_path(Campaign(extended)).is_dir()
