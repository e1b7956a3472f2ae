"""Intake: accept or refuse order documents for the phase now waiting.

Checks, in order: the envelope (restricted YAML, required fields), campaign id, roster seat,
signature by that seat's roster key, phase id, ``seq`` (higher replaces lower; equal or lower is
a replay, also against orders a rollback set aside), deadline, player entropy. Accepted documents
are stored verbatim with their verdict; the seat gets a receipt that echoes the orders as
understood, their hash and every order the resolver will void, or an error reply naming the
player's mail, the line and what to fix. Nothing already accepted is ever changed by intake.

Replies go only to roster addresses, in the seat's language (see :mod:`pbem.core.replies`): a full
answer only for a file that verifies against the sender's own roster key (one refusal per mail);
for anything else one fixed-text reply per mail that quotes nothing from the mail; a few
refusals per sender and run at most. A mail
whose ``From`` is not on the roster is logged and gets no reply, so a forged sender cannot make
pbem mail strangers, nor mail a player text a stranger chose.
"""

from __future__ import annotations

import gc
import json
import json.encoder
import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pbem.common.canonical import canonical, sha256_hex
from pbem.common.catalog import N_
from pbem.common.yamlout import dump_block
from pbem.core import atomic, gm, outbox, replies, shape
from pbem.core.accepted import (
    Accepted,
    chosen_documents,
    original_keys,
    outstanding_commits,
    phase_orders_dir,
    set_aside,
)
from pbem.core.accepted import accepted_documents as accepted_documents  # where callers found it before
from pbem.core.accepted import key_tag as _key_tag
from pbem.core.campaign import Campaign, Seat, format_time, parse_time
from pbem.core.envelope import OrderDocument, parse_order_document, verify_signature
from pbem.core.mailin import Candidate, Source, read_sources
from pbem.core.replies import said
from pbem.errors import OrderError, OrderFileError, PbemError, echo, one_line
from pbem.games.base import Phase

Roster = dict[str, Seat]

@dataclass
class Verdict:
    """What intake decided about one candidate."""

    source: str
    accepted: bool
    message: str
    seat: str | None = None
    seq: int | None = None
    duplicate: bool = False
    problems: list[str] = field(default_factory=list)
    verified: bool = False  # the file verifies against the roster key of the address that sent it
    reply: bool = True  # False: signed by a key not the sender's; the From is forged, no answer
    orders: Any = field(default=None, repr=False, compare=False)  # as parsed, for the receipt
    request: str | None = None
    error: PbemError | None = field(default=None, repr=False, compare=False)  # why it was refused
    internal: bool = False  # refused because checking it raised (a bug, not the player's fault)
    stored: dict[str, Any] | None = field(default=None, repr=False, compare=False)  # the verdict file written, for the receipt

    def line(self) -> str:
        if self.accepted:
            word = "already accepted" if self.duplicate else "accepted"
            extra = f" ({len(self.problems)} problem(s) reported to the player)" if self.problems else ""
            return f"{word}: {echo(self.source, 160)}: {self.seat} seq {self.seq}{extra}"
        return f"refused: {self.message}"


@dataclass
class IntakeReport:
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def accepted(self) -> int:
        return sum(1 for v in self.verdicts if v.accepted and not v.duplicate)

    @property
    def refused(self) -> int:
        return sum(1 for v in self.verdicts if not v.accepted)

    @property
    def internal(self) -> list[Verdict]:
        """Files refused because checking them raised: the GM should look (``pbem status``)."""
        return [v for v in self.verdicts if v.internal]


def intake(camp: Campaign, sources: list[str | Path], now: datetime) -> IntakeReport:
    """Read every source and accept or refuse what it holds. Hold the campaign lock around this."""
    # What lives before the run (the archive read, templates, the roster) is frozen out of the
    # cycle collector while the run makes many small objects per file: a full collection then
    # walks only the run's own objects. Unfrozen after, so nothing is kept beyond the run.
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    try:
        return _intake(camp, sources, now)
    finally:
        if freeze:
            gc.unfreeze()


