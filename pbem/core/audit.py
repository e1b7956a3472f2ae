"""``pbem audit``: re-check a whole campaign from its archive.

In order: every record's bytes and its link to the previous record; the public hash-chain key of
every phase; every archived order file and verdict against the hashes in the records, and every
signature against the roster key of its seat; every state snapshot and event file against its
record; and, when the secret seed is at hand (the GM's folder, or any copy once the end record
has revealed it), a full replay of the game from record 0 that must reproduce every state hash,
event hash and commitment bit for bit. The first thing that does not match is named and the
audit stops there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem import __version__
from pbem.common.canonical import canonical, digest, sha256_hex
from pbem.common.catalog import N_
from pbem.common.fair import H, PhaseRng, Rng, check_chain_key, entropy_mix, hash_chain, phase_seed
from pbem.core.auditfiles import (
    check_newest_used,
    check_order_file,
    check_order_folders,
    check_owed,
    fail,
    json_or_none,
    parse_accepted,
    read_cited,
    rel,
    verified,
)
from pbem.core.campaign import (
    Campaign,
    derive_keys,
    effective,
    format_pin,
    orders_folder_name,
    parse_public_key,
    record_hash,
)
from pbem.core.deal import lobby_state
from pbem.core.gm import majority
from pbem.core.phase import autopilot_seats, gather, outstanding_commits, play
from pbem.errors import AuditError, PbemError


@dataclass
class AuditReport:
    records: int = 0
    order_files: int = 0
    replayed: int = 0
    replay: bool = False
    public: bool = False
    phases: int = 0
    draws: int = 0
    notes: list[str] = field(default_factory=list)
    seeds: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """What was checked, one English line each; the history site says them in the reader's
        language (the catalog holds these messages)."""
        out = [N_("%(records)s records: hash chain intact") % {"records": self.records}]
        if self.public:
            checked = N_("%(phases)s phases: public hash-chain keys and the players' entropy verified; %(draws)s public draws recomputed")
            out.append(checked % {"phases": self.phases, "draws": self.draws})
            out += self.seeds
        else:
            out.append(N_("%(files)s order files: hashes and signatures verified") % {"files": self.order_files})
        if self.replay:
            out.append(N_("%(phases)s phases replayed: every state, event and commitment hash matches")
                       % {"phases": self.replayed})
        out += self.notes
        return out


def audit(camp: Campaign, pins: Sequence[tuple[int, str]] = (), public: bool = False) -> AuditReport:
    """Audit ``camp``; raise :class:`AuditError` naming the first record or file that does not match.

    ``pins`` are ``(index, sha256)`` pairs copied from reports and receipts: each pinned record
    must still be there with that hash, which anchors the chain up to it (a truncated archive, or
    a suffix rewritten with recomputed links, fails).

    ``public``: check only what ``archive/`` holds, so a player can audit a copy of it in the
    middle of the game: the record chain and the pins, the public hash chain, every phase's
    players' entropy (each reveal against the commitment of an earlier record, and the mix made
    from them), the pause and resume requests the records carry (signatures and majorities) and
    the roster changes. Order files, states and the replay stay for the full audit."""
    camp.require()
    report = AuditReport(public=public)
    records = _check_chain(camp, report)
    _check_pins(camp, records, pins, report)
    create = records[0]
    if not public:
        _check_snapshot(camp, create)
    roster = {name: parse_public_key(e["key"]) for name, e in create["roster"].items()}
    held = {name: [key] for name, key in roster.items()}
    anchor = bytes.fromhex(create["public_anchor"])
    previous_key = anchor
    cited: set[str] = set()
    for rec in records:
        if rec["kind"] == "roster":
            roster[rec["seat"]] = parse_public_key(rec["entry"]["key"])
            held.setdefault(rec["seat"], []).append(roster[rec["seat"]])
            report.notes.append(N_("record %(index)s (%(file)s): roster change, %(seat)s now signs with %(key)s…")
                                % {"index": rec["index"], "file": rel(camp, rec), "seat": rec["seat"],
                                   "key": rec["entry"]["key"][:28]})
        if "requests" in rec or rec["kind"] in ("pause", "resume"):
            _check_requests(camp, rec, roster, create["campaign"], public)
        if rec["kind"] == "rollback" and not public:
            check_owed(camp, rec, held)
        if rec["kind"] != "phase":
            continue
        previous_key = _check_key(camp, records, rec, anchor, previous_key)
        _check_entropy(camp, rec, outstanding_commits(records[: rec["index"]]))
        report.draws += _check_public_dice(camp, rec)
        report.phases += 1
        if public:
            seed = phase_seed("public", bytes.fromhex(rec["public_key"]), rec["phase"], bytes.fromhex(rec["entropy_mix"]))
            report.seeds.append(N_("%(phase)s (record %(index)s): public stream seed %(seed)s")
                                % {"phase": rec["phase"], "index": rec["index"], "seed": seed.hex()})
            continue
        path = camp.record_path(rec["index"])
        for seat, used in sorted(rec["orders"].items()):
            check_order_file(camp, rec, seat, used, roster, path)
            cited.add(used["file"])
            report.order_files += 1
        check_newest_used(camp, rec, roster, orders_folder_name(effective(records[: rec["index"]]), rec["phase_number"], rec["phase"]))
        _check_snapshot(camp, rec)
    if public:
        end = next((r for r in records if r["kind"] == "end" and r.get("seed")), None)
        if end is not None:  # the revealed seed must be the one committed to in record 0
            _check_seed(camp, records, bytes.fromhex(end["seed"]), camp.record_path(end["index"]))
            report.notes.append(N_("the seed revealed in record %(index)s matches the anchor and the commitment of record 0")
                                % {"index": end["index"]})
        report.notes.append(N_("order files, states and the replay are left to the full audit (they hold secrets until the game ends)"))
        return report
    report.order_files += check_order_folders(camp, cited, held)
    found = _seed(camp, records)
    if found is None:
        report.notes.append(N_("replay skipped: the secret seed is revealed only when the game ends"))
        return report
    seed, source = found
    _check_seed(camp, records, seed, source)
    report.replay = True
    made = records[0].get("pbem_version")
    try:
        report.replayed = _replay(camp, records, seed)
    except AuditError as exc:
        if made is None or made == __version__:
            raise
        # another version's rules: say so, not only which hash differs
        raise AuditError(f"made by pbem version {made}; this is {__version__}, whose replay differs from it "
                         f"({exc.message}): audit it with pbem {made}", source=exc.source) from None
    if made is not None and made != __version__:
        report.notes.append(N_("the archive was made by pbem version %(made)s; this is %(this)s, and its replay matches")
                            % {"made": made, "this": __version__})
    return report


def _check_chain(camp: Campaign, report: AuditReport) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    prev: str | None = None
    index = 0
    while True:
        path = camp.record_path(index)
        if not path.is_file():
            break
        data = path.read_bytes()
        try:
            rec = json.loads(data)
        except ValueError:
            raise fail(path, "the record is not valid JSON") from None
        if canonical(rec) + b"\n" != data:
            raise fail(path, "the record's bytes are not in canonical form (it was edited)")
        if rec.get("index") != index:
            raise fail(path, f"the record says index {rec.get('index')}, expected {index}")
        if rec.get("prev") != prev:
            raise _chain_break(camp, index, data)
        prev = record_hash(data)
        records.append(rec)
        index += 1
    if not records or records[0].get("kind") != "create":
        raise fail(camp.record_path(0), "record 0 is missing or is not a create record")
    later = sorted(int(p.stem) for p in camp.archive_dir.glob("[0-9]*.json") if p.stem.isdigit() and int(p.stem) > index)
    if later:
        raise fail(camp.record_path(index), f"the record is missing, but later records are there (from {camp.record_path(later[0]).name})")
    report.records = len(records)
    return records


def _check_pins(camp: Campaign, records: list[dict[str, Any]], pins: Sequence[tuple[int, str]], report: AuditReport) -> None:
    for index, sha256 in sorted(set(pins)):
        path = camp.record_path(index)
        if index >= len(records):
            raise fail(path, f"record {index} is missing, but a report or receipt pinned it ({format_pin(index, sha256)}): "
                              f"the archive was truncated after record {len(records) - 1}")
        found = record_hash(path.read_bytes())
        if found != sha256:
            raise fail(path, f"record {index} is not the record a report or receipt pinned ({format_pin(index, sha256)}; "
                              f"the archive holds sha256:{found}): the history was rewritten")
    if pins:
        report.notes.append(N_("%(pins)s pin(s) from reports or receipts: every pinned record is there, unchanged")
                            % {"pins": len(set(pins))})


def check_sent(camp: Campaign, sent: Sequence[Path]) -> list[str]:
    """A player's own check: for each signed file the player sent, the phase record in force
    used it (or a later file of the same seat). Raise :class:`AuditError` naming the record that
    resolved the phase with an older file, or with none, while this one had been sent."""
    records = [r for r in camp.effective_records() if r["kind"] == "phase"]
    out = []
    for path in sent:
        raw = path.read_bytes()
        try:
            doc = parse_accepted(raw, path)
        except PbemError as exc:
            raise AuditError(f"your file does not parse: {exc.message}", source=str(path)) from None
        mine = f"{doc.player}'s seq {doc.seq} (sha256:{sha256_hex(raw)})"
        rec = next((r for r in reversed(records) if r["phase"] == doc.phase), None)
        if rec is None:
            out.append(f"{path.name}: {doc.phase} is not resolved yet in this archive")
            continue
        where = f"record {rec['index']} ({rel(camp, rec)})"
        used = rec["orders"].get(doc.player)
        if used is None or used.get("seq", 0) < doc.seq:
            what = "no file" if used is None else f"seq {used.get('seq')} (sha256:{used.get('sha256')})"
            raise fail(camp.record_path(rec["index"]), f"{where} resolved {doc.phase} with {what} for {doc.player}, not with the file you sent, {mine}")
        if used.get("seq") == doc.seq and used.get("sha256") != sha256_hex(raw):
            out.append(f"{path.name}: {where} used {doc.player}'s seq {doc.seq} with other bytes (sha256:{used.get('sha256')}): "
                       "a mail client may have changed the line endings; the receipt shows the hash of what arrived")
        else:
            out.append(f"{path.name}: {where} used {'this file' if used.get('seq') == doc.seq else 'a later file of yours, seq ' + str(used.get('seq'))}")
    return out


def _check_key(camp: Campaign, records: list[dict[str, Any]], rec: dict[str, Any], anchor: bytes, previous_key: bytes) -> bytes:
    """A phase's public key is the next key of the hash chain; returns it."""
    key = bytes.fromhex(rec["public_key"])
    if "chain_index" in rec:  # the key's place in the chain: every phase record, superseded or not, uses a fresh one
        chain_ok = rec["chain_index"] == sum(1 for r in records[: rec["index"]] if r["kind"] == "phase") + 1 and check_chain_key(key, previous_key)
    elif _after_rollback(records, rec):  # (a phase 1 follows the anchor, which check_chain_key also checks)
        chain_ok = _chain_reaches(key, anchor, rec["phase_number"])
    else:
        chain_ok = check_chain_key(key, previous_key)
    if not chain_ok:
        raise fail(camp.record_path(rec["index"]), f"the public key of phase {rec['phase_number']} is not the next key of the hash chain")
    return key


