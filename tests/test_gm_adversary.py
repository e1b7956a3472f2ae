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
from archive_util import rewrite_from
from conftest import NOW, make_keys, run_cli
from orders_util import signed

from pbem.common.canonical import canonical, digest
from pbem.common.fair import phase_seed
from pbem.core.campaign import Campaign, record_hash

PIN = re.compile(r"^record (\d+) sha256:([0-9a-f]{64})$", re.M)


def _hands(camp: Path) -> dict[str, list[int]]:
    last = sorted((camp / "states").glob("[0-9]*[0-9].json"))[-1]
    return json.loads(last.read_bytes())["hands"]  # type: ignore[no-any-return]


def _new(root: Path, name: str = "camp", cid: str = "mini-1") -> tuple[Path, dict[str, Path]]:
    keys = make_keys(root / f"{name}-keys", ("north", "south"))
    camp = root / name
    run_cli("new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short", "--id", cid,
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}", "--now", NOW)
    return camp, keys


def _round(root: Path, camp: Path, keys: dict[str, Path], rnd: int, cid: str = "mini-1") -> list[Path]:
    hands = _hands(camp)
    nonce = Campaign(camp).nonce  # as the order form gives it
    docs = [signed(root, keys["north"], cid, "north", f"round-{rnd}", {"N": {"bid": hands["N"][0]}}, nonce=nonce),
            signed(root, keys["south"], cid, "south", f"round-{rnd}", {"S": {"bid": hands["S"][0]}}, nonce=nonce)]
    run_cli("intake", str(camp), *map(str, docs), "--now", NOW)
    run_cli("resolve", str(camp), "--now", NOW)
    return docs


def _pins(text: str) -> list[str]:
    return [f"{n}:{h}" for n, h in PIN.findall(text)]


def _audit(camp: Path, *pins: str) -> tuple[int, str]:
    args = [a for p in pins for a in ("--pin", p)]
    result = run_cli("audit", str(camp), *args, ok=False)
    return result.exit_code, result.output


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
    rewrite_from(camp, 2, lambda rec: rec.update(resolved_at="2026-12-01T13:00:00Z"))
    assert _audit(camp)[0] == 0  # links recomputed: the chain alone is intact
    code, out = _audit(camp, pin)
    assert code == 1
    assert "archive/000002.json: record 2 is not the record a report or receipt pinned" in out


def test_a_pin_from_a_receipt_is_checked_too(played: Path, tmp_path: Path) -> None:
    camp = _copy(played, tmp_path)
    receipts = sorted((camp / "outbox").glob("receipt-*.eml"), key=lambda p: p.read_text().count("record 1 "))
    pin = _pins(receipts[-1].read_text())[0]
    assert pin.startswith("1:")
    rewrite_from(camp, 1, lambda rec: rec.update(resolved_at="2026-12-01T13:00:00Z"))
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
    rewrite_from(camp, 1, lambda rec: rec["orders"]["north"].update(sha256=digest))
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


def test_m1d_an_older_seq_used_after_deleting_the_newest_shows_in_receipt_and_report(two_seqs: tuple[Path, dict[str, Path], list[Path]],
                                                                                     tmp_path: Path) -> None:
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
    # and so does the audit of a public copy, given the file north sent
    pub = tmp_path / "pub"
    shutil.copytree(camp / "archive", pub / "archive")
    result = run_cli("audit", str(pub), "--public", "--sent", str(docs[1]), ok=False)
    assert result.exit_code == 1
    assert (f"archive/000001.json: record 1 (archive/000001.json) resolved round-1 with seq 1 (sha256:{hashlib.sha256(docs[0].read_bytes()).hexdigest()}) "
            f"for north, not with the file you sent, north's seq 2 (sha256:{sent})") in result.output
    ok = run_cli("audit", str(pub), "--public", "--sent", str(docs[2])).output
    assert f"{docs[2].name}: record 1 (archive/000001.json) used this file" in ok


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
    assert f"record 1 (archive/000001.json): roster change, north now signs with {gm_key[:28]}…\n" in out
    north_key = keys["north"].with_suffix(".pub").read_text().split()[0]
    assert f"record 3 (archive/000003.json): roster change, north now signs with {north_key[:28]}…\n" in out


# -- M2: a player audits a copy of archive/ in the middle of the game --------------------------------

def _public_copy(camp: Path, tmp_path: Path) -> Path:
    out = tmp_path / "pub"
    shutil.copytree(camp / "archive", out / "archive")
    return out


def _public_audit(folder: Path, *pins: str) -> tuple[int, str]:
    args = [a for p in pins for a in ("--pin", p)]
    result = run_cli("audit", str(folder), "--public", *args, ok=False)
    return result.exit_code, result.output