def _intake(camp: Campaign, sources: list[str | Path], now: datetime) -> IntakeReport:
    report = IntakeReport()
    run = _Run(camp)
    budget = replies.Budget()
    # group commit: the files of many mails reach the disk together, and only then are those
    # mails marked read (moved to cur/); a crash before that leaves them to be read again
    with atomic.group(camp.orders_dir, camp.outbox, camp.refused_dir):
        read: list[Source] = []
        for source in read_sources(sources, run.max_bytes):
            _take(camp, run, now, budget, source, report)
            read.append(source)
            if len(read) >= GROUP_MAILS:
                _commit(read)
        _commit(read)
    return report


class _Run:
    """What every file of one intake run is judged against, read from the archive once rather
    than for each file (a long campaign's records are many). A signed request that appends a
    record (a pause, a resume) has the deadline and the pin read again (:meth:`refresh`)."""

    def __init__(self, camp: Campaign) -> None:
        self.game = camp.game()
        create = camp.create_record()
        self.roster: Roster = camp.roster()
        _, self.state = camp.current()
        self.phase: Phase | None = self.game.current_phase(self.state)
        self.number = camp.phase_number()
        self.max_bytes = int(create.get("limits", {}).get("max_bytes", 64 * 1024))
        self.nonce_required = bool(create.get("nonce_required"))
        self.resolved_ids = {r["phase"] for r in camp.effective_records() if r["kind"] == "phase"}
        self.opened = camp.state_records()[-1]["index"]  # the record the waiting phase was opened by
        self.folder = phase_orders_dir(camp, self.number, self.phase.id) if self.phase is not None else camp.orders_dir
        self.folder_prefix = os.path.join(self.folder, "")  # (text: a file's path is this and its name)
        # the highest accepted seq of each seat under its current key, read once and kept up to date
        # as files are accepted (this process holds the lock, so nothing else changes the folder)
        self.best = chosen_documents(camp, self.number, self.phase.id, roster=self.roster) if self.phase is not None else {}
        for seat, old in (set_aside(camp, self.number, self.phase.id, self.roster) if self.phase is not None else {}).items():
            if seat not in self.best or old.seq > self.best[seat].seq:
                self.best[seat] = old
        self.originals = original_keys(camp)  # each seat's key at creation, which its files' names compare with
        self.sent = outbox.SentFolder()  # what sent/ holds, looked at for the receipts of files accepted now
        self.refresh(camp)

    def refresh(self, camp: Campaign) -> None:
        """Read again what a record appended during the run may change."""
        self.records = len(camp.records())
        self.pin = camp.pin()
        self.deadline = camp.closing(self.phase.deadline_kind) if self.phase is not None else None
        self.pause = gm.pause_in_force(camp)
        self.commits = outstanding_commits(camp.records())


GROUP_MAILS = 500
"""Mails whose files are committed together (memory holds their bytes until then)."""


def _commit(read: list[Source]) -> None:
    atomic.commit()
    for source in read:
        source.done()
    read.clear()


def _take(camp: Campaign, run: _Run, now: datetime, budget: replies.Budget, source: Source, report: IntakeReport) -> None:
    """Judge every candidate of one source and queue the answers."""
    unproven: replies.Unproven | None = None  # (made for a refusal only: most mails have none)
    refused: replies.Refused | None = None
    phase_id = run.phase.id if run.phase else ""
    for cand in source.candidates:
        try:
            verdict = _judge(camp, run, cand, now)
        except Exception as crash:  # noqa: BLE001 - the safety net: one file never stops the others
            verdict = _internal(camp, cand, crash)
        report.verdicts.append(verdict)
        if len(camp.records()) != run.records:  # a request appended a record (a pause, a resume)
            run.refresh(camp)
        if verdict.accepted:
            _reply(camp, run, cand, verdict, phase_id)
        elif verdict.verified:
            refused = refused or replies.Refused()
            refused.add(cand, verdict.message, verdict.error)
        elif verdict.reply:
            exc = verdict.error
            unproven = unproven or replies.Unproven()
            unproven.add(cand, replies.problem_kind(cand, exc), exc.line if exc else None)
    if refused is not None:
        replies.refuse_verified(camp, run.roster, refused, budget, phase_id)
    if unproven is not None:
        replies.refuse_unproven(camp, run.roster, unproven, budget)