def _check_public_dice(camp: Campaign, rec: dict[str, Any]) -> int:
    """Every public draw a phase record lists is the one its chain key and entropy mix give; returns how many."""
    dice = rec.get("public_dice")
    if dice is None:  # a record made before the draws were listed
        return 0
    where = f"record {rec['index']} ({rel(camp, rec)})"
    if len(dice) != rec.get("public_draws"):
        raise fail(camp.record_path(rec["index"]), f"{where} lists {len(dice)} public draws but counts {rec.get('public_draws')}")
    rng = Rng(phase_seed("public", bytes.fromhex(rec["public_key"]), rec["phase"], bytes.fromhex(rec["entropy_mix"])))
    for k, (n, value) in enumerate(dice, 1):
        if rng.below(n) != value:
            raise fail(camp.record_path(rec["index"]), f"{where}: public draw {k} (1 of {n}) is not {value} "
                                                        "with this phase's chain key and entropy mix")
    return len(dice)


def _check_entropy(camp: Campaign, rec: dict[str, Any], commits: dict[str, str]) -> None:
    """The players' entropy of a phase: each reveal opens the seat's commitment of an earlier
    record (or the commitment itself is used, and the status says why), no seat with a pending
    commitment is left out when the record uses its file or counts it missing, and the mix is
    made of exactly these values."""
    where = f"record {rec['index']} ({rel(camp, rec)})"
    used: dict[str, str] = {}
    for seat, e in sorted(rec.get("entropy", {}).items()):
        expected = commits.get(seat)
        if expected is None:
            raise fail(camp.record_path(rec["index"]), f"{where} mixes entropy of {seat}, who had no commitment pending")
        reveal, value, status = e.get("reveal"), e.get("used"), e.get("status")
        opens = isinstance(reveal, str) and bool(re.fullmatch(r"(?:[0-9a-f]{2})+", reveal)) and sha256_hex(bytes.fromhex(reveal)) == expected
        if (status == "ok") != opens or value != (reveal if opens else expected):
            raise fail(camp.record_path(rec["index"]), f"{where}: {seat}'s entropy does not open the commitment {expected[:16]}… of an earlier record as the record says ({status})")
        used[seat] = str(value)
    # a seat whose file the record uses, or that it counts missing, is mixed in: leaving one out
    # would give the GM a second set of dice to choose from
    counted = {seat: "counts its file" for seat in rec.get("orders", {})} | {seat: "counts it missing" for seat in rec.get("missing_seats", [])}
    for seat, why in sorted(counted.items()):
        if seat in commits and seat not in used:
            raise fail(camp.record_path(rec["index"]), f"{where} leaves {seat} out of the players' entropy, but {seat}'s commitment "
                                                        f"{commits[seat][:16]}… was pending and the record {why}")
    if entropy_mix(used).hex() != rec.get("entropy_mix"):
        raise fail(camp.record_path(rec["index"]), f"{where}: the entropy mix is not the mix of the players' values the record lists")


