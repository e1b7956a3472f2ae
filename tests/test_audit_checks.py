"""``pbem audit`` check by check: one thing tampered with at a time, and the audit names exactly
that problem and the file it is in.

What the audit promises (README, "Pins", "Auditing in the middle of the game" and the threat
model; the docstring of :mod:`pbem.core.audit`): every record's link, every phase's chain key and
players' entropy, every order file and verdict against the record that uses it and its seat's
roster key, every accepted file no record cites against its verdict, the newest file of each seat
used, pause and resume majorities of valid requests, a rollback's owed commitments, every state
and event file, and a replay that reproduces every record bit for bit, naming the version that
made an archive another version replays otherwise.

The tampering is what a GM could do to the folders: rewrite a record and recompute the later
links (``archive_util.rewrite_from``), so only the check under test can see it. One history,
built once, holds every kind of record: the deal rounds, a superseded file, a pause and a resume,
a rollback and its re-run, a seat's key replaced, and the end record.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from archive_util import rewrite_from
from conftest import NOW, make_keys, run_cli
from orders_util import signed

import pbem
from pbem.common.canonical import canonical, digest
from pbem.common.fair import Rng, entropy_mix, hash_chain, phase_seed
from pbem.core.audit import audit
from pbem.core.campaign import Campaign, derive_keys, parse_time
from pbem.core.envelope import parse_order_document
from pbem.core.intake import intake
from pbem.core.phase import resolve
from pbem.errors import AuditError

CID = "mini-1"


def _hands(camp: Path) -> dict[str, list[int]]:
    last = sorted((camp / "states").glob("[0-9]*[0-9].json"))[-1]
    hands: dict[str, list[int]] = json.loads(last.read_bytes())["hands"]
    return hands


def _take(camp: Path, files: list[Path], resolve_after: bool = True) -> None:
    with Campaign(camp).locked() as c:
        report = intake(c, [*files], parse_time(NOW))
        assert report.accepted == len(files), [v.message for v in report.verdicts]
        if resolve_after:
            resolve(c, parse_time(NOW))


def _request(tmp: Path, key: Path, seat: str, kind: str, phase: str, seq: int) -> Path:
    src = tmp / f"{seat}-{kind}-{seq}-src.yaml"
    src.write_text(f"pbem: 1\ncampaign: {CID}\nnonce: {Campaign(tmp.parent / 'camp').nonce}\nplayer: {seat}\n"
                   f"phase: {phase}\nseq: {seq}\nrequest: {{kind: {kind}}}\n")
    out = tmp / f"{seat}-{kind}-{seq}.yaml"
    run_cli("sign", str(src), "--key", str(key), "-o", str(out))
    return out


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("checks")
    keys = make_keys(root / "keys", ("north", "south"))
    later = make_keys(root / "later", ("north",))["north"]  # the key north's seat gets later
    camp = root / "camp"
    run_cli("new", str(camp), "--game", "mini", "--scenario", "short", "--id", CID, "--autopilot-after", "1",
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}", "--now", NOW)
    nonce = Campaign(camp).nonce
    docs = root / "docs"
    docs.mkdir()

    def file(key: Path, seat: str, phase: str, orders: dict[str, Any], name: str, **kw: Any) -> Path:
        return signed(docs, key, CID, seat, phase, orders, name=name, nonce=nonce, **kw)

    def bids(phase: str, index: int = 0, north: Path | None = None, **kw: Any) -> list[Path]:
        h = _hands(camp)
        return [file(north or keys["north"], "north", phase, {"N": {"bid": h["N"][index]}}, f"north-{phase}-{index}", **kw),
                file(keys["south"], "south", phase, {"S": {"bid": h["S"][0]}}, f"south-{phase}", **kw)]

    first = file(keys["north"], "north", "deal/commit", {"north": {}}, "north-first")  # superseded: the first accepted file
    for phase in ("deal/commit", "deal/reveal"):  # records 1 and 2: the deal waits for every reveal
        _take(camp, [first] * (phase == "deal/commit") + [file(keys[s], s, phase, {s: {}}, f"{s}-{phase}") for s in ("north", "south")])
    _take(camp, [file(keys["north"], "north", "round-1", {"N": {"bid": _hands(camp)["N"][1]}}, "north-old")] + bids("round-1"))  # 3
    for kind in ("pause", "resume"):  # records 4 and 5
        _take(camp, [_request(docs, keys[s], s, kind, "round-2", {"pause": 1, "resume": 2}[kind]) for s in ("north", "south")],
              resolve_after=False)
    _take(camp, bids("round-2")[:1])  # record 6: south misses it, but the rollback undoes that (no autopilot for south)
    run_cli("rollback", str(camp), "--to", "round-2", "--now", NOW)  # record 7
    _take(camp, bids("round-2", 1, opened=7))  # record 8: the re-run
    old_north = bids("round-3", seq=5)[:1]  # accepted, then north's seat changes hands: it no longer counts
    _take(camp, old_north, resolve_after=False)
    run_cli("replace-player", str(camp), f"north=north@example.org:{later.with_suffix('.pub')}", "--now", NOW)  # record 9
    first = file(later, "north", "round-3", {"N": {"bid": _hands(camp)["N"][1]}}, "north-round-3-first")  # superseded: seq 2 follows
    _take(camp, [first, *bids("round-3", north=later)])  # records 10 and 11 (the end)
    kinds = [r["kind"] for r in Campaign(camp).records()]
    assert kinds == ["create", "phase", "phase", "phase", "pause", "resume", "phase", "rollback", "phase", "roster", "phase", "end"]
    return camp




# -- helpers -----------------------------------------------------------------------------------------

def _copy(history: Path, tmp_path: Path) -> Path:
    camp = tmp_path / "camp"
    shutil.copytree(history, camp)
    return camp


def _fails(camp: Path, public: bool = False) -> AuditError:
    with pytest.raises(AuditError) as exc:
        audit(Campaign(camp), public=public)
    return exc.value


def _named(camp: Path, where: str, message: str, public: bool = False) -> None:
    """The audit fails with exactly ``message``, naming the file ``where`` (relative to ``camp``)."""
    err = _fails(camp, public)
    assert err.message == message
    assert err.source == str(camp / where)


def _record(camp: Path, index: int) -> dict[str, Any]:
    rec: dict[str, Any] = json.loads((camp / "archive" / f"{index:06d}.json").read_bytes())
    return rec


def _key(history: Path, tmp_path: Path, seat: str) -> Path:
    """A copy of a seat's key, so signing here leaves the history's pending values alone."""
    folder = tmp_path / "k"
    folder.mkdir(exist_ok=True)
    shutil.copy(history.parent / "keys" / f"{seat}.key", folder / f"{seat}.key")
    return folder / f"{seat}.key"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_canonical(path: Path, value: Any) -> None:
    path.write_bytes(canonical(value) + b"\n")


# -- what an untouched history gives -------------------------------------------------------------

def test_an_untouched_history_passes_and_says_what_was_checked(history: Path) -> None:
    """Every kind of record audits; the report counts what it checked: 15 order files are the 11
    the phase records use (the rolled-back one's included), the superseded deal and round-1 files, north's
    round-3 file signed with the key the roster no longer holds (its seq 5 is above the seq 2
    used, but it does not count: the seat changed hands), and the new player's superseded seq 1,
    stored under a name that carries its key."""
    full = audit(Campaign(history))
    assert full.lines() == [
        "12 records: hash chain intact", "15 order files: hashes and signatures verified",
        "6 phases replayed: every state, event and commitment hash matches",
        "record 9 (archive/000009.json): roster change, north now signs with "
        + _record(history, 9)["entry"]["key"][:28] + "…"]
    public = audit(Campaign(history), public=True)
    assert public.phases == 6 and public.draws == 8 and public.order_files == 0


# -- pause and resume: a majority of valid signed requests (README threat model, M1c) ------------------

PAUSE = "archive/000004.json"
WHERE = "record 4 (archive/000004.json)"


def _request_file(tmp_path: Path, key: Path, player: str, kind: str = "pause", phase: str = "round-2", cid: str = CID) -> Path:
    src = tmp_path / f"req-{player}-{kind}-{phase}-{cid}.yaml"
    src.write_text(f"pbem: 1\ncampaign: {cid}\nplayer: {player}\nphase: {phase}\nseq: 9\nrequest: {{kind: {kind}}}\n")
    out = src.with_name(src.stem + ".signed.yaml")
    run_cli("sign", str(src), "--key", str(key), "-o", str(out))
    return out


def _cite(camp: Path, seat: str, signed_file: Path, index: int = 4) -> None:
    """Record ``index`` cites ``signed_file`` as ``seat``'s request, carried in the record and
    stored where the record says, with its hash: only what the file says can be wrong."""
    raw = signed_file.read_bytes()
    (camp / _record(camp, index)["requests"][seat]["file"]).write_bytes(raw)
    rewrite_from(camp, index, lambda r: r["requests"][seat].update(text=raw.decode(), sha256=hashlib.sha256(raw).hexdigest()))


def test_a_pause_record_that_cites_no_requests_at_all_needs_a_majority(history: Path, tmp_path: Path) -> None:
    """A pause record without its ``requests`` field is still a pause: 0 requests, no majority."""
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 4, lambda r: r.pop("requests"))
    message = f"{WHERE} is a pause with 0 signed request(s) of 2 seats: a pause needs a majority"
    _named(camp, PAUSE, message)
    _named(camp, PAUSE, message, public=True)


def test_a_pause_on_one_request_of_two_seats_is_no_majority(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 5, lambda r: r["requests"].pop("south"))
    _named(camp, "archive/000005.json",
           "record 5 (archive/000005.json) is a resume with 1 signed request(s) of 2 seats: a resume needs a majority")


def test_requests_on_a_record_of_another_kind_are_checked_too(history: Path, tmp_path: Path) -> None:
    """A record that carries requests is held to them whatever its kind: a phase record that
    cites the pause requests cites requests of the wrong kind."""
    camp = _copy(history, tmp_path)
    requests = _record(camp, 4)["requests"]
    rewrite_from(camp, 6, lambda r: r.update(requests=requests))
    _named(camp, requests["north"]["file"],
           "record 6 (archive/000006.json) counts this file as north's phase request for round-2 in 'mini-1', "
           "but it is north's pause request for round-2 in 'mini-1'")


def test_a_request_carried_in_the_record_must_match_its_hash(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 4, lambda r: r["requests"]["north"].update(text=r["requests"]["north"]["text"].replace("seq: 1", "seq: 2")))
    _named(camp, PAUSE, f"{WHERE}: the pause request of north it carries does not match its hash", public=True)
    _named(camp, PAUSE, f"{WHERE}: the pause request of north it carries does not match its hash")


def test_a_request_not_carried_is_checked_from_its_file_by_the_full_audit_only(history: Path, tmp_path: Path) -> None:
    """A public copy has no orders/ folder: a request the record does not carry cannot be checked
    there, and the public audit says so; the full audit checks the file the record cites."""
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 4, lambda r: r["requests"]["north"].pop("text"))
    _named(camp, PAUSE, f"{WHERE} does not carry north's signed request; only the full audit can check it", public=True)
    assert audit(Campaign(camp)).replay
    cited = camp / _record(camp, 4)["requests"]["north"]["file"]
    cited.write_bytes(cited.read_bytes().replace(b"seq: 1", b"seq: 2"))
    _named(camp, str(cited.relative_to(camp)),
           "the pause request of north does not match the hash in record 4 (archive/000004.json); one of the two was changed")
    cited.unlink()
    _named(camp, str(cited.relative_to(camp)), "the pause request of north cited by record 4 is missing")


def test_a_request_of_a_seat_not_on_the_roster_is_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 4, lambda r: r["requests"].update(mallory=r["requests"].pop("south")))
    _named(camp, _record(camp, 4)["requests"]["mallory"]["file"],
           f"{WHERE} cites a request of 'mallory', who is not on the roster")


def test_a_request_signed_with_another_seats_key_does_not_verify(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    _cite(camp, "north", _request_file(tmp_path, _key(history, tmp_path, "south"), "north"))
    err = _fails(camp)
    assert err.message.startswith("the request does not verify: ")
    assert err.source == str(camp / _record(camp, 4)["requests"]["north"]["file"])


@pytest.mark.parametrize(("what", "args", "it_is"), [
    ("player", {"player": "south"}, "south's pause request for round-2 in 'mini-1'"),
    ("kind", {"kind": "resume"}, "north's resume request for round-2 in 'mini-1'"),
    ("phase", {"phase": "round-1"}, "north's pause request for round-1 in 'mini-1'"),
    ("campaign", {"cid": "mini-2"}, "north's pause request for round-2 in 'mini-2'"),
])
def test_a_request_must_be_the_seats_of_the_records_kind_phase_and_campaign(history: Path, tmp_path: Path, what: str,
                                                                            args: dict[str, str], it_is: str) -> None:
    """Signed with north's own key, so it verifies: only what it says is wrong."""
    camp = _copy(history, tmp_path)
    _cite(camp, "north", _request_file(tmp_path, _key(history, tmp_path, "north"), **{"player": "north", **args}))
    _named(camp, _record(camp, 4)["requests"]["north"]["file"],
           f"{WHERE} counts this file as north's pause request for round-2 in 'mini-1', but it is {it_is}")


# -- the order files a record uses: hash, verdict, signature, campaign, seat and phase -----------------

ROUND1 = "archive/000003.json"
USED = "orders/0003-round-1/north.000002.yaml"  # north's newest round-1 file, which record 3 uses
OLDER = "orders/0003-round-1/north.000001.yaml"  # the one it superseded


def _use(camp: Path, signed_file: Path, seat: str = "north", index: int = 3) -> str:
    """Record ``index`` uses ``signed_file`` as ``seat``'s orders, in place of the file it used,
    its hash and verdict hash fixed: only what the file says can be wrong. Returns its path."""
    used = _record(camp, index)["orders"][seat]
    path = camp / used["file"]
    path.write_bytes(signed_file.read_bytes())
    verdict = path.with_name(path.name + ".verdict.json")
    data = json.loads(verdict.read_bytes())
    data.update(raw_sha256=_sha(path))
    _write_canonical(verdict, data)
    rewrite_from(camp, index, lambda r: r["orders"][seat].update(sha256=_sha(path), verdict_sha256=_sha(verdict)))
    return str(used["file"])


def _round1_file(history: Path, tmp_path: Path, key_of: str = "north", *, player: str = "north", phase: str = "round-1",
                 cid: str = CID, nonce: str | None = "keep", seq: int = 2) -> Path:
    return signed(tmp_path, _key(history, tmp_path, key_of), cid, player, phase, {"N": {"bid": 1}}, seq=seq,
                  nonce=Campaign(history).nonce if nonce == "keep" else nonce)


def test_a_used_order_file_without_its_verdict_is_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    (camp / f"{USED}.verdict.json").unlink()
    _named(camp, f"{USED}.verdict.json",
           "the verdict of north's order file does not match record 3 (archive/000003.json); one of the two was changed")


def test_a_used_order_file_signed_with_another_key_does_not_verify(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    name = _use(camp, _round1_file(history, tmp_path, "south"))
    err = _fails(camp)
    assert err.message.startswith("the order file does not verify: ") and err.source == str(camp / name)


def test_a_used_order_file_without_the_nonce_the_campaign_requires_is_named(history: Path, tmp_path: Path) -> None:
    """README: an order file without a ``nonce`` line ... the audit fails on one a record cites."""
    camp = _copy(history, tmp_path)
    name = _use(camp, _round1_file(history, tmp_path, nonce=None))
    _named(camp, name, "the order file has no nonce, but record 0 of 'mini-1' requires one; record 3 (archive/000003.json) uses it")


@pytest.mark.parametrize(("what", "kwargs", "named"), [
    ("another campaign", {"cid": "mini-2"}, "'mini-2'"),
    ("another campaign with the same id", {"nonce": "0" * 48}, f"'{CID}' (nonce {'0' * 40})"),  # (its first 40 characters)
])
def test_a_used_order_file_of_another_campaign_is_named(history: Path, tmp_path: Path, what: str, kwargs: dict[str, Any],
                                                        named: str) -> None:
    """README: a signed file never counts in another campaign, not even one with the same id."""
    camp = _copy(history, tmp_path)
    name = _use(camp, _round1_file(history, tmp_path, **kwargs))
    _named(camp, name, f"the order file is for campaign {named}, but record 3 (archive/000003.json) uses it in '{CID}'")


@pytest.mark.parametrize(("kwargs", "it_is"), [({"player": "south"}, "south's seq 2 for round-1"), ({"phase": "round-2"}, "north's seq 2 for round-2"),
                                               ({"seq": 3}, "north's seq 3 for round-1")])
def test_a_used_order_file_of_another_seat_phase_or_seq_is_named(history: Path, tmp_path: Path, kwargs: dict[str, Any], it_is: str) -> None:
    """Signed with north's key, so it verifies: only its seat, phase or seq is wrong."""
    camp = _copy(history, tmp_path)
    name = _use(camp, _round1_file(history, tmp_path, **kwargs))
    _named(camp, name, f"the order file is {it_is}, but record 3 uses it as north's seq 2 for round-1")


# -- each phase uses each seat's newest accepted file (README threat model, M1d) -----------------------

def _cite_older(rec: dict[str, Any], camp: Path) -> None:
    raw = (camp / OLDER).read_bytes()
    rec["orders"]["north"].update(file=OLDER, seq=1, sha256=_sha(camp / OLDER), verdict_sha256=_sha(camp / f"{OLDER}.verdict.json"),
                                  entropy_commit=parse_order_document(raw, OLDER).entropy_commit)


def test_a_phase_resolved_with_an_older_file_than_the_newest_accepted_is_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 3, lambda r: _cite_older(r, camp))
    _named(camp, ROUND1, f"record 3 resolved round-1 with seq 1 for north, but {USED} (seq 2) was accepted before it: "
                         "the newest file must count")


def test_a_phase_resolved_with_no_file_while_one_was_accepted_is_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 3, lambda r: r["orders"].pop("north"))
    _named(camp, ROUND1, f"record 3 resolved round-1 with no file for north, but {OLDER} (seq 1) was accepted before it: "
                         "the newest file must count")