def _judge(camp: Campaign, run: _Run, cand: Candidate, now: datetime) -> Verdict:
    roster = run.roster
    if cand.problem:
        return _refuse(camp, cand, f"{cand.source}: {cand.problem}")
    assert cand.raw is not None
    try:
        doc = parse_order_document(cand.raw, cand.source, max_bytes=run.max_bytes)
    except PbemError as exc:
        return _refuse(camp, cand, str(exc.located(cand.source)), error=exc)
    try:
        _identify(camp, roster, doc)
    except PbemError as exc:
        return _refuse(camp, cand, str(exc.located(cand.source)), error=exc, reply=_signed_by_sender(doc, cand, roster))
    verified = _sent_by_signer(doc, cand, roster)
    try:
        shape.check_envelope(doc.data, cand.source, doc.line_of)
        phase = _check(camp, run, doc, cand, now)  # the phase waiting (refused if none)
        if doc.orders is not None:  # shape first: no game code sees orders that do not fit
            shape.check_orders(run.game.name, phase.kind, doc.orders, cand.source, doc.line_of)
    except PbemError as exc:
        return _refuse(camp, cand, str(exc.located(cand.source)), error=exc, verified=verified)
    folder = run.folder
    if doc.request is not None:
        return _accept_request(camp, folder, doc, cand, now, phase)
    existing = run.best.get(doc.player)
    name = _doc_name(doc.player, doc.seq, _key_tag(camp, doc.player, doc.key_id, run.originals.get(doc.player, "")))
    if existing is not None and doc.seq <= existing.seq:
        if atomic.read_bytes(folder / name) == cand.raw:
            return Verdict(cand.source, True, "already accepted", doc.player, doc.seq, duplicate=True, problems=_stored_problems(folder, doc, name), orders=doc.orders)
        replay = said(OrderError, N_(
            "seq %(seq)s is not above seq %(best)s, which was already accepted for %(phase)s; "
            "this looks like a replay. To replace your orders, send them with seq %(next)s or more"),
            line=doc.line_of("seq"), field="seq", seq=doc.seq, best=existing.seq, phase=doc.phase, next=existing.seq + 1)
        return _refuse(camp, cand, str(replay.located(cand.source)), error=replay, verified=verified)
    problems = _validate(run.game, run.state, phase, doc) + _reveal_problem(run.commits, doc)
    verdict: dict[str, Any] = {
        "seat": doc.player,
        "seq": doc.seq,
        "file": name,
        "source": cand.source,
        "sender": cand.sender,
        "received_at": format_time(cand.received or now),
        "raw_sha256": doc.raw_hash,
        "body_sha256": doc.body_hash,
        "problems": problems,
        "archive_head": run.pin,  # the receipt prints it: the record the file was accepted on
    }
    path = run.folder_prefix + name  # (text: a Path per file costs more than its write)
    atomic.write_bytes(path, cand.raw)
    atomic.write_bytes(path + ".verdict.json", verdict_bytes(verdict))
    run.best[doc.player] = Accepted(doc.player, doc.seq, path, verdict)
    return Verdict(cand.source, True, "accepted", doc.player, doc.seq, problems=problems, orders=doc.orders, stored=verdict)