def _chain_break(camp: Campaign, index: int, data: bytes) -> AuditError:
    """Name the record that was changed when record ``index`` does not chain to the one before.

    Either the record before it was changed, or this record's own ``prev``; in the second case
    this record's hash changed too, so the next record does not chain to it either."""
    before, path = camp.record_path(index - 1), camp.record_path(index)
    nxt = camp.record_path(index + 1)
    if nxt.is_file():
        following = json_or_none(nxt.read_bytes())
        if isinstance(following, dict) and following.get("prev") == record_hash(data):
            return fail(before, f"the record was changed after it was written: its hash no longer matches the 'prev' of record {index}")
        return fail(path, "the record's 'prev' was changed: it does not chain to the record before it, and the next record does not chain to it")
    return fail(before, f"the record was changed after it was written, or the 'prev' of the newest record {path} was: they do not chain")


def _after_rollback(records: list[dict[str, Any]], rec: dict[str, Any]) -> bool:
    """Whether phase record ``rec`` re-runs a phase a rollback reopened: the last record before
    it that set a state is a rollback (a pause, a resume or a roster change in between sets none)."""
    return next((r["kind"] == "rollback" for r in reversed(records[: rec["index"]]) if r["kind"] in ("phase", "rollback")), False)


def _chain_reaches(key: bytes, anchor: bytes, steps: int) -> bool:
    value = key
    for _ in range(steps):
        value = H(value)
    return value == anchor


