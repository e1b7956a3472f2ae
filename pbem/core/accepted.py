"""The orders accepted so far, as intake stored them: each phase's folder of accepted files and
their verdicts, each seat's chosen file, the files a rollback set aside, and the entropy
commitments the phase records still wait to see revealed.

Intake writes these; resolving a phase, the replies and the audit read them. This module only
reads, and imports nothing of intake, the phase or the replies, so each of them can use it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.core.campaign import Campaign, Seat, phase_key
from pbem.core.envelope import parse_order_document
from pbem.errors import PbemError


@dataclass(frozen=True)
class Accepted:
    """An accepted order document on disk."""

    seat: str
    seq: int
    where: Path | str  # the file (intake keeps it as text: a Path per file costs more than its write)
    verdict: dict[str, Any]

    @property
    def path(self) -> Path:
        return Path(self.where)


def phase_orders_dir(camp: Campaign, number: int, phase_id: str) -> Path:
    return camp.orders_folder(number, phase_id)


def key_tag(camp: Campaign, seat: str, key_id: str | None, original: str | None = None) -> str:
    """What the names of a seat's files carry besides seq: nothing for the key the seat had at
    creation, ``.`` and 12 hex digits of the key for a key given by replace-player. So a new
    player's seq 1 never takes the name of the old player's seq 1, and seqs compare per key.
    ``original``: the seat's key at creation, if the caller has it (:func:`original_keys`)."""
    if original is None:
        original = str(camp.create_record()["roster"].get(seat, {}).get("key", "")).split(" ")[0]
    if key_id is None or key_id == original:
        return ""
    return "." + key_id.rpartition(":")[2][:12]


def original_keys(camp: Campaign) -> dict[str, str]:
    """Each seat's key at the campaign's creation (what :func:`key_tag` compares with)."""
    return {seat: str(entry.get("key", "")).split(" ")[0] for seat, entry in camp.create_record()["roster"].items()}


def accepted_documents(camp: Campaign, number: int, phase_id: str, all_seqs: bool = False, folder: Path | None = None) -> Any:
    """The highest-seq accepted document of each seat for a phase (with ``all_seqs``: every
    accepted document of each seat, highest seq first); from ``folder`` instead of the phase's
    own folder when given."""
    folder = folder or phase_orders_dir(camp, number, phase_id)
    by_seat: dict[str, list[Accepted]] = {}
    if folder.is_dir():
        for vpath in sorted(folder.glob("*.verdict.json")):
            verdict = json.loads(vpath.read_bytes())
            doc_path = folder / verdict["file"]
            if doc_path.is_file():
                by_seat.setdefault(verdict["seat"], []).append(Accepted(verdict["seat"], verdict["seq"], doc_path, verdict))
    for docs in by_seat.values():
        docs.sort(key=lambda a: -a.seq)
    if all_seqs:
        return by_seat
    return {seat: docs[0] for seat, docs in by_seat.items()}


def chosen_documents(camp: Campaign, number: int, phase_id: str, folder: Path | None = None,
                     roster: dict[str, Seat] | None = None) -> dict[str, Accepted]:
    """Each seat's highest-seq accepted document signed by the key the roster holds now (after
    a replace-player, the old player's orders no longer count, and their seqs do not either).
    ``roster``: the campaign's roster if the caller has read it already (intake reads it once)."""
    roster = camp.roster() if roster is None else roster
    chosen: dict[str, Accepted] = {}
    for seat, acc in accepted_documents(camp, number, phase_id, all_seqs=True, folder=folder).items():
        for candidate in acc:
            doc = parse_order_document(candidate.path.read_bytes(), candidate.path.name)
            if seat in roster and doc.key_id == roster[seat].key.sign_id:
                chosen[seat] = candidate
                break
    return chosen


def set_aside(camp: Campaign, number: int, phase_id: str, roster: dict[str, Seat] | None = None) -> dict[str, Accepted]:
    """Each seat's highest-seq file (under its current key) among the orders of this phase that a
    rollback set aside. They no longer count, but a new file must still have a higher seq, so
    an old signed file cannot be replayed into the reopened phase."""
    current, key = phase_orders_dir(camp, number, phase_id), phase_key(number, phase_id)
    best: dict[str, Accepted] = {}
    for folder in sorted(camp.orders_dir.glob(key + "*")):
        same_phase = folder.name == key or (folder.name.startswith(key + ".r") and folder.name[len(key) + 2:].isdigit())
        if folder == current or not same_phase or not folder.is_dir():
            continue
        for seat, acc in chosen_documents(camp, number, phase_id, folder, roster).items():
            if seat not in best or acc.seq > best[seat].seq:
                best[seat] = acc
    return best


def newest_commits(camp: Campaign) -> dict[str, str]:
    """Each seat's commitment in the newest file the campaign accepted from it under its roster
    key, whatever the phase (by the record it was accepted on, then seq): the value a seat's
    ``pbem sign`` keeps pending, which no file has revealed yet, not even one the GM read."""
    roster = camp.roster()
    newest: dict[str, tuple[tuple[int, int], str]] = {}
    for vpath in camp.orders_dir.glob("*/*.yaml.verdict.json"):
        try:
            verdict = json.loads(vpath.read_bytes())
            head = int(str(verdict.get("archive_head", "record -1")).split()[1])
            seat, seq = str(verdict["seat"]), int(verdict["seq"])
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            continue
        if seat not in roster or (seat in newest and newest[seat][0] >= (head, seq)):
            continue
        path = vpath.with_name(vpath.name[: -len(".verdict.json")])
        try:
            doc = parse_order_document(path.read_bytes(), path.name, max_bytes=max(path.stat().st_size, 1))
        except (OSError, PbemError):
            continue
        if doc.key_id == roster[seat].key.sign_id and doc.entropy_commit:
            newest[seat] = ((head, seq), doc.entropy_commit)
    return {seat: commit for seat, (_, commit) in sorted(newest.items())}


def outstanding_commits(records: list[dict[str, Any]]) -> dict[str, str]:
    """Each seat's last entropy commitment not yet revealed, from ``records``: every record in
    archive order, superseded ones included. A rollback that asks for fresh reveals (``fresh_reveals``)
    keeps the commitments of the phases it supersedes, whose reveals are not public yet, and names
    (``owed``) each seat's newest commitment, from a file accepted after them: the re-run owes
    those, not the values the superseded records, or files the GM read, already showed. A rollback
    written before that rule goes back to the commitments of the records in force."""
    commits: dict[str, str] = {}
    after: dict[int, dict[str, str]] = {}
    for rec in records:
        if rec["kind"] == "rollback" and not rec.get("fresh_reveals"):
            commits = dict(after.get(rec["to"], {}))
        elif rec["kind"] == "rollback":  # what each seat's newest accepted file committed to
            commits.update(rec.get("owed", {}))
        elif rec["kind"] == "phase":
            for seat, used in rec["orders"].items():
                if used.get("entropy_commit"):
                    commits[seat] = used["entropy_commit"]
        after[rec["index"]] = dict(commits)
    return commits