def test_m2_the_public_archive_audits_mid_game(played: Path, tmp_path: Path) -> None:
    assert sorted(p.name for p in (played / "archive").iterdir()) == ["000000.json", "000001.json", "000002.json"]
    pub = _public_copy(played, tmp_path)
    pin = _pins((played / "reports" / "0002-round-2" / "public.txt").read_text())[0]
    code, out = _public_audit(pub, pin)
    assert code == 0, out
    assert "3 records: hash chain intact" in out
    draws = sum(len(r["public_dice"]) for r in Campaign(played).records() if r["kind"] == "phase")
    assert draws > 0
    assert f"2 phases: public hash-chain keys and the players' entropy verified; {draws} public draws recomputed" in out
    assert "1 pin(s) from reports or receipts" in out
    # the seed of each phase's dice, from which a player recomputes every die of its report
    seed = re.search(r"round-2 \(record 2\): public stream seed ([0-9a-f]{64})", out)
    rec = Campaign(played).records()[2]
    assert seed is not None and seed.group(1) == phase_seed("public", bytes.fromhex(rec["public_key"]), "round-2", bytes.fromhex(rec["entropy_mix"])).hex()
    assert "audit passed" in out
    # the full audit of the same copy fails: states and orders are not there
    assert _audit(pub)[0] == 1


def test_m2_a_truncated_public_copy_fails_given_a_pin_from_a_report(played: Path, tmp_path: Path) -> None:
    pub = _public_copy(played, tmp_path)
    pin = _pins((played / "reports" / "0002-round-2" / "public.txt").read_text())[0]
    (pub / "archive" / "000002.json").unlink()
    assert _public_audit(pub)[0] == 0
    code, out = _public_audit(pub, pin)
    assert code == 1 and "record 2 is missing, but a report or receipt pinned it" in out


def test_m2_a_reveal_rewritten_in_a_public_copy_is_caught(played: Path, tmp_path: Path) -> None:
    pub = _public_copy(played, tmp_path)
    rec = json.loads((pub / "archive" / "000002.json").read_bytes())
    seat = sorted(rec["entropy"])[0]
    assert rec["entropy"][seat]["status"] == "ok"
    rewrite_from(pub, 2, lambda r: r["entropy"][seat].update(used="00" * 32, reveal="00" * 32))
    code, out = _public_audit(pub)
    assert code == 1
    assert f"record 2 (archive/000002.json): {seat}'s entropy does not open the commitment" in out


def test_m2_a_public_draw_rewritten_in_a_public_copy_is_caught(played: Path, tmp_path: Path) -> None:
    pub = _public_copy(played, tmp_path)
    rec = json.loads((pub / "archive" / "000001.json").read_bytes())
    n, value = rec["public_dice"][0]
    rewrite_from(pub, 1, lambda r: r["public_dice"][0].__setitem__(1, (value + 1) % n))
    code, out = _public_audit(pub)
    assert code == 1
    assert f"record 1 (archive/000001.json): public draw 1 (1 of {n}) is not {(value + 1) % n} with this phase's chain key and entropy mix" in out


def test_m2_pause_majority_checked_in_a_public_copy(tmp_path: Path) -> None:
    camp, keys = _new(tmp_path)
    for seat in ("north", "south"):
        run_cli("intake", str(camp), str(_request(tmp_path, keys[seat], seat, "pause", 1, phase="round-1")), "--now", NOW)
    assert Campaign(camp).records()[-1]["kind"] == "pause"
    pub = _public_copy(camp, tmp_path)
    code, out = _public_audit(pub)
    assert code == 0, out
    # the GM drops one of the two requests from the record: 1 of 2 is no majority
    rewrite_from(pub, 1, lambda r: r["requests"].pop("south"))
    code, out = _public_audit(pub)
    assert code == 1 and "record 1 (archive/000001.json) is a pause with 1 signed request(s) of 2 seats" in out


# -- L2: two campaigns with the same id ------------------------------------------------------------

def _form_signed(camp: Path, key: Path, seat: str, out: Path, bid_index: int = 0) -> Path:
    """What a player does: take the order form of the latest report, fill it in, pbem sign it."""
    forms = sorted((camp / "reports").glob(f"*/forms/{seat}.yaml"))
    text = forms[-1].read_text()
    power = {"north": "N", "south": "S"}[seat]
    text = re.sub(r"(\n    bid: )\d+", rf"\g<1>{_hands(camp)[power][bid_index]}", text)
    src = out.with_name(out.stem + "-src.yaml")
    src.write_text(text)
    run_cli("sign", str(src), "--key", str(key), "-o", str(out))
    return out