def test_a_newer_file_that_is_damaged_is_named_by_the_order_folder_check(history: Path, tmp_path: Path) -> None:
    """The newest-file check cannot read a damaged file's key; the check of the order folders
    names the file."""
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 3, lambda r: _cite_older(r, camp))
    (camp / USED).write_bytes(b"pbem: 1\n")
    _named(camp, USED, "the order file does not match the hash in its verdict orders/0003-round-1/north.000002.yaml.verdict.json; "
                       "one of the two was changed")


def test_a_file_received_after_the_phase_resolved_is_no_newer_file(history: Path, tmp_path: Path) -> None:
    """Only files received before the phase resolved count against it: a seq 3 of north's for
    round 1 that arrived after record 3 (its verdict says when) leaves the audit passing."""
    camp = _copy(history, tmp_path)
    late = signed(tmp_path, _key(history, tmp_path, "north"), CID, "north", "round-1", {"N": {"bid": 1}}, seq=3, nonce=Campaign(camp).nonce)
    path = camp / "orders" / "0003-round-1" / "north.000003.yaml"
    path.write_bytes(late.read_bytes())
    verdict = {**json.loads((camp / f"{USED}.verdict.json").read_bytes()), "file": path.name, "seq": 3, "raw_sha256": _sha(path),
               "body_sha256": parse_order_document(late.read_bytes(), path.name).body_hash, "received_at": "2026-12-02T12:00:00Z"}
    _write_canonical(path.with_name(path.name + ".verdict.json"), verdict)
    assert audit(Campaign(camp)).order_files == 16
    _write_canonical(path.with_name(path.name + ".verdict.json"), {**verdict, "received_at": _record(camp, 3)["resolved_at"]})
    _named(camp, ROUND1, "record 3 resolved round-1 with seq 2 for north, but orders/0003-round-1/north.000003.yaml (seq 3) "
                         "was accepted before it: the newest file must count")


