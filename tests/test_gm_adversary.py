"""A GM who wants to cheat (findings M1, M3, L2 of the security review), scripted attack by
attack. Each attack is either impossible (pbem refuses it) or caught: ``pbem audit`` fails with
a sentence that names the record, or a player's report and receipt show what happened.

Every campaign here is a real folder made with the CLI, with real keys and signed files.
"""

from __future__ import annotations

import hashlib
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


# -- M1c: pause and resume records need a majority of valid requests; cited files name this campaign

def _request(tmp: Path, key: Path, seat: str, kind: str, seq: int, phase: str = "round-3", cid: str = "mini-1") -> Path:
    src = tmp / f"{seat}-{kind}-{seq}-{cid}-src.yaml"
    src.write_text(f"pbem: 1\ncampaign: {cid}\nplayer: {seat}\nphase: {phase}\nseq: {seq}\nrequest: {{kind: {kind}}}\n")
    out = tmp / f"{seat}-{kind}-{seq}-{cid}.yaml"
    run_cli("sign", str(src), "--key", str(key), "-o", str(out))
    return out


def _forge_pause(camp: Path, requests: dict[str, Path], kind: str = "pause") -> int:
    """The GM appends a pause record of its own making, citing ``requests`` (seat -> file)."""
    c = Campaign(camp)
    cited = {}
    for seat, src in requests.items():
        dest = camp / "orders" / "0003-round-3" / "requests" / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, dest)
        cited[seat] = {"file": str(dest.relative_to(camp)), "sha256": hashlib.sha256(dest.read_bytes()).hexdigest()}
    rec = c.append_record({"kind": kind, "phase": "round-3", "phase_number": 3, "requests": cited, "resolved_at": NOW})
    return int(rec["index"])


def test_m1c_a_pause_that_cites_nobody_is_caught(played: Path, tmp_path: Path) -> None:
    camp = _copy(played, tmp_path)
    index = _forge_pause(camp, {})
    code, out = _audit(camp)
    assert code == 1
    assert f"record {index} (archive/00000{index}.json) is a pause with 0 signed request(s) of 2 seats: a pause needs a majority" in out


def test_m1c_a_pause_on_one_request_of_two_is_caught(played: Path, tmp_path: Path) -> None:
    camp = _copy(played, tmp_path)
    keys = played.parent / "camp-keys"
    index = _forge_pause(camp, {"north": _request(tmp_path, keys / "north.key", "north", "pause", 1)})
    code, out = _audit(camp)
    assert code == 1 and f"record {index} (archive/00000{index}.json) is a pause with 1 signed request(s) of 2 seats" in out


@pytest.mark.parametrize("wrong", ["kind", "phase", "campaign"])
def test_m1c_a_request_of_the_wrong_kind_phase_or_campaign_is_caught(played: Path, tmp_path: Path, wrong: str) -> None:
    camp = _copy(played, tmp_path)
    keys = played.parent / "camp-keys"
    args = {"kind": {"kind": "resume"}, "phase": {"phase": "round-1"}, "campaign": {"cid": "mini-2"}}[wrong]
    kind = str(args.pop("kind", "pause"))
    bad = _request(tmp_path, keys / "north.key", "north", kind, 1, **args)  # type: ignore[arg-type]
    good = _request(tmp_path, keys / "south.key", "south", "pause", 1)
    index = _forge_pause(camp, {"north": bad, "south": good})
    code, out = _audit(camp)
    assert code == 1
    assert f"record {index} (archive/00000{index}.json) counts this file as north's pause request for round-3 in 'mini-1'" in out


def test_m1c_an_order_file_of_another_campaign_is_caught(played: Path, tmp_path: Path) -> None:
    """Two campaigns with the same players' keys: the GM puts north's file of the other campaign
    in this one's archive, fixes the hashes and relinks the chain. The replay would agree (same
    orders), but the file names the other campaign."""
    camp = _copy(played, tmp_path)
    keys = played.parent / "camp-keys"
    rec1 = json.loads((camp / "archive" / "000001.json").read_bytes())
    used = rec1["orders"]["north"]
    original = (camp / used["file"]).read_text()
    bid = re.search(r"bid: (\d+)", original)
    assert bid is not None
    other = signed(tmp_path, keys / "north.key", "mini-2", "north", "round-1", {"N": {"bid": int(bid.group(1))}}, seq=used["seq"])
    (camp / used["file"]).write_bytes(other.read_bytes())
    digest = hashlib.sha256(other.read_bytes()).hexdigest()
    _rewrite_from(camp, 1, lambda rec: rec["orders"]["north"].update(sha256=digest))
    code, out = _audit(camp)
    assert code == 1
    assert f"{used['file']}: the order file is for campaign 'mini-2', but record 1 (archive/000001.json) uses it in 'mini-1'" in out