def test_l2_a_file_from_a_campaign_with_the_same_id_is_refused(tmp_path: Path) -> None:
    a, keys = _new(tmp_path, "a")
    run_cli("report", str(a), "--all")
    nonce_a = Campaign(a).nonce
    assert nonce_a and re.fullmatch(r"[0-9a-f]{32}", nonce_a)
    # the nonce is published in the start report (and its mail) before anyone sends a file
    assert nonce_a in (a / "reports" / "0000-start" / "public.txt").read_text()
    assert nonce_a in (a / "outbox" / "report-0000-start-north.eml").read_text()
    filed = _form_signed(a, keys["north"], "north", tmp_path / "north-a.yaml")
    assert f"nonce: {nonce_a}" in filed.read_text()
    assert "accepted:" in run_cli("intake", str(a), str(filed), "--now", NOW).output
    # campaign B: the same id, the same players' keys
    b = tmp_path / "b"
    run_cli("new", str(b), "--deal-now", "--game", "mini", "--scenario", "short", "--id", "mini-1",
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}", "--now", NOW)
    assert Campaign(b).nonce != nonce_a
    out = run_cli("intake", str(b), str(filed), "--now", NOW).output
    assert "refused:" in out and "is for another campaign named 'mini-1'" in out
    assert not list((b / "orders").glob("*/north.*.yaml"))


# -- M3: chance nobody can steer ---------------------------------------------------------------------

def test_m3_1_the_gm_is_committed_in_the_start_report_before_anyone_sends_entropy(tmp_path: Path) -> None:
    """The anchor of the public hash chain, the commitment to the secret key and the campaign
    nonce are in the start report and in the first mail every player gets, before any order
    file. A GM who re-creates the campaign to try another seed after that shows a different
    anchor, and the players' files of the first campaign are refused (the nonce differs)."""
    camp, _ = _new(tmp_path)
    run_cli("report", str(camp), "--all")
    create = Campaign(camp).create_record()
    mail = (camp / "outbox" / "report-0000-start-south.eml").read_text()
    for field in ("public_anchor", "secret_commitment", "nonce"):
        assert create[field] in (camp / "reports" / "0000-start" / "public.txt").read_text()
        assert create[field] in mail, field
        assert create[field] in (camp / "site" / "index.html").read_text(), field
    assert not list((camp / "orders").glob("*/*.yaml"))


def test_m3_2_a_withheld_reveal_costs_the_seat_its_orders(tmp_path: Path) -> None:
    """A GM who plays (north) sees the other reveals and could send his file with or without his
    own reveal to choose between two outcomes. Without the reveal his orders do not count: the
    seat plays its defaults, the public report says so, and the new commitment counts next."""
    camp, keys = _new(tmp_path)
    (tmp_path / "d").mkdir()
    _round(tmp_path / "d", camp, keys, 1)
    hands = _hands(camp)
    lost = tmp_path / "lost"  # the same key without the value pbem sign kept beside it
    lost.mkdir()
    shutil.copy(keys["north"], lost / "north.key")
    bid = max(hands["N"])
    assert bid != min(hands["N"])
    north = signed(tmp_path, lost / "north.key", "mini-1", "north", "round-2", {"N": {"bid": bid}})
    assert "entropy_reveal" not in north.read_text()
    south = signed(tmp_path, keys["south"], "mini-1", "south", "round-2", {"S": {"bid": hands["S"][0]}})
    run_cli("intake", str(camp), str(north), str(south), "--now", NOW)
    receipt = next(p.read_text() for p in (camp / "outbox").glob("receipt-*.eml") if "round-2" in p.read_text() and "north" in p.read_text()
                   and "entropy_reveal" in p.read_text())
    assert "this file's orders will not count" in receipt
    run_cli("resolve", str(camp), "--now", NOW)
    rec = Campaign(camp).records()[-1]
    assert rec["entropy"]["north"]["status"] == "withheld" and rec["entropy"]["south"]["status"] == "ok"
    assert rec["defaults"] == ["N"]
    events = json.loads((camp / "states" / f"{rec['index']:06d}.events.json").read_bytes())
    assert any(e.get("power") == "N" and e.get("bid") == min(hands["N"]) for e in events), events
    report = (camp / "reports" / "0002-round-2" / "public.txt").read_text()
    assert "Withheld entropy reveal (orders not counted, defaults played): north" in report
    # the withheld file's fresh commitment counts from the next phase: north is out one phase only
    hands = _hands(camp)
    north3 = signed(tmp_path, lost / "north.key", "mini-1", "north", "round-3", {"N": {"bid": hands["N"][0]}})
    south3 = signed(tmp_path, keys["south"], "mini-1", "south", "round-3", {"S": {"bid": hands["S"][0]}})
    run_cli("intake", str(camp), str(north3), str(south3), "--now", NOW)
    run_cli("resolve", str(camp), "--now", NOW)
    rec3 = [r for r in Campaign(camp).records() if r["kind"] == "phase"][-1]
    assert rec3["entropy"]["north"]["status"] == "ok" and rec3["defaults"] == []
    assert _audit(camp)[0] == 0