def test_a_newer_file_that_does_not_verify_is_named_not_the_record(history: Path, tmp_path: Path) -> None:
    """A seq 3 in north's name, changed after it was signed, planted before record 3 resolved:
    not a file north sent, so it is no newer file of north's; the order-folder check names it."""
    camp = _copy(history, tmp_path)
    good = signed(tmp_path, _key(history, tmp_path, "north"), CID, "north", "round-1", {"N": {"bid": 1}}, seq=3, nonce=Campaign(camp).nonce)
    path = camp / "orders" / "0003-round-1" / "north.000003.yaml"
    path.write_bytes(good.read_bytes().replace(b"bid: 1", b"bid: 2", 1))
    verdict = {**json.loads((camp / f"{USED}.verdict.json").read_bytes()), "file": path.name, "seq": 3, "raw_sha256": _sha(path),
               "body_sha256": parse_order_document(path.read_bytes(), path.name).body_hash}
    _write_canonical(path.with_name(path.name + ".verdict.json"), verdict)
    err = _fails(camp)
    assert err.source == str(path)
    assert err.message.startswith("the accepted order file does not verify: the signature does not match the content")


# -- accepted files no record uses still match their verdicts ------------------------------------------

VERDICT = f"{OLDER}.verdict.json"


def _verdict(camp: Path, **fields: Any) -> None:
    path = camp / VERDICT
    _write_canonical(path, {k: v for k, v in {**json.loads(path.read_bytes()), **fields}.items() if v is not None})


