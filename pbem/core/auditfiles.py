"""The audit's checks of the order folders: every order file a record uses against the record,
its verdict and its seat's roster key; every accepted file no record uses against its verdict and
a key its seat held; each phase resolved with its seats' newest files; a rollback's owed
commitments each made by a file its seat signed. The first thing that does not match is raised
as an :class:`AuditError` naming the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pbem.common.canonical import canonical, sha256_hex
from pbem.core.accepted import key_tag
from pbem.core.campaign import Campaign, parse_pin, record_hash
from pbem.core.envelope import OrderDocument, parse_order_document, verify_signature
from pbem.core.keys import PublicKey
from pbem.errors import AuditError, PbemError

Held = dict[str, list[PublicKey]]  # seat -> every key it signed with in the campaign so far


def fail(path: Path, message: str) -> AuditError:
    return AuditError(message, source=str(path))


def rel(camp: Campaign, rec: dict[str, Any]) -> str:
    """The record's file, relative to the campaign folder."""
    return str(camp.record_path(rec["index"]).relative_to(camp.root))


def read_cited(camp: Campaign, rec: dict[str, Any], path: Path, sha256: str, what: str) -> bytes:
    """The bytes of a file a record cites, checked against the hash the record holds."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise fail(path, f"{what} cited by record {rec['index']} is missing") from None
    if sha256_hex(raw) != sha256:
        raise fail(path, f"{what} does not match the hash in record {rec['index']} ({rel(camp, rec)}); one of the two was changed")
    return raw


def verified(raw: bytes, path: Path, key: PublicKey, what: str) -> OrderDocument:
    """The signed file ``raw`` (``what`` it is, at ``path``), parsed and verified against ``key``."""
    try:
        doc = parse_order_document(raw, str(path))
        verify_signature(doc, key)
    except PbemError as exc:
        raise fail(path, f"{what} does not verify: {exc.message}") from None
    return doc


def check_order_file(camp: Campaign, rec: dict[str, Any], seat: str, used: dict[str, Any], roster: dict[str, Any], rpath: Path) -> None:
    path = camp.root / used["file"]
    raw = read_cited(camp, rec, path, used["sha256"], f"the order file of {seat}")
    verdict = path.with_name(path.name + ".verdict.json")
    if not verdict.is_file() or sha256_hex(verdict.read_bytes()) != used.get("verdict_sha256"):
        raise fail(verdict, f"the verdict of {seat}'s order file does not match record {rec['index']} ({rel(camp, rec)}); one of the two was changed")
    doc = verified(raw, path, roster[seat], "the order file")
    if _without_nonce(camp, doc):
        raise fail(path, f"the order file has no nonce, but record 0 of '{camp.id}' requires one; record {rec['index']} ({rel(camp, rec)}) uses it")
    named = _other_campaign(camp, doc)
    if named:
        raise fail(path, f"the order file is for campaign {named}, but record {rec['index']} ({rel(camp, rec)}) uses it in '{camp.id}'")
    if doc.player != seat or doc.phase != rec["phase"] or doc.seq != used.get("seq"):
        raise fail(path, f"the order file is {doc.player}'s seq {doc.seq} for {doc.phase}, but record {rec['index']} uses it "
                          f"as {seat}'s seq {used.get('seq')} for {rec['phase']}")


def _without_nonce(camp: Campaign, doc: OrderDocument) -> bool:
    return doc.data.get("nonce") is None and bool(camp.create_record().get("nonce_required"))


def _other_campaign(camp: Campaign, doc: OrderDocument) -> str:
    """How to name the campaign ``doc`` is for, when it is not ``camp`` (another id, or the same
    id with another nonce); empty when it is."""
    nonce = doc.data.get("nonce")
    if doc.campaign == camp.id and (nonce is None or nonce == camp.nonce):
        return ""
    return f"'{doc.campaign}'" + (f" (nonce {str(nonce)[:40]})" if nonce is not None and nonce != camp.nonce else "")


def held_key(doc: OrderDocument, held: Held) -> PublicKey | None:
    """The key of ``doc``'s seat it says it is signed with, if the seat ever held that key."""
    return next((key for key in held.get(doc.player, []) if key.sign_id == doc.key_id), None)


def _signed_by(doc: OrderDocument, held: Held) -> bool:
    key = held_key(doc, held)
    if key is None:
        return False
    try:
        verify_signature(doc, key)
    except PbemError:
        return False
    return True


def _check_signed(camp: Campaign, doc: OrderDocument, path: Path, held: Held) -> None:
    """An accepted file no record uses is of this campaign and signed with a key its seat held."""
    if _without_nonce(camp, doc):
        raise fail(path, f"the accepted order file has no nonce, but record 0 of '{camp.id}' requires one")
    named = _other_campaign(camp, doc)
    if named:
        raise fail(path, f"the accepted order file is for campaign {named}, not '{camp.id}'")
    key = held_key(doc, held)
    if key is None:
        raise fail(path, f"the accepted order file does not verify: signed with a key '{doc.player}' never held in this campaign "
                         f"({str(doc.key_id)[:20]}…)")
    try:
        verify_signature(doc, key)
    except PbemError as exc:
        raise fail(path, f"the accepted order file does not verify: {exc.message}") from None