def test_m3_3_a_rollback_moves_to_a_fresh_chain_key(tmp_path: Path) -> None:
    """Every reveal of the superseded phase is public; with the same chain key anyone could
    compute the re-run's dice before choosing orders. The re-run takes the next key instead,
    which nobody but the GM knows before its report."""
    camp, keys = _new(tmp_path)
    (tmp_path / "d").mkdir()
    _round(tmp_path / "d", camp, keys, 1)
    run_cli("rollback", str(camp), "--to", "round-1", "--now", NOW)
    run_cli("resolve", str(camp), "--force", "--now", NOW)
    recs = Campaign(camp).records()
    first, rerun = recs[1], recs[3]
    assert recs[2]["kind"] == "rollback" and rerun["phase"] == first["phase"] == "round-1"
    assert rerun["public_key"] != first["public_key"]
    assert hashlib.sha256(bytes.fromhex(rerun["public_key"])).hexdigest() == first["public_key"]
    assert (first.get("chain_index"), rerun.get("chain_index")) == (1, 2)
    assert _audit(camp)[0] == 0
    assert _public_audit(_public_copy(camp, tmp_path))[0] == 0
    # a GM who re-uses the old key for the re-run is caught
    pub = _public_copy(camp, tmp_path / "x")
    rewrite_from(pub, 3, lambda r: r.update(public_key=first["public_key"]))
    code, out = _public_audit(pub)
    assert code == 1 and "archive/000003.json: the public key of phase 1 is not the next key of the hash chain" in out


def test_m2_after_the_end_the_public_copy_checks_the_revealed_seed(tmp_path: Path) -> None:
    camp, keys = _new(tmp_path)
    (tmp_path / "d").mkdir()
    for rnd in (1, 2, 3):
        _round(tmp_path / "d", camp, keys, rnd)
    assert Campaign(camp).records()[-1]["kind"] == "end"
    pub = _public_copy(camp, tmp_path)
    code, out = _public_audit(pub)
    assert code == 0 and "the seed revealed in record 4 matches the anchor and the commitment of record 0" in out
    rewrite_from(pub, 4, lambda r: r.update(seed="11" * 32))
    code, out = _public_audit(pub)
    assert code == 1 and "archive/000004.json: the secret seed does not match the commitment published in record 0" in out


# -- M3.1: no draw before every seat's entropy is committed and revealed ------------------------------

def _new_entropy_first(root: Path, name: str = "ef", cid: str = "mini-1", keys: dict[str, Path] | None = None) -> tuple[Path, dict[str, Path]]:
    keys = keys or make_keys(root / f"{name}-keys", ("north", "south"))
    camp = root / name
    run_cli("new", str(camp), "--game", "mini", "--scenario", "short", "--id", cid, "--entropy-first",
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}", "--now", NOW)
    return camp, keys


def _entropy_round(tmp: Path, camp: Path, keys: dict[str, Path], phase: str, seats: tuple[str, ...] = ("north", "south")) -> list[Path]:
    """Each seat signs its empty form for ``phase`` with pbem sign (which fills the entropy) and the GM takes them in."""
    nonce = Campaign(camp).nonce
    docs = []
    for seat in seats:
        src = tmp / f"{seat}-{phase.replace('/', '_')}-src.yaml"
        src.write_text(f"pbem: 1\ncampaign: {Campaign(camp).id}\nnonce: {nonce}\nplayer: {seat}\nphase: {phase}\nseq: 1\norders:\n  {seat}: {{}}\n")
        out = src.with_name(src.name.replace("-src", ""))
        run_cli("sign", str(src), "--key", str(keys[seat]), "-o", str(out))
        docs.append(out)
    run_cli("intake", str(camp), *map(str, docs), "--now", NOW)
    return docs