def _check_requests(camp: Campaign, rec: dict[str, Any], roster: dict[str, Any], campaign: str, public: bool) -> None:
    """A pause or resume record: every signed request it cites is there, unchanged, signed by its
    seat's roster key, of the record's kind, for its phase and this campaign; and the requests
    are a majority of the seats (a GM who plays cannot pause alone)."""
    where = f"record {rec['index']} ({rel(camp, rec)})"
    requests = rec.get("requests") or {}
    for seat, req in sorted(requests.items()):
        path = camp.root / req["file"]
        if "text" in req:  # the record carries the signed request itself: a public copy checks it
            raw = str(req["text"]).encode("utf-8")
            if sha256_hex(raw) != req["sha256"]:
                raise fail(camp.record_path(rec["index"]), f"{where}: the {rec['kind']} request of {seat} it carries does not match its hash")
        elif public:
            raise fail(camp.record_path(rec["index"]), f"{where} does not carry {seat}'s signed request; only the full audit can check it")
        else:
            raw = read_cited(camp, rec, path, req["sha256"], f"the {rec['kind']} request of {seat}")
        if seat not in roster:
            raise fail(path, f"{where} cites a request of '{seat}', who is not on the roster")
        doc = verified(raw, path, roster[seat], "the request")
        kind = doc.request.get("kind") if isinstance(doc.request, dict) else None
        if doc.player != seat or kind != rec["kind"] or doc.phase != rec.get("phase") or doc.campaign != campaign:
            raise fail(path, f"{where} counts this file as {seat}'s {rec['kind']} request for {rec.get('phase')} in '{campaign}', "
                              f"but it is {doc.player}'s {kind} request for {doc.phase} in '{doc.campaign}'")
    if not majority(len(requests), len(roster)):
        raise fail(camp.record_path(rec["index"]), f"{where} is a {rec['kind']} with {len(requests)} signed request(s) of "
                                                    f"{len(roster)} seats: a {rec['kind']} needs a majority")