def check_order_folders(camp: Campaign, cited: set[str], held: Held) -> int:
    """Every accepted order file that no record cites (superseded by a higher seq, or waiting for
    the phase to resolve) still matches its verdict; returns how many were checked. An order file
    without a verdict is what a crash between the two writes leaves; intake ignores it, so do we."""
    checked = 0
    for vpath in sorted(camp.orders_dir.glob("*/*.yaml.verdict.json")):
        doc = vpath.with_name(vpath.name[: -len(".verdict.json")])
        if str(doc.relative_to(camp.root)) in cited:
            continue
        data = vpath.read_bytes()
        verdict = json_or_none(data)
        if not isinstance(verdict, dict) or canonical(verdict) + b"\n" != data or verdict.get("file") != doc.name:
            raise fail(vpath, NOT_INTAKES)
        try:
            raw = doc.read_bytes()
        except FileNotFoundError:
            raise fail(doc, f"the accepted order file is missing (its verdict {vpath.name} is there)") from None
        if sha256_hex(raw) != verdict.get("raw_sha256"):
            raise fail(doc, f"the order file does not match the hash in its verdict {vpath.relative_to(camp.root)}; one of the two was changed")
        try:
            parsed = parse_accepted(raw, doc)
        except PbemError as exc:
            raise fail(doc, f"the accepted order file does not parse: {exc.message}") from None
        seat, seq = parsed.player, parsed.seq
        if seat not in held:
            raise fail(doc, f"the accepted order file is of '{seat}', who is not on the roster")
        # the verdict is of the file's seat and seq, and intake named the file by them and (for a
        # key replace-player gave) the key
        if verdict.get("seat") != seat or verdict.get("seq") != seq or doc.name != f"{seat}.{seq:06d}{key_tag(camp, seat, parsed.key_id)}.yaml":
            raise fail(vpath, NOT_INTAKES)
        if parsed.body_hash != verdict.get("body_sha256"):
            raise fail(vpath, "the verdict's hash of the signed content does not match its order file")
        _check_head(camp, vpath, verdict.get("archive_head"))
        _check_signed(camp, parsed, doc, held)
        checked += 1
    return checked


NOT_INTAKES = "the verdict is not what intake wrote (not canonical JSON, or not for this order file)"


def _check_head(camp: Campaign, vpath: Path, head: Any) -> None:
    """The archive head a verdict names (the pin its receipt printed) is a record of this archive."""
    if head is None:  # a verdict written before receipts carried pins
        return
    try:
        index, sha256 = parse_pin(str(head))
    except PbemError:
        raise fail(vpath, "the verdict's archive head is not a pin ('record N sha256:HASH')") from None
    path = camp.record_path(index)
    if not path.is_file() or record_hash(path.read_bytes()) != sha256:
        raise fail(vpath, f"the verdict says the file was accepted on {head}, which is not a record of this archive")


def check_owed(camp: Campaign, rec: dict[str, Any], held: Held) -> None:
    """A rollback's ``owed`` commitments (what the re-run's reveals must open) are each one that a
    file the campaign accepted from that seat, signed with a key the seat held, made: the GM
    cannot name values of its own."""
    owed = rec.get("owed") or {}
    made: dict[str, set[str]] = {}
    for vpath in sorted(camp.orders_dir.glob("*/*.yaml.verdict.json")):
        doc = vpath.with_name(vpath.name[: -len(".verdict.json")])
        try:
            parsed = parse_accepted(doc.read_bytes(), doc)
        except (OSError, PbemError):
            continue  # the order-folder check names a missing or damaged file
        if parsed.entropy_commit and _signed_by(parsed, held):
            made.setdefault(parsed.player, set()).add(parsed.entropy_commit)
    for seat, commit in sorted(owed.items()):
        if commit not in made.get(seat, set()):
            raise fail(camp.record_path(rec["index"]), f"record {rec['index']} ({rel(camp, rec)}) says {seat} owes a reveal of "
                                                        f"{str(commit)[:16]}…, a commitment no accepted file of {seat} made")


def check_newest_used(camp: Campaign, rec: dict[str, Any], roster: dict[str, Any], folder_name: str) -> None:
    """The phase used each seat's newest file: no accepted file of a seat, signed with the key the
    roster held and received before the phase resolved, has a higher seq than the one the record
    cites (or is left out while the seat's orders count as missing)."""
    folder = camp.orders_dir / folder_name  # where the orders of the phase were taken in
    resolved = rec.get("resolved_at")
    for vpath in sorted(folder.glob("*.yaml.verdict.json")):
        verdict = json_or_none(vpath.read_bytes())
        if not isinstance(verdict, dict) or verdict.get("seat") not in roster or not isinstance(verdict.get("seq"), int):
            continue  # not what intake wrote: the order-folder check names it
        seat, seq = verdict["seat"], verdict["seq"]
        if resolved and str(verdict.get("received_at", "")) > resolved:
            continue
        used = rec["orders"].get(seat)
        if used is not None and used["seq"] >= seq:  # (each entry's seq is its file's: check_order_file)
            continue
        doc = vpath.with_name(vpath.name[: -len(".verdict.json")])
        try:
            parsed = parse_accepted(doc.read_bytes(), doc)
        except (OSError, PbemError):
            continue  # the order-folder check names a missing or damaged file
        if not _signed_by(parsed, {seat: [roster[seat]]}):
            continue  # signed by a key the roster no longer held, or not signed at all: it does not count (nor pass the order-folder check)
        what = f"seq {used.get('seq')}" if used is not None else "no file"
        raise fail(camp.record_path(rec["index"]), f"record {rec['index']} resolved {rec['phase']} with {what} for {seat}, "
                                                    f"but {doc.relative_to(camp.root)} (seq {seq}) was accepted before it: the newest file must count")


def parse_accepted(raw: bytes, path: Path) -> OrderDocument:
    """A file a player sent or intake accepted, parsed whatever its size: the size limit guards
    intake against mail, not the audit against files already at hand."""
    return parse_order_document(raw, str(path), max_bytes=len(raw))


def json_or_none(data: bytes) -> Any:
    """Parsed JSON, or None for bytes that are not JSON (a damaged file is reported, not raised)."""
    try:
        return json.loads(data) if data.strip() else None
    except ValueError:
        return None