NOT_INTAKES = "the verdict is not what intake wrote (not canonical JSON, or not for this order file)"


@pytest.mark.parametrize("change", [
    lambda p: p.write_bytes(p.read_bytes().replace(b":", b": ", 1)),  # not canonical
    lambda p: p.write_bytes(b"[]\n"),  # no verdict object
    lambda p: p.write_bytes(b""),  # empty
    lambda p: _verdict(p.parents[2], file="north.000002.yaml"),  # for another file
    lambda p: _verdict(p.parents[2], seat="south"),  # of another seat than its file's name
    lambda p: _verdict(p.parents[2], seq=2),  # of another seq
    lambda p: _verdict(p.parents[2], seq=None),  # of no seq: seq 0
], ids=["not canonical", "a list", "empty", "another file", "another seat", "another seq", "no seq"])
def test_a_verdict_not_as_intake_wrote_it_is_named(history: Path, tmp_path: Path, change: Any) -> None:
    camp = _copy(history, tmp_path)
    change(camp / VERDICT)
    _named(camp, VERDICT, NOT_INTAKES)


def test_a_file_stored_under_another_keys_name_is_named(history: Path, tmp_path: Path) -> None:
    """Intake names a file signed with a key replace-player gave by seat, seq and that key: the
    new player's seq 1 under the name of the first player's seq 1 is not what intake wrote."""
    camp = _copy(history, tmp_path)
    folder = camp / "orders" / "0005-round-3.r000007"
    [tagged] = [p for p in folder.glob("north.000001.*.yaml")]
    verdict = json.loads((folder / f"{tagged.name}.verdict.json").read_bytes())
    tagged.rename(folder / "north.000001.yaml")
    (folder / f"{tagged.name}.verdict.json").unlink()
    _write_canonical(folder / "north.000001.yaml.verdict.json", {**verdict, "file": "north.000001.yaml"})
    _named(camp, "orders/0005-round-3.r000007/north.000001.yaml.verdict.json", NOT_INTAKES)