def test_m3_1_nothing_is_dealt_before_every_seat_has_committed_and_revealed(tmp_path: Path) -> None:
    camp, keys = _new_entropy_first(tmp_path)
    c = Campaign(camp)
    state0 = json.loads((camp / "states" / "000000.json").read_bytes())
    assert "hands" not in state0 and "deck" not in state0  # record 0 draws nothing
    assert c.create_record()["entropy_first"] is True
    run_cli("report", str(camp), "--all")
    start = (camp / "reports" / "0000-start" / "public.txt").read_text()
    for field in ("public_anchor", "secret_commitment", "nonce"):  # published before anyone commits
        assert c.create_record()[field] in start
    assert "Next phase: deal/commit" in start
    assert "nonce: " + str(c.nonce) in (camp / "reports" / "0000-start" / "forms" / "north.yaml").read_text()
    (tmp_path / "d").mkdir()
    _entropy_round(tmp_path / "d", camp, keys, "deal/commit")
    run_cli("resolve", str(camp), "--now", NOW)
    commit = Campaign(camp).records()[1]
    assert commit["phase"] == "deal/commit" and commit["entropy"] == {} and commit["public_draws"] == 0
    assert "hands" not in json.loads((camp / "states" / "000001.json").read_bytes())
    _entropy_round(tmp_path / "d", camp, keys, "deal/reveal")
    run_cli("resolve", str(camp), "--now", NOW)
    deal = Campaign(camp).records()[2]
    assert deal["phase"] == "deal/reveal"
    assert {s: e["status"] for s, e in deal["entropy"].items()} == {"north": "ok", "south": "ok"}
    assert "hands" in _hands_state(camp)
    assert Campaign(camp).game().current_phase(_hands_state(camp)).id == "round-1"
    code, out = _audit(camp)
    assert code == 0, out
    assert _public_audit(_public_copy(camp, tmp_path))[0] == 0
    # the players' first orders reveal the value their deal file committed
    _round(tmp_path / "d", camp, keys, 1)
    assert {s: e["status"] for s, e in Campaign(camp).records()[3]["entropy"].items()} == {"north": "ok", "south": "ok"}
    assert _audit(camp)[0] == 0


def _hands_state(camp: Path) -> dict[str, Any]:
    last = sorted((camp / "states").glob("[0-9]*[0-9].json"))[-1]
    return json.loads(last.read_bytes())  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def dealt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An entropy-first mini campaign just dealt (records: create, deal/commit, deal/reveal)."""
    root = tmp_path_factory.mktemp("dealt")
    camp, keys = _new_entropy_first(root)
    (root / "d").mkdir()
    for phase in ("deal/commit", "deal/reveal"):
        _entropy_round(root / "d", camp, keys, phase)
        run_cli("resolve", str(camp), "--now", NOW)
    return camp


def test_m3_1_the_deal_is_a_function_of_the_players_reveals(tmp_path: Path) -> None:
    """The GM's seed grinding, scripted: the GM fixes his seed (it must, to publish the anchor
    before anyone commits) and then would like a good deal. With the same seed the deal still
    follows the players' values, which he learns only after every commitment is recorded."""
    from pbem.common.fair import H
    from pbem.core.campaign import Seat, parse_time
    from pbem.core.deal import COMMIT, REVEAL
    from pbem.core.envelope import format_document
    from pbem.core.keys import load_private_key, load_public_key
    from pbem.core.pipeline import run_campaign
    from pbem.core.signer import sign_file_data
    from pbem.games import get_game

    keys = make_keys(tmp_path / "keys", ("north", "south"))
    seats = [Seat(s, f"{s}@example.org", load_public_key(str(keys[s].with_suffix(".pub")))) for s in ("north", "south")]
    hands = []
    for trial, salt in enumerate(("a", "a", "b")):
        root = tmp_path / f"t{trial}"
        camp = Campaign.create(root / "camp", campaign_id="mini-1", game=get_game("mini"), scenario="short", options={}, seats=seats,
                               deadlines={"default": 3600}, grace=0, start=parse_time(NOW), seed=H(b"the GM's chosen seed"),
                               entropy_first=True)
        for phase in (COMMIT, REVEAL):
            files = []
            for s in ("north", "south"):
                data = {"pbem": 1, "campaign": "mini-1", "nonce": camp.nonce, "player": s, "phase": phase, "orders": {s: {}}}
                key = root / f"{s}.key"  # a copy per trial: pbem sign keeps the pending value beside it
                if not key.exists():
                    shutil.copy(keys[s], key)
                doc = sign_file_data(data, load_private_key(key), key, fresh=H(f"{salt} {s} {phase}".encode()))
                f = root / f"{s}-{phase.replace('/', '_')}.yaml"
                f.write_text(format_document(doc))
                files.append(f)
            run_cli("intake", str(camp.root), *map(str, files), "--now", NOW)
            run_campaign(camp.root, parse_time(NOW), fetch_mail=False)
        hands.append(_hands_state(camp.root)["hands"])
    assert hands[0] == hands[1]  # the same seed and the same values: the same deal (anyone can replay it)
    assert hands[0] != hands[2]  # the same seed, other players' values: another deal


def test_m3_1_a_deal_not_made_from_the_reveals_fails_the_audit(dealt: Path, tmp_path: Path) -> None:
    """The GM swaps in a deal he prefers (state and state hash) and relinks the chain: the
    replay makes the deal again from the players' reveals and names the record."""
    camp = _copy(dealt, tmp_path)
    state = json.loads((camp / "states" / "000002.json").read_bytes())
    state["hands"]["N"] = [9, 9, 9]
    (camp / "states" / "000002.json").write_bytes(canonical(state) + b"\n")
    rewrite_from(camp, 2, lambda r: r.update(state_hash=digest(state)))
    code, out = _audit(camp)
    assert code == 1
    assert "archive/000002.json: replaying phase deal/reveal gives a different state hash than the record" in out