def verdict_bytes(verdict: dict[str, Any]) -> bytes:
    """An accepted file's verdict as stored: its canonical JSON and a line end. Its usual fields
    are written into a fixed text here, which costs less than the JSON encoder's walk of the dict
    (intake writes one per accepted file): strings that need no escape as they are, others by
    the encoder's own escaping; a verdict of any other shape goes through :func:`canonical`
    (``tests/test_intake_verdict.py``)."""
    seq, sender, problems = verdict.get("seq"), verdict.get("sender"), verdict.get("problems")
    if len(verdict) == 10 and type(seq) is int and type(problems) is list:
        try:
            head, body, file, raw = verdict["archive_head"], verdict["body_sha256"], verdict["file"], verdict["raw_sha256"]
            received, seat, source = verdict["received_at"], verdict["seat"], verdict["source"]
            every = "".join((head, body, file, raw, received, seat, source, sender or "", *problems))  # (TypeError: not text)
        except (KeyError, TypeError):
            pass
        else:
            if every.isprintable() and '"' not in every and "\\" not in every:  # nothing JSON escapes
                listed = '"' + '","'.join(problems) + '"' if problems else ""
                said = "null" if sender is None else f'"{sender}"'
                text = (f'{{"archive_head":"{head}","body_sha256":"{body}","file":"{file}","problems":[{listed}],"raw_sha256":"{raw}",'
                        f'"received_at":"{received}","seat":"{seat}","sender":{said},"seq":{seq},"source":"{source}"}}\n')
            else:
                enc = _encode_string
                text = _VERDICT.replace('"%s"', "%s") % (
                    enc(head), enc(body), enc(file), ",".join(map(enc, problems)), enc(raw), enc(received), enc(seat),
                    "null" if sender is None else enc(sender), seq, enc(source))
            return text.encode("utf-8")
    return canonical(verdict) + b"\n"


_VERDICT = ('{"archive_head":"%s","body_sha256":"%s","file":"%s","problems":[%s],"raw_sha256":"%s","received_at":"%s",'
            '"seat":"%s","sender":%s,"seq":%d,"source":"%s"}\n')
_encode_string = json.encoder.encode_basestring  # (what canonical's encoder escapes strings with)


def _accept_request(camp: Campaign, folder: Path, doc: OrderDocument, cand: Candidate, now: datetime, phase: Phase) -> Verdict:
    """Store a signed request (pause, resume, resend) and act on it once enough seats agree."""
    assert cand.raw is not None and doc.request is not None  # a parsed request has its bytes
    rdir = folder / "requests"
    kind = doc.request["kind"]
    tag = _key_tag(camp, doc.player, doc.key_id)
    name = f"{doc.player}.{kind}.{doc.seq:06d}{tag}.yaml"
    # seqs compare among the requests signed by the seat's current key only (see _key_tag)
    earlier = [int(p.name.split(".")[2]) for p in rdir.glob(f"{doc.player}.*.yaml") if _tag_of(p.name) == tag] if rdir.is_dir() else []
    if (rdir / name).is_file() and (rdir / name).read_bytes() == cand.raw:
        return Verdict(cand.source, True, "already accepted", doc.player, doc.seq, duplicate=True, request=kind)
    if earlier and doc.seq <= max(earlier):
        exc = said(OrderError, N_("seq %(seq)s is not above your last request's seq %(best)s; this looks like a replay"),
                   field="seq", seq=doc.seq, best=max(earlier))
        return _refuse(camp, cand, str(exc.located(cand.source)), error=exc, verified=_sent_by_signer(doc, cand, camp.roster()))
    atomic.write_bytes(rdir / name, cand.raw)
    # on disk before anything acts on it (a record cites the stored request), and so every
    # request stored before this one is on disk for the look-ups above
    atomic.commit()
    if kind == "resend":
        from pbem.core.resend import resend

        resend(camp, doc.player, sha256_hex(cand.raw)[:24])
    if kind in ("pause", "resume"):
        roster = camp.roster()
        latest: dict[str, tuple[str, Path]] = {}
        for p in sorted(rdir.glob("*.yaml"), key=lambda p: int(p.name.split(".")[2])):  # each seat's latest last
            seat, rkind = p.name.split(".")[:2]
            if rkind in ("pause", "resume") and seat in roster and _tag_of(p.name) == _key_tag(camp, seat, roster[seat].key.sign_id):
                latest[seat] = (rkind, p)
        agreeing = {seat: p for seat, (rkind, p) in latest.items() if rkind == kind}
        paused = gm.pause_in_force(camp) is not None
        if gm.majority(len(agreeing), len(roster)) and paused == (kind == "resume"):
            body: dict[str, Any] = {
                "kind": kind, "phase": phase.id, "phase_number": camp.phase_number(),
                # each signed request is carried in the record too, so a public copy of the
                # archive proves the majority ('pbem audit --public')
                "requests": {seat: _cited_request(camp, p) for seat, p in sorted(agreeing.items())},
                "resolved_at": format_time(now),
            }
            if kind == "resume":
                since = gm.pause_in_force(camp)
                assert since is not None
                body["seconds"] = max(0, int((now - parse_time(since.since)).total_seconds()))
            replies.notify(camp, camp.append_record(body)["index"])
    return Verdict(cand.source, True, f"{kind} request accepted", doc.player, doc.seq, request=kind)