def test_a_superseded_file_missing_changed_or_unreadable_is_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    path = camp / OLDER
    path.write_bytes(path.read_bytes() + b"# more\n")
    _named(camp, OLDER, f"the order file does not match the hash in its verdict {VERDICT}; one of the two was changed")
    path.write_bytes(b"not: [yaml\n")
    _verdict(camp, raw_sha256=_sha(path))
    err = _fails(camp)
    assert err.message.startswith("the accepted order file does not parse: ") and err.source == str(path)
    path.unlink()
    _named(camp, OLDER, "the accepted order file is missing (its verdict north.000001.yaml.verdict.json is there)")


def _plant(camp: Path, signed_file: Path, where: str = OLDER) -> str:
    """``signed_file`` stored where intake put an accepted file no record uses (``where``), with
    a verdict that matches it: as a GM who forges a player's file would leave it."""
    path = camp / where
    path.write_bytes(signed_file.read_bytes())
    doc = parse_order_document(path.read_bytes(), str(path))
    verdict = path.with_name(path.name + ".verdict.json")
    if not verdict.is_file():
        _write_canonical(verdict, {**json.loads((camp / VERDICT).read_bytes()), "file": path.name, "seat": doc.player})
    _write_canonical(verdict, {**json.loads(verdict.read_bytes()), "raw_sha256": _sha(path), "body_sha256": doc.body_hash})
    return doc.entropy_commit or ""


def _stranger(tmp_path: Path, seat: str = "north") -> Path:
    """A key of the seat's name that no player of the campaign ever held."""
    return make_keys(tmp_path / "stranger", (seat,))[seat]


def _forged(history: Path, tmp_path: Path) -> tuple[Path, str]:
    """North's round-1 seq 1 signed with a stranger's key, and where intake would have put a file
    signed with that key (named by its key, as for a key replace-player gives)."""
    forged = signed(tmp_path, _stranger(tmp_path), CID, "north", "round-1", {"N": {"bid": 1}}, seq=1, nonce=Campaign(history).nonce)
    key_id = parse_order_document(forged.read_bytes(), str(forged)).key_id or ""
    return forged, f"orders/0003-round-1/north.000001.{key_id.rpartition(':')[2][:12]}.yaml"


def test_a_superseded_file_signed_by_a_key_its_seat_never_held_does_not_verify(history: Path, tmp_path: Path) -> None:
    """README: every order file's signature is checked against its seat's key, the files no
    record uses too (the report says "hashes and signatures verified" of all of them): a GM
    cannot leave a file in a player's name that the player never signed."""
    camp = _copy(history, tmp_path)
    forged, where = _forged(history, tmp_path)
    _plant(camp, forged, where)
    key_id = parse_order_document(forged.read_bytes(), str(forged)).key_id or ""
    _named(camp, where, f"the accepted order file does not verify: signed with a key 'north' never held in this campaign ({key_id[:20]}…)")