def test_m3_1_a_reveal_changed_in_the_deal_record_fails_the_public_audit(dealt: Path, tmp_path: Path) -> None:
    pub = _public_copy(dealt, tmp_path)
    code, out = _public_audit(pub)
    assert code == 0, out
    rewrite_from(pub, 2, lambda r: r["entropy"]["south"].update(reveal="00" * 32, used="00" * 32))
    code, out = _public_audit(pub)
    assert code == 1
    assert "record 2 (archive/000002.json): south's entropy does not open the commitment" in out


def test_m3_1_a_deal_without_the_commit_round_fails_the_public_audit(dealt: Path, tmp_path: Path) -> None:
    """A GM who deals in the first round (before any commitment is recorded) cannot make it look
    like a deal from reveals: the mix of a round without commitments holds no player's value."""
    pub = _public_copy(dealt, tmp_path)
    rec = json.loads((pub / "archive" / "000002.json").read_bytes())
    rewrite_from(pub, 1, lambda r: r.update(entropy=rec["entropy"], entropy_mix=rec["entropy_mix"]))
    code, out = _public_audit(pub)
    assert code == 1
    assert "record 1 (archive/000001.json) mixes entropy of north, who had no commitment pending" in out


def test_m3_1_a_gm_who_plays_chooses_between_two_deals_at_most(tmp_path: Path) -> None:
    """What a GM who also plays (north) can still choose at the deal: having read south's
    reveal, it sends its own file with its reveal, or without it (its commitment is mixed in
    instead). Two deals, no more, and the second names north as withheld in the public report."""
    camp, keys = _new_entropy_first(tmp_path)
    (tmp_path / "d").mkdir()
    _entropy_round(tmp_path / "d", camp, keys, "deal/commit")
    run_cli("resolve", str(camp), "--now", NOW)
    lost = tmp_path / "lost"  # north's key without the pending value: the file carries no reveal
    lost.mkdir()
    shutil.copy(keys["north"], lost / "north.key")
    deals = []
    for withhold in (False, True):
        copy = tmp_path / f"choice-{withhold}"
        shutil.copytree(camp, copy)
        (tmp_path / f"w{withhold}").mkdir()
        _entropy_round(tmp_path / f"w{withhold}", copy, {**keys, "north": lost / "north.key"} if withhold else keys, "deal/reveal")
        run_cli("resolve", str(copy), "--force", "--now", NOW)
        deal = Campaign(copy).records()[2]
        assert deal["entropy"]["north"]["status"] == ("withheld" if withhold else "ok")
        deals.append(_hands_state(copy)["hands"])
        run_cli("report", str(copy), "--all")
        report = (copy / "reports" / "0002-deal_reveal" / "public.txt").read_text()
        # the round takes no orders: its own sentence, not the one of a round with orders
        said = "Withheld entropy reveal (this round takes no orders; the commitment stood in for the value): north" in report
        assert said == withhold
        assert "orders not counted" not in report
        zh = (copy / "reports" / "0002-deal_reveal" / "public.zh-TW.txt").read_text()
        assert ("未揭示亂數（本輪不收命令；以承諾代替該值）：north" in zh) == withhold
        assert "命令不計" not in zh
        assert _audit(copy)[0] == 0
    assert deals[0] != deals[1]


# -- M3.3: a rollback's re-run needs fresh reveals ---------------------------------------------------

def _sign_form(form: Path, key: Path, seat: str, bid: int, out: Path) -> Path:
    """A player fills the order form in with a bid and signs it with pbem sign."""
    text = re.sub(r"(\n    bid: )\d+", rf"\g<1>{bid}", form.read_text())
    src = out.with_name(out.stem + "-src.yaml")
    src.write_text(text)
    run_cli("sign", str(src), "--key", str(key), "-o", str(out))
    return out