def _cited_request(camp: Campaign, path: Path) -> dict[str, str]:
    raw = path.read_bytes()
    cited = {"file": str(path.relative_to(camp.root)), "sha256": sha256_hex(raw)}
    try:
        cited["text"] = raw.decode("utf-8")
    except UnicodeDecodeError:  # a file in another encoding stays in orders/ only
        pass
    return cited


def _doc_name(seat: str, seq: int, tag: str = "") -> str:
    return f"{seat}.{seq:06d}{tag}.yaml"


def _tag_of(name: str) -> str:
    """The key tag in a stored file name (``SEAT.KIND.SEQ[.TAG].yaml``)."""
    parts = name.split(".")
    return "." + parts[3] if len(parts) == 5 else ""


def _stored_problems(folder: Path, doc: OrderDocument, name: str) -> list[str]:
    try:
        return list(json.loads(atomic.read_bytes(folder / (name + ".verdict.json")) or b"")["problems"])
    except (KeyError, ValueError):
        return []


def _identify(camp: Campaign, roster: Roster, doc: OrderDocument) -> None:
    """The file is for this campaign and signed by the roster key of the seat it names."""
    if doc.campaign != camp.id:
        raise OrderError(f"this file is for campaign '{echo(doc.campaign)}', not '{camp.id}'", line=doc.line_of("campaign"), field="campaign")
    nonce = doc.data.get("nonce")
    if nonce is not None and nonce != camp.nonce:
        raise said(OrderError, N_(
            "this file is for another campaign named '%(campaign)s' (its nonce is %(nonce)s, this campaign's is %(ours)s); "
            "use the order form or order page of this campaign's latest report"),
            line=doc.line_of("nonce"), field="nonce", campaign=camp.id, nonce=echo(str(nonce))[:40], ours=camp.nonce)
    seat = roster.get(doc.player)
    if seat is None:
        raise OrderError(f"'{echo(doc.player)}' is not a player of this campaign (players: {', '.join(roster)})", line=doc.line_of("player"), field="player")
    verify_signature(doc, seat.key)