def test_a_superseded_file_changed_after_it_was_signed_does_not_verify(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    good = _round1_file(history, tmp_path, seq=1)
    changed = tmp_path / "changed.yaml"
    changed.write_bytes(good.read_bytes().replace(b"bid: 1", b"bid: 2", 1))
    _plant(camp, changed)
    err = _fails(camp)
    assert err.source == str(camp / OLDER)
    assert err.message.startswith("the accepted order file does not verify: the signature does not match the content")


def test_an_accepted_file_of_a_seat_not_on_the_roster_is_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    west = "orders/0003-round-1/west.000001.yaml"
    _plant(camp, signed(tmp_path, _stranger(tmp_path, "west"), CID, "west", "round-1", {"W": {"bid": 1}}, seq=1,
                        nonce=Campaign(history).nonce), west)
    _named(camp, west, "the accepted order file is of 'west', who is not on the roster")


@pytest.mark.parametrize(("kwargs", "named"), [({"cid": "other-1"}, "'other-1'"), ({"nonce": "0" * 32}, f"'{CID}' (nonce {'0' * 32})")],
                         ids=["campaign", "nonce"])
def test_a_superseded_file_of_another_campaign_is_named(history: Path, tmp_path: Path, kwargs: dict[str, Any], named: str) -> None:
    camp = _copy(history, tmp_path)
    _plant(camp, _round1_file(history, tmp_path, seq=1, **kwargs))
    _named(camp, OLDER, f"the accepted order file is for campaign {named}, not '{CID}'")


def test_a_superseded_file_without_the_nonce_the_campaign_requires_is_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    _plant(camp, _round1_file(history, tmp_path, seq=1, nonce=None))
    _named(camp, OLDER, f"the accepted order file has no nonce, but record 0 of '{CID}' requires one")


def test_a_rollback_cannot_owe_a_commitment_of_a_file_its_seat_never_signed(history: Path, tmp_path: Path) -> None:
    """A GM who plants a file in north's name makes the commitment and knows its value: owing
    it would let the GM choose north's share of the re-run's entropy. Only a file that verifies
    against a key north held counts."""
    camp = _copy(history, tmp_path)
    made = _plant(camp, *_forged(history, tmp_path))
    rewrite_from(camp, 7, lambda r: r["owed"].update(north=made))
    _named(camp, "archive/000007.json", f"record 7 (archive/000007.json) says north owes a reveal of {made[:16]}…, "
                                        "a commitment no accepted file of north made")


def test_a_verdicts_hash_of_the_signed_content_must_match_its_file(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    _verdict(camp, body_sha256="0" * 64)
    _named(camp, VERDICT, "the verdict's hash of the signed content does not match its order file")


def test_the_archive_head_a_verdict_names_is_a_record_of_the_archive(history: Path, tmp_path: Path) -> None:
    """The receipt printed the pin of the archive head the file was accepted on; the verdict
    keeps it, and it must be a record there (one written before receipts carried pins has none)."""
    camp = _copy(history, tmp_path)
    _verdict(camp, archive_head="yesterday")
    _named(camp, VERDICT, "the verdict's archive head is not a pin ('record N sha256:HASH')")
    for head in (f"record 2 sha256:{'0' * 64}", f"record 40 sha256:{'0' * 64}"):
        _verdict(camp, archive_head=head)
        _named(camp, VERDICT, f"the verdict says the file was accepted on {head}, which is not a record of this archive")
    _verdict(camp, archive_head=None)
    assert audit(Campaign(camp)).order_files == 15


# -- the public chain key of every phase (README "Public chance") ---------------------------------------

def _as_before_chain_index(camp: Path, keys: dict[int, int] | None = None) -> None:
    """The phase records as pbem wrote them before every phase record took a fresh chain key:
    no ``chain_index``, no listed draws, and the key ``k[phase number]``, which a rollback's re-run
    reused. ``keys`` gives another key number for some records."""
    c = Campaign(camp)
    create = c.create_record()
    seed = bytes.fromhex((camp / "secret" / "seed").read_text())
    chain = hash_chain(derive_keys(seed)["public"], create["chain_length"])
    for rec in c.records():
        if rec["kind"] == "phase":
            key = chain[(keys or {}).get(rec["index"], rec["phase_number"])].hex()
            rewrite_from(camp, rec["index"], partial(_old_key, key=key), repin=False)


def _old_key(rec: dict[str, Any], key: str) -> None:
    for name in ("chain_index", "public_dice", "public_draws"):
        rec.pop(name, None)
    rec["public_key"] = key


def test_records_from_before_chain_indexes_check_their_keys_by_phase_number(history: Path, tmp_path: Path) -> None:
    """Each key is the next of the chain; the first phase's and a rollback's re-run's are
    ``k[phase number]`` (the re-run of phase 4 reuses ``k[4]``, as pbem then did)."""
    camp = tmp_path / "pub"
    shutil.copytree(history / "archive", camp / "archive")
    shutil.copytree(history / "secret", camp / "secret")
    _as_before_chain_index(camp)
    report = audit(Campaign(camp), public=True)
    assert report.phases == 6 and report.draws == 0
    for index, key in ((8, 5), (1, 2), (3, 2), (10, 6)):
        bad = tmp_path / f"bad-{index}"
        shutil.copytree(camp, bad)
        _as_before_chain_index(bad, {index: key})
        phase_number = _record(bad, index)["phase_number"]
        _named(bad, f"archive/{index:06d}.json", f"the public key of phase {phase_number} is not the next key of the hash chain", public=True)
    # the first phase follows the anchor whatever phase number it claims: a first record that
    # says phase 2 and shows k[2] is caught there, not at the record after it
    key2 = _record(camp, 2)["public_key"]
    rewrite_from(camp, 1, lambda r: r.update(phase_number=2, public_key=key2), repin=False)
    _named(camp, "archive/000001.json", "the public key of phase 2 is not the next key of the hash chain", public=True)


def test_before_chain_indexes_a_re_run_after_a_rollback_and_a_pause_reuses_its_key(history: Path, tmp_path: Path) -> None:
    """The players paused the reopened phase before it ran again: the re-run still follows the
    rollback (records in between that set no state do not change that)."""
    camp = tmp_path / "pub"
    shutil.copytree(history / "archive", camp / "archive")
    shutil.copytree(history / "secret", camp / "secret")
    _as_before_chain_index(camp)
    archive = camp / "archive"
    for i in range(11, 7, -1):  # records 8.. move up one to make room
        _write_canonical(archive / f"{i + 1:06d}.json", {**_record(camp, i), "index": i + 1})
    pause = _record(camp, 4)
    _write_canonical(archive / "000008.json", {**pause, "index": 8})
    rewrite_from(camp, 8, lambda r: None, repin=False)
    assert [r["kind"] for r in Campaign(camp).records()[7:10]] == ["rollback", "pause", "phase"]
    assert audit(Campaign(camp), public=True).phases == 6


# -- the players' entropy of every phase (README "Player entropy", "Auditing in the middle of the game") --

def _remixed(rec: dict[str, Any], entropy: dict[str, Any]) -> None:
    """The record with other entropy, its mix and its public draws recomputed to agree."""
    rec["entropy"] = entropy
    mix = entropy_mix({seat: e["used"] for seat, e in entropy.items()})
    rec["entropy_mix"] = mix.hex()
    rng = Rng(phase_seed("public", bytes.fromhex(rec["public_key"]), rec["phase"], mix))
    rec["public_dice"] = [[n, rng.below(n)] for n, _ in rec["public_dice"]]


def test_a_seat_whose_file_counts_cannot_be_left_out_of_the_mix(history: Path, tmp_path: Path) -> None:
    """A GM who drops one seat's reveal from the mix (and lists the draws the new mix gives)
    would choose between two sets of dice; the record uses south's file and south had a
    commitment pending, so its value must be in the mix. The public audit names the record."""
    camp = _copy(history, tmp_path)
    north = _record(camp, 3)["entropy"]["north"]
    rewrite_from(camp, 3, lambda r: _remixed(r, {"north": north}))
    message = (f"record 3 (archive/000003.json) leaves south out of the players' entropy, but south's commitment "
               f"{_record(camp, 2)['orders']['south']['entropy_commit'][:16]}… was pending and the record counts its file")
    _named(camp, ROUND1, message, public=True)
    _named(camp, ROUND1, message)


def test_a_seat_counted_missing_cannot_be_left_out_of_the_mix(history: Path, tmp_path: Path) -> None:
    """South sent nothing for round 2 (record 6): its pending commitment is mixed in instead."""
    camp = _copy(history, tmp_path)
    rec = _record(camp, 6)
    assert rec["missing_seats"] == ["south"] and rec["entropy"]["south"]["status"] == "no orders"
    rewrite_from(camp, 6, lambda r: _remixed(r, {"north": rec["entropy"]["north"]}))
    _named(camp, "archive/000006.json", f"record 6 (archive/000006.json) leaves south out of the players' entropy, but south's "
                                        f"commitment {rec['entropy']['south']['used'][:16]}… was pending and the record counts it missing",
           public=True)


def test_entropy_that_does_not_open_its_commitment_is_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    rec = _record(camp, 10)
    south = {**rec["entropy"]["south"], "reveal": "00" * 32, "used": "00" * 32}
    rewrite_from(camp, 10, lambda r: _remixed(r, {**r["entropy"], "south": south}))
    _named(camp, "archive/000010.json", f"record 10 (archive/000010.json): south's entropy does not open the commitment "
                                        f"{_record(camp, 8)['orders']['south']['entropy_commit'][:16]}… of an earlier record as "
                                        "the record says (ok)", public=True)


def test_a_reveal_that_opens_its_commitment_must_be_the_value_mixed_in(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    south = {**_record(camp, 10)["entropy"]["south"], "used": "00" * 32}
    rewrite_from(camp, 10, lambda r: _remixed(r, {**r["entropy"], "south": south}))
    err = _fails(camp, public=True)
    assert err.message.startswith("record 10 (archive/000010.json): south's entropy does not open the commitment ")


def test_entropy_of_a_seat_with_no_commitment_pending_is_named(history: Path, tmp_path: Path) -> None:
    """Nothing is pending before the first files (deal/commit) commit to values."""
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 1, lambda r: _remixed(r, {"north": {"reveal": "00" * 32, "used": "00" * 32, "status": "ok"}}))
    _named(camp, "archive/000001.json", "record 1 (archive/000001.json) mixes entropy of north, who had no commitment pending", public=True)

# -- the replay reproduces every record (README: "any copy of the archive then replays bit for bit") -----

def _replay_names(camp: Path, where: str, message: str) -> None:
    """Only the replay sees the change: the public audit of the same records passes."""
    assert audit(Campaign(camp), public=True).phases == 6
    _named(camp, where, message)


@pytest.mark.parametrize(("field", "value", "name"), [
    ("defaults", ["N"], "defaults"), ("missing_seats", ["south"], "missing seats"), ("autopilot", ["north"], "autopilot"),
    ("commitments", {"deck": "0" * 64}, "commitments"),
])
def test_a_phase_record_the_replay_does_not_reproduce_is_named(history: Path, tmp_path: Path, field: str, value: Any, name: str) -> None:
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 3, lambda r: r.update({field: value}))
    _replay_names(camp, ROUND1, f"replaying phase round-1 gives a different {name} than the record")


@pytest.mark.parametrize(("file", "field", "name"), [("000003.json", "state_hash", "state hash"),
                                                      ("000003.events.json", "events_hash", "events hash")])
def test_a_state_or_events_file_rewritten_with_its_record_is_named_by_the_replay(history: Path, tmp_path: Path, file: str, field: str,
                                                                                 name: str) -> None:
    """The snapshot and its record agree, but not with what the rules make of the orders."""
    camp = _copy(history, tmp_path)
    path = camp / "states" / file
    value = json.loads(path.read_bytes())
    value = {**value, "score": {"N": 9, "S": 9}} if isinstance(value, dict) else [*value, {"type": "point", "power": "N"}]
    _write_canonical(path, value)
    rewrite_from(camp, 3, lambda r: r.update({field: digest(value)}))
    _replay_names(camp, ROUND1, f"replaying phase round-1 gives a different {name} than the record")


def test_orders_set_aside_that_the_replay_does_not_set_aside_are_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 3, lambda r: r.update(voided={"N": "the rules refused them"}))
    _replay_names(camp, ROUND1, "replaying phase round-1 sets aside other orders than the record says")