# -- M1d: each phase uses each seat's newest accepted file ------------------------------------------

@pytest.fixture
def two_seqs(tmp_path: Path) -> tuple[Path, dict[str, Path], list[Path]]:
    """A campaign where north sent seq 1 and then seq 2 for round 1, and south sent its orders."""
    camp, keys = _new(tmp_path)
    hands = _hands(camp)
    docs = [signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": hands["N"][0]}}, name="n1"),
            signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": hands["N"][1]}}, name="n2"),
            signed(tmp_path, keys["south"], "mini-1", "south", "round-1", {"S": {"bid": hands["S"][0]}})]
    run_cli("intake", str(camp), *map(str, docs), "--now", NOW)
    return camp, keys, docs


def test_m1d_an_older_seq_used_while_the_newest_is_kept_is_caught(two_seqs: tuple[Path, dict[str, Path], list[Path]], tmp_path: Path) -> None:
    camp, _, _ = two_seqs
    folder = camp / "orders" / "0001-round-1"
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    for p in folder.glob("north.000002.yaml*"):  # the GM hides seq 2, resolves, and puts it back
        shutil.move(str(p), str(hidden / p.name))
    run_cli("resolve", str(camp), "--force", "--now", NOW)
    for p in hidden.iterdir():
        shutil.move(str(p), str(folder / p.name))
    code, out = _audit(camp)
    assert code == 1
    assert ("archive/000001.json: record 1 resolved round-1 with seq 1 for north, but orders/0001-round-1/north.000002.yaml (seq 2) "
            "was accepted before it: the newest file must count") in out


def test_m1d_an_older_seq_used_after_deleting_the_newest_shows_in_receipt_and_report(two_seqs: tuple[Path, dict[str, Path], list[Path]]) -> None:
    """A GM who deletes seq 2 and its verdict leaves the audit nothing to compare; the player's
    receipt for seq 2 holds its file hash, and the public report lists the file actually used."""
    camp, _, docs = two_seqs
    receipt = next(p.read_text() for p in (camp / "outbox").glob("receipt-*.eml") if "(seq 2)" in p.read_text())
    sent = hashlib.sha256(docs[1].read_bytes()).hexdigest()
    assert sent in receipt
    for p in (camp / "orders" / "0001-round-1").glob("north.000002.yaml*"):
        p.unlink()
    run_cli("resolve", str(camp), "--force", "--now", NOW)
    report = (camp / "reports" / "0001-round-1" / "public.txt").read_text()
    assert f"north seq 1: {hashlib.sha256(docs[0].read_bytes()).hexdigest()}" in report
    assert sent not in report  # north sees that the file it sent is not the one used


# -- M1e: a seat's key swapped to the GM's and back --------------------------------------------------

def test_m1e_a_key_swapped_and_back_is_listed_in_the_next_report_and_the_audit(tmp_path: Path) -> None:
    camp, keys = _new(tmp_path)
    gm = make_keys(tmp_path / "gm-keys", ("gm",))["gm"]
    run_cli("replace-player", str(camp), f"north=gm@example.org:{gm.with_suffix('.pub')}", "--now", NOW)
    hands = _hands(camp)
    forged = signed(tmp_path, gm, "mini-1", "north", "round-1", {"N": {"bid": hands["N"][-1]}}, seq=5)
    south = signed(tmp_path, keys["south"], "mini-1", "south", "round-1", {"S": {"bid": hands["S"][0]}})
    run_cli("intake", str(camp), str(forged), str(south), "--now", NOW)
    run_cli("resolve", str(camp), "--force", "--now", NOW)
    run_cli("replace-player", str(camp), f"north=north@example.org:{keys['north'].with_suffix('.pub')}", "--now", NOW)
    gm_key = gm.with_suffix(".pub").read_text().split()[0]
    report = (camp / "reports" / "0001-round-1" / "public.txt").read_text()
    assert "Roster changes since the last report" in report
    assert f"record 1: north now signs with key {gm_key}" in report
    _round(tmp_path, camp, keys, 2)
    later = (camp / "reports" / "0002-round-2" / "public.txt").read_text()
    assert f"record 3: north now signs with key {keys['north'].with_suffix('.pub').read_text().split()[0]}" in later
    code, out = _audit(camp)
    assert code == 0
    assert "record 1 (archive/000001.json): roster change, north now signs with" in out
    assert "record 3 (archive/000003.json): roster change, north now signs with" in out