def _check_snapshot(camp: Campaign, rec: dict[str, Any]) -> None:
    _check_json(camp, rec, camp.state_path(rec["index"]), rec["state_hash"], "the state after", "the state snapshot does not match")
    if rec["kind"] == "create":  # the initial state has no events
        return
    epath = camp.states_dir / f"{rec['index']:06d}.events.json"
    _check_json(camp, rec, epath, rec["events_hash"], "the events of", "the events file does not match")


def _check_json(camp: Campaign, rec: dict[str, Any], path: Path, expected: str, missing: str, mismatch: str) -> None:
    """A canonical-JSON file beside the archive: present, canonical, and of the record's hash."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise fail(path, f"{missing} record {rec['index']} is missing") from None
    parsed = json_or_none(data)
    if parsed is None or canonical(parsed) + b"\n" != data or digest(parsed) != expected:
        raise fail(path, f"{mismatch} record {rec['index']} ({rel(camp, rec)}); one of the two was changed")


def _seed(camp: Campaign, records: list[dict[str, Any]]) -> tuple[bytes, Path] | None:
    """The secret seed and the file it was read from: the end record once it revealed the seed,
    else the GM's ``secret/seed``. A seed file must hold what pbem writes (hex and a newline)."""
    p = camp.secret_dir / "seed"
    from_file = None
    if p.is_file():
        text = p.read_bytes()
        if not re.fullmatch(rb"(?:[0-9a-f]{2})+\n", text):
            raise fail(p, "the secret seed file is not what pbem wrote (lowercase hex digits and a newline)")
        from_file = bytes.fromhex(text.decode("ascii"))
    for rec in records:
        if rec["kind"] == "end" and rec.get("seed"):
            path = camp.record_path(rec["index"])
            try:
                return bytes.fromhex(rec["seed"]), path
            except (TypeError, ValueError):
                raise fail(path, "the seed revealed in the end record is not hex") from None
    return (from_file, p) if from_file is not None else None