def _check(camp: Campaign, run: _Run, doc: OrderDocument, cand: Candidate, now: datetime) -> Phase:
    """A verified file (whose envelope, a request's kind included, fits the envelope schema) may
    be taken now: the campaign's nonce, the open phase, before the deadline. Returns the phase
    the file is for (the one waiting)."""
    phase = run.phase
    if doc.orders is not None and doc.data.get("nonce") is None and run.nonce_required:
        raise said(OrderError, N_("the field 'nonce' is missing: every order file of this campaign carries its nonce. "
                                  "Add the line 'nonce: %(nonce)s' below 'campaign:' (your order form and the start report give it), "
                                  "then sign the file again"),
                   line=doc.line_of("campaign"), field="nonce", nonce=camp.nonce)
    if phase is None:
        raise said(OrderError, N_("the game is over; no more orders are taken"), field="phase")
    if doc.phase != phase.id:
        if doc.phase in run.resolved_ids:
            raise said(OrderError, N_("phase '%(phase)s' is already resolved; the current phase is '%(current)s'"),
                       line=doc.line_of("phase"), field="phase", phase=echo(doc.phase), current=phase.id)
        raise said(OrderError, N_("phase '%(phase)s' is not open; the current phase is '%(current)s'"),
                   line=doc.line_of("phase"), field="phase", phase=echo(doc.phase), current=phase.id)
    opened = doc.data.get("opened")
    if opened is not None and opened != run.opened:
        # the file was signed from the order form of an earlier opening of this phase
        raise said(OrderError, N_("this file was written for phase '%(phase)s' as reopened by record %(opened)s, but the phase now "
                                  "waits as opened by record %(now)s; sign the order form of the latest report or notice"),
                   line=doc.line_of("opened"), field="opened", phase=phase.id, opened=opened, now=run.opened)
    assert run.deadline is not None  # a phase waits
    deadline = run.deadline
    arrived = cand.received or now
    pause = run.pause
    if pause is not None:  # the time paused so far does not count (a resume record adds it for good)
        deadline += max(timedelta(0), arrived - parse_time(pause.since))
    if arrived > deadline:
        raise said(OrderError, N_("the orders arrived at %(arrived)s, after the deadline %(deadline)s of phase '%(phase)s'"),
                   field="phase", arrived=arrived, deadline=deadline, phase=phase.id)
    if doc.entropy_commit is None and doc.request is None:  # a request, published whole, carries no entropy
        raise said(OrderError, N_("'entropy_commit' is missing; sign the file with 'pbem sign', which fills it"), field="entropy_commit")
    return phase


def screen(game: Any, state: dict[str, Any], phase: Any, doc: OrderDocument) -> list[str]:
    """What intake does with the orders of a file for the phase waiting: the shape of the
    round's schema first (raises :class:`~pbem.core.shape.ShapeError`), then the game's own
    checks (the problems reported to the player)."""
    shape.check_orders(game.name, phase.kind, doc.orders, doc.source, doc.line_of)
    return _validate(game, state, phase, doc)


def _validate(game: Any, state: dict[str, Any], phase: Phase, doc: OrderDocument) -> list[str]:
    problems: list[str] = []
    for power, orders in sorted(doc.orders.items()):
        if game.seat_of(state, power) != doc.player:
            problems.append(f"orders.{power}: you do not command {power} now; these orders are ignored")
            continue
        for problem in game.validate(state, power, orders):
            path = problem.path if problem.path.startswith("orders.") else f"orders.{power}.{problem.path}".rstrip(".")
            line = doc.line_of(path)
            problems.append(f"line {line}: {path}: {problem.message}" if line else f"{path}: {problem.message}")
    return problems


def _reveal_problem(commits: dict[str, str], doc: OrderDocument) -> list[str]:
    """The file does not reveal the entropy its seat committed to in an earlier phase (``commits``:
    each seat's outstanding commitment): it will not count (the seat's defaults are played),
    though its new commitment will."""
    expected = commits.get(doc.player)
    reveal = doc.entropy_reveal
    # (the envelope's shape, checked before, makes a reveal an even number of hex digits)
    if expected is None or (reveal is not None and sha256_hex(bytes.fromhex(reveal)) == expected):
        return []
    return [f"entropy_reveal: {'missing' if reveal is None else 'does not open'} your commitment {expected[:16]}… of an earlier phase; "
            "this file's orders will not count (your defaults are played) unless a file with a higher seq reveals it. "
            "pbem sign and the order page keep the value beside your key"]


def _signed_by_sender(doc: OrderDocument, cand: Candidate, roster: Roster) -> bool:
    """False when the file is signed by a key other than the roster key of the seat whose address
    the mail comes from: the From line is then forged (or the key is someone else's), and even a
    fixed-text reply would let a stranger make pbem mail that player."""
    sender = (cand.sender or "").lower()
    seats = [s for s in roster.values() if s.email.lower() == sender]
    return not seats or any(s.key.sign_id == doc.key_id for s in seats)