def test_m3_3_a_rollback_re_run_takes_fresh_reveals_not_the_published_ones(tmp_path: Path) -> None:
    """The superseded record published every reveal of the phase; with them and its next chain
    key the GM would know the re-run's dice before anyone sends orders. The re-run owes the values
    committed in the superseded files instead: the report the phase starts from is mailed again,
    its forms name the rollback record (opened), and pbem sign reveals the fresh value."""
    camp, keys = _new(tmp_path)
    (tmp_path / "d").mkdir()
    _round(tmp_path / "d", camp, keys, 1)
    _round(tmp_path / "d", camp, keys, 2)
    run_cli("rollback", str(camp), "--to", "round-2", "--now", NOW)
    recs = Campaign(camp).records()
    superseded, rollback = recs[2], recs[3]
    assert rollback["kind"] == "rollback" and rollback["fresh_reveals"] is True
    published = {e["reveal"] for e in superseded["entropy"].values()}
    # the report round-2 starts from goes out again, its forms naming the rollback record
    form = camp / "reports" / "0001-round-1" / "forms" / "north.yaml"
    assert "\nopened: 3\n" in form.read_text()
    assert (camp / "outbox" / "report-0001-round-1.r000003-north.eml").is_file()
    hands = json.loads((camp / "states" / "000001.json").read_bytes())["hands"]  # the state round-2 starts from again
    north = _sign_form(form, keys["north"], "north", hands["N"][0], tmp_path / "north-rerun.yaml")
    south = _sign_form(camp / "reports" / "0001-round-1" / "forms" / "south.yaml", keys["south"], "south", hands["S"][0],
                       tmp_path / "south-rerun.yaml")
    # a file signed from a form of another opening of the phase is refused, naming the field
    stale = tmp_path / "stale-src.yaml"
    stale.write_text(form.read_text().replace("opened: 3", "opened: 1"))
    (tmp_path / "copy").mkdir()
    shutil.copy(keys["north"], tmp_path / "copy" / "north.key")  # (its own pending values: north's stay as they are)
    run_cli("sign", str(stale), "--key", str(tmp_path / "copy" / "north.key"), "-o", str(tmp_path / "stale.yaml"))
    out = run_cli("intake", str(camp), str(tmp_path / "stale.yaml"), "--now", NOW).output
    assert "refused:" in out and "written for phase 'round-2' as reopened by record 1" in out and "record 3" in out
    run_cli("intake", str(camp), str(north), str(south), "--now", NOW)
    run_cli("resolve", str(camp), "--now", NOW)
    rerun = Campaign(camp).records()[4]
    assert rerun["phase"] == "round-2"
    assert {s: e["status"] for s, e in rerun["entropy"].items()} == {"north": "ok", "south": "ok"}
    fresh = {e["reveal"] for e in rerun["entropy"].values()}
    assert not fresh & published  # nothing the superseded record made public
    for seat, e in rerun["entropy"].items():  # each opens the commitment of the superseded file
        assert hashlib.sha256(bytes.fromhex(e["reveal"])).hexdigest() == superseded["orders"][seat]["entropy_commit"]
    assert rerun["entropy_mix"] != superseded["entropy_mix"]
    assert _audit(camp)[0] == 0
    pub = _public_copy(camp, tmp_path)
    assert _public_audit(pub)[0] == 0
    # a GM who makes the re-run from the published reveals is caught, naming the record
    rewrite_from(pub, 4, lambda r: r.update(entropy=superseded["entropy"], entropy_mix=superseded["entropy_mix"]))
    code, out = _public_audit(pub)
    assert code == 1 and "record 4 (archive/000004.json): north's entropy does not open the commitment" in out



# -- L2: the nonce is mandatory --------------------------------------------------------------------

def test_l2_an_order_file_without_the_nonce_is_refused_saying_what_to_write(tmp_path: Path) -> None:
    """A hand-written file without 'nonce:' would count in any campaign with the same id; in a
    campaign made since the deal waits for entropy it is refused, in the seat's language, naming
    the field and the line to add. A file with it is taken."""
    keys = make_keys(tmp_path / "keys", ("north", "south"))
    camp = tmp_path / "camp"
    run_cli("new", str(camp), "--game", "mini", "--scenario", "short", "--id", "mini-1", "--lang", "north=zh-TW",
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}", "--now", NOW)
    nonce = Campaign(camp).nonce
    assert Campaign(camp).create_record()["nonce_required"] is True
    bare = signed(tmp_path, keys["north"], "mini-1", "north", "deal/commit", {"north": {}})
    from email.message import EmailMessage

    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = "north@example.org", "gm@example.org", "orders", "<bare@north.example>"
    msg.set_content("attached")
    msg.add_attachment(bare.read_bytes(), maintype="text", subtype="yaml", filename="orders.yaml")
    (tmp_path / "bare.eml").write_bytes(msg.as_bytes())
    out = run_cli("intake", str(camp), str(tmp_path / "bare.eml"), "--now", NOW).output
    assert "refused:" in out and "the field 'nonce' is missing" in out and f"Add the line 'nonce: {nonce}' below 'campaign:'" in out
    refusal = next((camp / "outbox").glob("refused-*.eml"))
    from email import message_from_bytes, policy

    text = "".join(p.get_content() for p in message_from_bytes(refusal.read_bytes(), policy=policy.default).walk()
                   if p.get_content_type() == "text/plain")
    assert "缺少欄位 'nonce'" in text and f"'nonce: {nonce}'" in text
    check = tmp_path / "check.yaml"
    check.write_text(bare.read_text())
    got = run_cli("check", str(check), "--campaign", str(camp), ok=False).output
    assert f"nonce: the field 'nonce' is missing; add the line 'nonce: {nonce}'" in got
    good = signed(tmp_path, keys["north"], "mini-1", "north", "deal/commit", {"north": {}}, seq=2, name="good", nonce=nonce)
    assert "accepted:" in run_cli("intake", str(camp), str(good), "--now", NOW).output


