"""A GM who wants to cheat (findings M1, M3, L2 of the security review), scripted attack by
attack. Each attack is either impossible (pbem refuses it) or caught: ``pbem audit`` fails with
a sentence that names the record, or a player's report and receipt show what happened.

Every campaign here is a real folder made with the CLI, with real keys and signed files.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import NOW, make_keys, run_cli
from orders_util import signed

from pbem.core.campaign import Campaign, record_hash
from pbem.core.canonical import canonical

PIN = re.compile(r"^record (\d+) sha256:([0-9a-f]{64})$", re.M)


def _hands(camp: Path) -> dict[str, list[int]]:
    last = sorted((camp / "states").glob("[0-9]*[0-9].json"))[-1]
    return json.loads(last.read_bytes())["hands"]  # type: ignore[no-any-return]


def _new(root: Path, name: str = "camp", cid: str = "mini-1") -> tuple[Path, dict[str, Path]]:
    keys = make_keys(root / f"{name}-keys", ("north", "south"))
    camp = root / name
    run_cli("new", str(camp), "--game", "mini", "--scenario", "short", "--id", cid,
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}", "--now", NOW)
    return camp, keys


def _round(root: Path, camp: Path, keys: dict[str, Path], rnd: int, cid: str = "mini-1") -> list[Path]:
    hands = _hands(camp)
    docs = [signed(root, keys["north"], cid, "north", f"round-{rnd}", {"N": {"bid": hands["N"][0]}}),
            signed(root, keys["south"], cid, "south", f"round-{rnd}", {"S": {"bid": hands["S"][0]}})]
    run_cli("intake", str(camp), *map(str, docs), "--now", NOW)
    run_cli("resolve", str(camp), "--now", NOW)
    return docs


def _pins(text: str) -> list[str]:
    return [f"{n}:{h}" for n, h in PIN.findall(text)]


def _audit(camp: Path, *pins: str) -> tuple[int, str]:
    args = [a for p in pins for a in ("--pin", p)]
    result = run_cli("audit", str(camp), *args, ok=False)
    return result.exit_code, result.output


def _rewrite_from(camp: Path, index: int, change: Any) -> None:
    """Rewrite record ``index`` with ``change`` and recompute every later ``prev`` link, as a GM
    who rewrites a suffix of the history would."""
    c = Campaign(camp)
    n = len(c.records())
    prev = record_hash(c.record_path(index - 1).read_bytes())
    for i in range(index, n):
        rec = json.loads(c.record_path(i).read_bytes())
        if i == index:
            change(rec)
        rec["prev"] = prev
        data = canonical(rec) + b"\n"
        c.record_path(i).write_bytes(data)
        prev = record_hash(data)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mini campaign after two rounds, its reports published."""
    root = tmp_path_factory.mktemp("adversary")
    camp, keys = _new(root)
    (root / "docs").mkdir()
    for rnd in (1, 2):
        _round(root / "docs", camp, keys, rnd)
    assert _audit(camp)[0] == 0
    return camp


def _copy(played: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy"
    shutil.copytree(played, out)
    return out


# -- pins: every report and receipt names the archive head it was made from ----------------------

def test_every_report_and_receipt_prints_its_pin(played: Path) -> None:
    c = Campaign(played)
    for key, index in (("0000-start", 0), ("0001-round-1", 1), ("0002-round-2", 2)):
        want = f"record {index} sha256:{record_hash(c.record_path(index).read_bytes())}"
        folder = played / "reports" / key
        for rel in ("public.txt", "public.html", "public.zh-TW.txt", "private/north.txt", "private/south.html"):
            assert want in (folder / rel).read_text(), f"{key}/{rel} lacks its pin"
    # the start report is also the first mail each player gets: it carries the first pin
    start_mail = (played / "outbox" / "report-0000-start-north.eml").read_text()
    assert "record 0 sha256:" in start_mail
    receipts = [p.read_text() for p in sorted((played / "outbox").glob("receipt-*.eml"))]
    assert len(receipts) == 4 and all(PIN.search(r) for r in receipts)


def test_the_report_pins_pass_the_audit(played: Path) -> None:
    pins = _pins((played / "reports" / "0002-round-2" / "public.txt").read_text())
    pins += _pins((played / "reports" / "0000-start" / "public.txt").read_text())
    code, out = _audit(played, *pins)
    assert code == 0, out
    assert "2 pin(s)" in out


def test_m1a_truncation_is_caught_by_a_pin(played: Path, tmp_path: Path) -> None:
    camp = _copy(played, tmp_path)
    pin = _pins((camp / "reports" / "0002-round-2" / "public.txt").read_text())[0]
    (camp / "archive" / "000002.json").unlink()
    (camp / "states" / "000002.json").unlink()
    assert _audit(camp)[0] == 0  # without a pin, a shorter history is still a history
    code, out = _audit(camp, pin)
    assert code == 1
    assert "archive/000002.json: record 2 is missing, but a report or receipt pinned it" in out
    assert "truncated after record 1" in out


def test_m1b_a_rewritten_suffix_is_caught_by_a_pin(played: Path, tmp_path: Path) -> None:
    camp = _copy(played, tmp_path)
    pin = _pins((camp / "reports" / "0002-round-2" / "public.txt").read_text())[0]
    _rewrite_from(camp, 2, lambda rec: rec.update(resolved_at="2026-12-01T13:00:00Z"))
    assert _audit(camp)[0] == 0  # links recomputed: the chain alone is intact
    code, out = _audit(camp, pin)
    assert code == 1
    assert "archive/000002.json: record 2 is not the record a report or receipt pinned" in out


def test_a_pin_from_a_receipt_is_checked_too(played: Path, tmp_path: Path) -> None:
    camp = _copy(played, tmp_path)
    receipts = sorted((camp / "outbox").glob("receipt-*.eml"), key=lambda p: p.read_text().count("record 1 "))
    pin = _pins(receipts[-1].read_text())[0]
    assert pin.startswith("1:")
    _rewrite_from(camp, 1, lambda rec: rec.update(resolved_at="2026-12-01T13:00:00Z"))
    code, out = _audit(camp, pin)
    assert code == 1 and "record 1 is not the record a report or receipt pinned" in out


def test_a_bad_pin_is_a_clear_usage_error(played: Path) -> None:
    code, out = _audit(played, "seven")
    assert code == 1 and "'seven' is not a pin" in out