def _sent_by_signer(doc: OrderDocument, cand: Candidate, roster: Roster) -> bool:
    """True when the file (verified against the roster key of ``doc.player``) came from that
    seat's own address: only then may a reply say more than a fixed text. A file with another
    seat's signature, or a From line that is not the signer's, may be a forgery."""
    seat = roster.get(doc.player)
    return seat is not None and (cand.sender or "").lower() == seat.email.lower()


def _refuse(camp: Campaign, cand: Candidate, message: str, error: PbemError | None = None, verified: bool = False,
            reply: bool = True) -> Verdict:
    # a refusal quotes what the file says (a campaign id, a key): keep it one printable line, so
    # a file cannot forge verdict lines in intake's output (nor reorder it with bidi controls)
    message = one_line(message)
    atomic.write_if_changed(
        camp.refused_dir / f"{cand.key[:20]}.json",
        canonical({"source": cand.source, "sender": cand.sender, "reason": message}) + b"\n",
    )
    return Verdict(cand.source, False, message, verified=verified, reply=reply, error=error)


def _internal(camp: Campaign, cand: Candidate, exc: Exception) -> Verdict:
    """Refuse a file whose checking raised: the player is told it could not be checked (a
    fixed text), the GM sees the error in the refusal record, listed by ``pbem status``."""
    import traceback

    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    detail = f"{type(exc).__name__}: {exc}"[:200] + (f" ({Path(where.filename).name} line {where.lineno})" if where else "")
    error = said(OrderFileError, replies.INTERNAL_ERROR)
    message = one_line(f"{cand.source}: {error.message} [internal error {detail}]")
    atomic.write_if_changed(
        camp.refused_dir / f"{cand.key[:20]}.json",
        canonical({"source": cand.source, "sender": cand.sender, "reason": message, "internal": True}) + b"\n",
    )
    return Verdict(cand.source, False, message, internal=True, error=error)


def internal_refusals(camp: Campaign) -> list[str]:
    """The refusal records of files whose checking raised, for ``pbem status``."""
    out = []
    for path in sorted(camp.refused_dir.glob("*.json")) if camp.refused_dir.is_dir() else []:
        try:
            rec = json.loads(path.read_bytes())
        except ValueError:
            continue
        if isinstance(rec, dict) and rec.get("internal"):
            out.append(f"{path.relative_to(camp.root)}: {rec.get('reason', '')}")
    return out


def _reply(camp: Campaign, run: _Run, cand: Candidate, verdict: Verdict, phase_id: str) -> None:
    """The answer to an accepted file (its receipt or request receipt), in the seat's language."""
    assert verdict.seat is not None and verdict.seq is not None  # an accepted file names both
    seat = run.roster[verdict.seat]
    if verdict.request:
        replies.request_receipt(camp, seat, cand, kind=verdict.request, seq=verdict.seq, phase_id=phase_id)
        return
    stored = verdict.stored  # the verdict just written (no need to read it back)
    new = stored is not None  # accepted now: its file, and so its receipt, did not exist before
    if stored is None:
        # A duplicate queues its receipt again: the same bytes under the same name, so a plain
        # rerun changes nothing, and a rerun after a crash between verdict and receipt sends it.
        path = run.folder / _doc_name(verdict.seat, verdict.seq, _key_tag(camp, verdict.seat, seat.key.sign_id))
        if verdict.duplicate and atomic.read_bytes(path) != cand.raw:
            return
        stored = json.loads(atomic.read_bytes(path.with_name(path.name + ".verdict.json")) or b"")
    # the orders as intake's own loader read them (no second parse of the stored file)
    understood = dump_block(verdict.orders)
    replies.receipt(camp, seat, cand, phase_id=phase_id, seq=verdict.seq, body_hash=stored["body_sha256"],
                    raw_hash=stored["raw_sha256"], pin=str(stored.get("archive_head", run.pin)),
                    problems=verdict.problems, understood=understood, new=new, sent=run.sent)