def test_l2_a_file_without_the_nonce_cited_by_a_record_fails_the_audit(dealt: Path, tmp_path: Path) -> None:
    """A GM who takes in a file without the nonce anyway (from another campaign with the same
    id, say) and relinks the chain is named by the audit."""
    camp = _copy(dealt, tmp_path)
    used = json.loads((camp / "archive" / "000002.json").read_bytes())["orders"]["north"]
    (tmp_path / "k").mkdir()
    shutil.copy(dealt.parent / "ef-keys" / "north.key", tmp_path / "k" / "north.key")
    other = signed(tmp_path, tmp_path / "k" / "north.key", "mini-1", "north", "deal/reveal", {"north": {}}, seq=used["seq"])
    (camp / used["file"]).write_bytes(other.read_bytes())
    rewrite_from(camp, 2, lambda rec: rec["orders"]["north"].update(sha256=hashlib.sha256(other.read_bytes()).hexdigest()))
    code, out = _audit(camp)
    assert code == 1
    assert f"{used['file']}: the order file has no nonce, but record 0 of 'mini-1' requires one; record 2 (archive/000002.json) uses it" in out


def test_m3_3_a_rollback_after_the_next_orders_came_owes_the_newest_commitments(tmp_path: Path) -> None:
    """The common case: the players had already sent their orders for the next phase when the
    GM rolled back. Those files revealed the values the superseded record committed to, and the
    GM read them: the re-run owes what the newest files committed to, which only the players
    know (the rollback record names them), and pbem sign reveals exactly that."""
    camp, keys = _new(tmp_path)
    (tmp_path / "d").mkdir()
    _round(tmp_path / "d", camp, keys, 1)
    _round(tmp_path / "d", camp, keys, 2)
    hands = _hands(camp)
    nonce = Campaign(camp).nonce
    next_files = [signed(tmp_path / "d", keys[s], "mini-1", s, "round-3", {p: {"bid": hands[p][0]}}, nonce=nonce)
                  for s, p in (("north", "N"), ("south", "S"))]
    run_cli("intake", str(camp), *map(str, next_files), "--now", NOW)
    seen = {re.search(r"entropy_reveal: \"?([0-9a-f\\\n ]+)", f.read_text()) for f in next_files}
    assert all(seen)
    run_cli("rollback", str(camp), "--to", "round-2", "--now", NOW)
    recs = Campaign(camp).records()
    rollback = recs[3]
    from pbem.core.envelope import parse_order_document

    newest = {s: parse_order_document(f.read_bytes(), f.name).entropy_commit for s, f in zip(("north", "south"), next_files, strict=True)}
    assert rollback["owed"] == newest
    read_by_gm = {parse_order_document(f.read_bytes(), f.name).entropy_reveal for f in next_files}
    hands1 = json.loads((camp / "states" / "000001.json").read_bytes())["hands"]
    docs = [_sign_form(camp / "reports" / "0001-round-1" / "forms" / f"{s}.yaml", keys[s], s, hands1[p][0], tmp_path / f"{s}-rerun.yaml")
            for s, p in (("north", "N"), ("south", "S"))]
    run_cli("intake", str(camp), *map(str, docs), "--now", NOW)
    run_cli("resolve", str(camp), "--now", NOW)
    rerun = Campaign(camp).records()[4]
    assert {s: e["status"] for s, e in rerun["entropy"].items()} == {"north": "ok", "south": "ok"}
    fresh = {e["reveal"] for e in rerun["entropy"].values()}
    assert not fresh & read_by_gm and not fresh & {e["reveal"] for e in recs[2]["entropy"].values()}
    assert _audit(camp)[0] == 0
    assert _public_audit(_public_copy(camp, tmp_path))[0] == 0
    # a GM who names owed values of its own in the rollback record is caught by the full audit
    bad = _copy(camp, tmp_path / "bad")
    rewrite_from(bad, 3, lambda r: r["owed"].update(north="ab" * 32))
    code, out = _audit(bad)
    assert code == 1 and "record 3 (archive/000003.json) says north owes a reveal of abababababababab…, a commitment no accepted file of north made" in out