def test_public_draws_the_replay_does_not_make_are_named(history: Path, tmp_path: Path) -> None:
    """A record that lists one draw fewer: each listed draw is right (the public audit recomputes
    them), but the replay makes one more."""
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 3, lambda r: r.update(public_dice=r["public_dice"][:-1], public_draws=r["public_draws"] - 1))
    _replay_names(camp, ROUND1, "replaying phase round-1 gives a different count of public draws than the record")


def test_an_order_entry_that_does_not_match_its_file_is_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 10, lambda r: r["orders"]["south"].update(entropy_commit="0" * 64))
    _replay_names(camp, "archive/000010.json",
                  "the record's entry for south's order file (seq, entropy commitment) does not match the file")


def test_a_record_of_another_phase_than_the_game_is_in_is_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 10, lambda r: r.update(phase="round-9", orders={}, public_dice=None))  # (the draws depend on the phase)
    _replay_names(camp, "archive/000010.json", "replay expected phase round-3, the record says round-9")


def test_an_end_record_with_another_result_is_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 11, lambda r: r.update(result={"winner": "nobody"}))
    _replay_names(camp, "archive/000011.json", "the end record's result is not the result of the replayed game")


def test_a_created_state_the_rules_do_not_make_is_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    state = {**json.loads((camp / "states" / "000000.json").read_bytes()), "extra": 1}
    _write_canonical(camp / "states" / "000000.json", state)
    rewrite_from(camp, 0, lambda r: r.update(state_hash=digest(state)))
    _replay_names(camp, "archive/000000.json", "replaying the game's creation does not give the state hash of record 0")


# -- an archive made by another version (README: "made by pbem version X; this is Y") -------------------

def test_a_replay_that_differs_names_the_version_that_made_the_archive(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 0, lambda r: r.update(pbem_version="0.0.9"))
    assert audit(Campaign(camp)).lines()[-1] == f"the archive was made by pbem version 0.0.9; this is {pbem.__version__}, and its replay matches"
    rewrite_from(camp, 3, lambda r: r.update(defaults=["N"]))
    _named(camp, ROUND1, f"made by pbem version 0.0.9; this is {pbem.__version__}, whose replay differs from it "
                         "(replaying phase round-1 gives a different defaults than the record): audit it with pbem 0.0.9")