def _check_seed(camp: Campaign, records: list[dict[str, Any]], seed: bytes, source: Path) -> None:
    keys = derive_keys(seed)
    create = records[0]
    if sha256_hex(keys["secret"]) != create["secret_commitment"]:
        raise fail(source, "the secret seed does not match the commitment published in record 0")
    if hash_chain(keys["public"], create["chain_length"])[0].hex() != create["public_anchor"]:
        raise fail(source, "the secret seed does not produce the public hash-chain anchor of record 0")
    p = camp.secret_dir / "seed"
    if source != p and p.is_file() and bytes.fromhex(p.read_text("ascii")) != seed:
        raise fail(p, f"the secret seed differs from the seed revealed in {source.name}")


def _replay(camp: Campaign, records: list[dict[str, Any]], seed: bytes) -> int:
    game = camp.game()
    create = records[0]
    keys = derive_keys(seed)
    anchor = bytes.fromhex(create["public_anchor"])
    if create.get("entropy_first"):  # nothing drawn yet: the deal is the second round's resolution
        state = lobby_state(create["scenario"], create["options"], sorted(create["roster"]))
    else:
        rng = PhaseRng(public=Rng(H(anchor + b"|create")), secret=Rng(H(keys["secret"] + b"|create")))
        state = game.new_game(create["scenario"], create["options"], rng)
    if digest(state) != create["state_hash"]:
        raise fail(camp.record_path(0), "replaying the game's creation does not give the state hash of record 0")
    states = {0: state}
    live: list[dict[str, Any]] = []  # the phase records in force, whose missed deadlines count for the autopilot
    replayed = 0
    for rec in records:
        if rec["kind"] == "rollback":
            live = [r for r in live if r["index"] <= rec["to"]]
            state = states[rec["to"]]
        elif rec["kind"] == "end" and digest(rec.get("result")) != digest(game.result(state)):
            raise fail(camp.record_path(rec["index"]), "the end record's result is not the result of the replayed game")
        if rec["kind"] != "phase":
            continue
        path = camp.record_path(rec["index"])
        phase = game.current_phase(state)
        if phase is None or phase.id != rec["phase"]:
            raise fail(path, f"replay expected phase {phase.id if phase else '(game over)'}, the record says {rec['phase']}")
        docs = {seat: ((camp.root / used["file"]).read_bytes(), Path(used["file"]).name) for seat, used in rec["orders"].items()}
        autopilot = autopilot_seats(live, int(create.get("autopilot_after", 0)))
        inputs = gather(game, state, phase, docs, outstanding_commits(records[: rec["index"]]), autopilot)
        resolution, body = play(game, state, phase, rec["phase_number"], inputs, seed, rec.get("chain_index"))
        for name in ("defaults", "missing_seats", "autopilot", "entropy", "entropy_mix", "public_key", "commitments", "events_hash", "state_hash"):
            if body[name] != rec[name]:
                raise fail(path, f"replaying phase {rec['phase']} gives a different {name.replace('_', ' ')} than the record")
        if rec.get("voided") != body.get("voided"):
            raise fail(path, f"replaying phase {rec['phase']} sets aside other orders than the record says")
        if rec.get("public_draws") != body["public_draws"] or rec.get("public_dice") != body.get("public_dice"):
            raise fail(path, f"replaying phase {rec['phase']} gives a different count of public draws than the record")
        for seat, used in sorted(body["orders"].items()):
            cited = rec["orders"][seat]
            if any(cited.get(k) != v for k, v in used.items()):
                raise fail(path, f"the record's entry for {seat}'s order file (seq, entropy commitment) does not match the file")
        state = resolution.state
        states[rec["index"]] = state
        live.append(rec)
        replayed += 1
    return replayed