@pytest.mark.parametrize("version", [None, pbem.__version__])
def test_a_replay_that_differs_in_this_version_or_an_unnamed_one_names_the_hash_only(history: Path, tmp_path: Path,
                                                                                     version: str | None) -> None:
    camp = _copy(history, tmp_path)
    def made_by(rec: dict[str, Any]) -> None:
        rec["pbem_version"] = version
        if version is None:
            del rec["pbem_version"]

    rewrite_from(camp, 0, made_by)
    assert not any("made by" in line for line in audit(Campaign(camp)).lines())
    rewrite_from(camp, 3, lambda r: r.update(defaults=["N"]))
    _named(camp, ROUND1, "replaying phase round-1 gives a different defaults than the record")


# -- a rollback's owed commitments, and the seed -------------------------------------------------------

def test_a_rollback_that_owes_a_commitment_no_file_made_is_named(history: Path, tmp_path: Path) -> None:
    """README: each seat owes the commitment of the newest file the campaign accepted from it
    (``owed``; the full audit checks that each is one an accepted file made)."""
    camp = _copy(history, tmp_path)
    made = _record(camp, 7)["owed"]["south"]
    rewrite_from(camp, 7, lambda r: r["owed"].update(north=made))
    _named(camp, "archive/000007.json", f"record 7 (archive/000007.json) says north owes a reveal of {made[:16]}…, "
                                        "a commitment no accepted file of north made")


def test_a_rollback_checks_its_owed_commitments_past_a_missing_file(history: Path, tmp_path: Path) -> None:
    """A file gone from orders/ (here the first one accepted, which no record uses) is named by
    the order-folder check, not taken for a commitment when the rollback's are checked."""
    camp = _copy(history, tmp_path)
    first = "orders/0001-deal_commit/north.000001.yaml"
    assert all(u["file"] != first for u in _record(camp, 1)["orders"].values())
    (camp / first).unlink()
    _named(camp, first, "the accepted order file is missing (its verdict north.000001.yaml.verdict.json is there)")


def test_a_seed_file_or_revealed_seed_not_as_pbem_wrote_it_is_named(history: Path, tmp_path: Path) -> None:
    camp = _copy(history, tmp_path)
    seed = camp / "secret" / "seed"
    good = seed.read_bytes()
    seed.write_bytes(good.upper())
    _named(camp, "secret/seed", "the secret seed file is not what pbem wrote (lowercase hex digits and a newline)")
    seed.write_bytes(good[:-3] + (b"0" if good[-3:-2] != b"0" else b"1") + good[-2:])
    _named(camp, "secret/seed", "the secret seed differs from the seed revealed in 000011.json")
    seed.write_bytes(good)
    rewrite_from(camp, 11, lambda r: r.update(seed="not hex"))
    _named(camp, "archive/000011.json", "the seed revealed in the end record is not hex")


def test_a_phase_record_that_drops_its_list_of_draws_is_named_by_the_replay(history: Path, tmp_path: Path) -> None:
    """Without ``public_dice`` a record reads as one from before the draws were listed (the
    public audit recomputes none), but a record with a chain index lists them."""
    camp = _copy(history, tmp_path)
    rewrite_from(camp, 3, lambda r: r.pop("public_dice"))
    _replay_names(camp, ROUND1, "replaying phase round-1 gives a different count of public draws than the record")


def test_a_seed_that_does_not_give_the_anchor_of_record_0_is_named(history: Path, tmp_path: Path) -> None:
    """Before the first phase nothing else ties the anchor to the seed: the deal waits for the
    players' entropy, so record 0's state does not depend on it."""
    camp = _copy(history, tmp_path)
    for path in [*(camp / "archive").glob("*.json"), *(camp / "states").glob("*.json")]:
        if path.name not in ("000000.json",):
            path.unlink()
    shutil.rmtree(camp / "orders")
    assert audit(Campaign(camp)).replay
    rewrite_from(camp, 0, lambda r: r.update(public_anchor="00" * 32))
    _named(camp, "secret/seed", "the secret seed does not produce the public hash-chain anchor of record 0")


# -- the autopilot in the replay: only missed deadlines in the records in force count ---------------------

def _autopilot_campaign(root: Path, after: int) -> Path:
    """South misses round 1 and round 2; round 2 is rolled back and resolved again, south missing again."""
    keys = make_keys(root / "keys", ("north", "south"))
    camp = root / "camp"
    run_cli("new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short", "--id", CID, "--autopilot-after", str(after),
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}", "--now", NOW)
    nonce = Campaign(camp).nonce
    for rnd, opened in ((1, None), (2, None), (2, 3)):
        if opened:
            run_cli("rollback", str(camp), "--to", "round-2", "--now", NOW)
        north = signed(root, keys["north"], CID, "north", f"round-{rnd}", {"N": {"bid": _hands(camp)["N"][0]}}, nonce=nonce, opened=opened,
                       name=f"north-{opened}")
        _take(camp, [north])
    return camp


@pytest.fixture(scope="module")
def autopilot(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    return {after: _autopilot_campaign(tmp_path_factory.mktemp(f"autopilot{after}"), after) for after in (0, 1)}


def test_the_replay_counts_missed_deadlines_up_to_the_rollback_target(autopilot: dict[int, Path]) -> None:
    """After one missed deadline south is played by the bot: in round 2, and again in its re-run,
    for the miss of round 1 (record 1, the rollback's target) still counts."""
    camp = autopilot[1]
    recs = Campaign(camp).records()
    assert [(r["kind"], r.get("autopilot")) for r in recs[1:]] == [("phase", []), ("phase", ["S"]), ("rollback", None), ("phase", ["S"])]
    assert recs[3]["to"] == 1
    assert audit(Campaign(camp)).replayed == 3


def test_a_record_0_without_autopilot_after_replays_without_the_autopilot(autopilot: dict[int, Path], tmp_path: Path) -> None:
    """As resolving does: a campaign whose record 0 does not name ``autopilot_after`` never uses it."""
    camp = _copy(autopilot[0], tmp_path)
    assert all(r.get("autopilot", []) == [] for r in Campaign(camp).records()) and _record(camp, 2)["missing_seats"] == ["south"]
    rewrite_from(camp, 0, lambda r: r.pop("autopilot_after"))
    assert audit(Campaign(camp)).replayed == 3
