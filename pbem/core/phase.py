"""Resolving a phase: gather the accepted orders, fill in defaults, mix the players' entropy,
call the game, and append the record.

:func:`play` is the one pure function that turns a state plus archived inputs into the next
state; ``pbem resolve`` and ``pbem audit`` both call it, so a replay is the same computation.

Crash safety: the new state and events are written first, the archive record last. The record
is the commit point; a rerun after a crash before it recomputes the same bytes (same inputs,
same seeds, no clock inside) and writes them again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from pbem.common.canonical import canonical, digest, sha256_hex
from pbem.common.fair import H, PhaseRng, Rng, entropy_mix, hash_chain, phase_rng
from pbem.core import atomic, gm
from pbem.core.accepted import Accepted, chosen_documents, outstanding_commits
from pbem.core.campaign import Campaign, derive_keys, format_time
from pbem.core.envelope import parse_order_document
from pbem.core.seal import commit, derive_salt
from pbem.errors import CampaignError
from pbem.games.base import Phase, Resolution


@dataclass
class Inputs:
    """What a phase is resolved from."""

    orders: dict[str, Any]
    defaults: list[str]
    docs: dict[str, dict[str, Any]]
    entropy: dict[str, dict[str, Any]]
    mix: bytes
    missing_seats: list[str] = field(default_factory=list)
    autopilot: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    record: dict[str, Any]
    state: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)


def gather(
    game: Any,
    state: dict[str, Any],
    phase: Phase,
    docs: dict[str, tuple[bytes, str]],
    commits: dict[str, str],
    autopilot: frozenset[str] = frozenset(),
) -> Inputs:
    """Orders per power from the chosen documents (``seat -> (raw bytes, source name)``), default
    orders for every power without them, and the entropy mix. Pure.

    Seats in ``autopilot`` (too many missed deadlines in a row) get the game's bot orders,
    drawn from a stream seeded by the phase's entropy mix, instead of their standing orders."""
    orders: dict[str, Any] = {}
    used: dict[str, dict[str, Any]] = {}
    entropy: dict[str, dict[str, Any]] = {}
    reveals: dict[str, str] = {}
    for seat, (raw, source) in sorted(docs.items()):
        doc = parse_order_document(raw, source)
        used[seat] = {"sha256": sha256_hex(raw), "seq": doc.seq, "entropy_commit": doc.entropy_commit}
        for power, power_orders in sorted(doc.orders.items()):
            # every power the seat controls: an acting power's orders, or standing-order updates
            # and deals of a power that does not act in this round (Maria M12.3)
            if game.seat_of(state, power) == seat:
                orders[power] = power_orders
        expected = commits.get(seat)
        if expected is None:
            continue
        reveal = doc.entropy_reveal
        if reveal is not None and _opens(reveal, expected):
            status, value = "ok", reveal
        else:
            # the reveal is withheld (absent, or it does not open the commitment): the file's
            # orders do not count in this phase, so nobody gains a choice between two outcomes by
            # keeping a value back; its new commitment counts from the next phase
            status, value = "withheld", expected
            for power in [p for p in orders if game.seat_of(state, p) == seat]:
                del orders[power]
        entropy[seat] = {"reveal": reveal, "used": value, "status": status}
        reveals[seat] = value
    for seat, expected in sorted(commits.items()):
        if seat not in entropy and any(game.seat_of(state, p) == seat for p in phase.powers):
            entropy[seat] = {"reveal": None, "used": expected, "status": "no orders"}
            reveals[seat] = expected
    mix = entropy_mix(reveals)
    defaults = [p for p in phase.powers if p not in orders]
    piloted = []
    for power in defaults:
        if game.seat_of(state, power) in autopilot:
            piloted.append(power)
            orders[power] = game.autopilot_orders(state, power, Rng(H(b"pbem|autopilot|" + mix + power.encode())))
        else:
            orders[power] = game.default_orders(state, power)
    missing = sorted({s for p in defaults if (s := game.seat_of(state, p)) is not None and s not in used})
    return Inputs(orders, defaults, used, entropy, mix, missing, piloted)


def _opens(reveal: str, commitment: str) -> bool:
    """Does ``reveal`` (hex) open ``commitment``? A reveal that is not hex does not (it counts
    as wrong, and the committed value is used)."""
    try:
        return sha256_hex(bytes.fromhex(reveal)) == commitment
    except ValueError:
        return False


def autopilot_seats(records: list[dict[str, Any]], after: int) -> frozenset[str]:
    """Seats that missed the last ``after`` deadlines in a row at which they owed orders."""
    if after <= 0:
        return frozenset()
    streak: dict[str, int] = {}
    for rec in records:
        if rec["kind"] != "phase":
            continue
        owed = set(rec.get("missing_seats", [])) | set(rec["orders"])
        for seat in owed:
            streak[seat] = streak.get(seat, 0) + 1 if seat in rec.get("missing_seats", []) else 0
    return frozenset(seat for seat, n in streak.items() if n >= after)


def play(game: Any, state: dict[str, Any], phase: Phase, number: int, inputs: Inputs, seed: bytes,
         chain_index: int | None = None) -> tuple[Resolution, dict[str, Any]]:
    """Resolve the phase and build the record body (without index/prev/time). Pure.

    ``chain_index`` is the key of the public hash chain the phase uses: one more than the phase
    records in the archive, superseded ones included, so a phase reopened by a rollback draws
    with a fresh key that nobody can know before its report (``None``: the phase number, as
    campaigns made before this rule did)."""
    keys = derive_keys(seed)
    index = number if chain_index is None else chain_index
    _chain_length(index)
    chain_key = _chain(keys["public"])[index]
    resolution, rng, voided = resolve_safely(
        game, state, inputs, lambda: _logged(phase_rng(chain_key, keys["secret"], phase.id, inputs.mix)))
    commitments = {
        s.label: commit(s.label, s.value, derive_salt(keys["secret"], f"{number}|{s.label}"))
        for s in game.secrets(resolution.state)
    }
    body = {
        "kind": "phase",
        "phase": phase.id,
        "phase_number": number,
        "orders": inputs.docs,
        "defaults": inputs.defaults,
        "missing_seats": inputs.missing_seats,
        "autopilot": inputs.autopilot,
        "entropy": inputs.entropy,
        "entropy_mix": inputs.mix.hex(),
        "public_key": chain_key.hex(),
        **({} if chain_index is None else {"chain_index": chain_index}),
        "public_draws": rng.public.draws,
        # every draw of the public stream, [n, result]: anyone recomputes them from the chain key
        # and the mix ('pbem audit --public')
        **({} if chain_index is None else {"public_dice": rng.public.log}),
        "commitments": commitments,
        "events_hash": digest(resolution.events),
        "state_hash": digest(resolution.state),
    }
    if voided:
        body["voided"] = voided
    return resolution, body


def _logged(rng: PhaseRng) -> PhaseRng:
    rng.public.log = []
    return rng


INTERNAL = "the rules failed on these orders (internal error {name}); the power's default orders were used"
# what the seat reads in its private report (a VOID event, as for any order the rules refuse)
SET_ASIDE = "pbem could not carry out these orders (an internal error); your default orders were used and the GM has been told"


def resolve_safely(game: Any, state: dict[str, Any], inputs: Inputs, fresh_rng: Callable[[], Any]) -> tuple[Resolution, Any, dict[str, str]]:
    """``game.resolve`` with a safety net: if the rules raise on the orders sent, the phase is
    resolved with one power's orders replaced by its default orders (the first power, in
    sorted order, whose replacement lets the phase resolve), else with every sent order
    replaced. Returns the resolution, the rng it used and ``{power: why}`` for each power whose
    orders were set aside. Pure and deterministic, so a replay of the archive takes the same
    path; shape checks at intake make this a last resort."""
    try:
        rng = fresh_rng()
        return game.resolve(state, inputs.orders, rng), rng, {}
    except Exception as exc:  # noqa: BLE001 - one power's orders must not stop the campaign
        why = INTERNAL.format(name=type(exc).__name__)
    sent = sorted(p for p in inputs.orders if p not in inputs.defaults)
    for power in sent:
        trial = {**inputs.orders, power: game.default_orders(state, power)}
        try:
            rng = fresh_rng()
            return _told(game, state, game.resolve(state, trial, rng), [power]), rng, {power: why}
        except Exception:  # noqa: BLE001, S112 - try the next power
            continue
    trial = {**inputs.orders, **{p: game.default_orders(state, p) for p in sent}}
    rng = fresh_rng()
    return _told(game, state, game.resolve(state, trial, rng), sent), rng, {p: why for p in sent}


def _told(game: Any, state: dict[str, Any], resolution: Resolution, powers: list[str]) -> Resolution:
    """``resolution`` with a VOID event first for each power whose orders were set aside, told
    only to its seat (its private report says so)."""
    told = [{"type": "void", "power": p, "order": "orders", "reason": SET_ASIDE, "audience": seat}
            for p in powers if (seat := game.seat_of(state, p)) is not None]
    return Resolution(resolution.state, told + list(resolution.events))


@lru_cache(maxsize=8)
def _chain(public_seed: bytes) -> list[bytes]:
    from pbem.core.campaign import CHAIN_LENGTH

    return hash_chain(public_seed, CHAIN_LENGTH)


def _chain_length(number: int) -> int:
    from pbem.core.campaign import CHAIN_LENGTH

    if number > CHAIN_LENGTH:
        raise CampaignError(f"phase {number} is past the end of the campaign's hash chain ({CHAIN_LENGTH} phases)")
    return CHAIN_LENGTH


@dataclass
class Due:
    """Whether the waiting phase may be resolved now, and why."""

    phase: Phase | None
    due: bool
    reason: str
    missing: list[str]
    until: datetime | None = None  # not due: when the clock alone makes it due (None: no time does)


def due(camp: Campaign, now: datetime, force: bool = False) -> Due:
    """Is the phase now waiting due: all orders in, deadline passed, or forced?"""
    _, state = camp.current()
    game = camp.game()
    phase = game.current_phase(state)
    if phase is None:
        return Due(None, False, "the game is over", [])
    docs = chosen_documents(camp, camp.phase_number(), phase.id)
    missing = [p for p in phase.powers if not _has_orders(game, state, p, docs)]
    if not missing:
        return Due(phase, True, "every power has sent orders", [])
    if force:
        return Due(phase, True, "forced by the GM", missing)
    pause = gm.pause_in_force(camp)
    if pause is not None:
        return Due(phase, False, f"paused since {pause.since} at the request of {', '.join(pause.seats)}", missing)
    deadline = camp.closing(phase.deadline_kind)
    if now >= deadline:
        owing = sorted({s for p in phase.powers if (s := game.seat_of(state, p)) is not None})
        silent = sorted({s for p in missing if (s := game.seat_of(state, p)) is not None and s not in docs})
        if gm.outage_suspected(camp, silent, owing):
            return Due(phase, False, f"held: {len(silent)} of {len(owing)} players sent nothing ({', '.join(silent)}); "
                       "if this is not a mail outage, confirm with 'pbem resolve --confirm-missing'", missing)
        return Due(phase, True, f"the deadline {format_time(deadline)} has passed", missing)
    return Due(phase, False, f"waiting for {', '.join(missing)} until {format_time(deadline)}", missing, deadline)


def _has_orders(game: Any, state: dict[str, Any], power: str, docs: dict[str, Accepted]) -> bool:
    """A power has orders in when its seat's accepted document gives orders for it."""
    seat = game.seat_of(state, power)
    if seat is None:
        return True
    acc = docs.get(seat)
    return acc is not None and power in parse_order_document(acc.path.read_bytes(), acc.path.name).orders


def resolve(camp: Campaign, now: datetime) -> Outcome:
    """Resolve the phase now waiting (the caller has checked it is due and holds the lock)."""
    rec, state = camp.current()
    game = camp.game()
    phase = game.current_phase(state)
    if phase is None:
        raise CampaignError("the game is over; nothing to resolve")
    number = camp.phase_number()
    chosen = chosen_documents(camp, number, phase.id)
    docs = {seat: (acc.path.read_bytes(), acc.path.name) for seat, acc in chosen.items()}
    records = camp.effective_records()
    autopilot = autopilot_seats(records, int(camp.create_record().get("autopilot_after", 0)))
    inputs = gather(game, state, phase, docs, outstanding_commits(camp.records()), autopilot)
    for seat, acc in chosen.items():
        inputs.docs[seat]["file"] = str(acc.path.relative_to(camp.root))
        inputs.docs[seat]["verdict_sha256"] = sha256_hex(acc.path.with_name(acc.path.name + ".verdict.json").read_bytes())
    chain_index = sum(1 for r in camp.records() if r["kind"] == "phase") + 1
    resolution, body = play(game, state, phase, number, inputs, camp.seed(), chain_index)
    index = len(camp.records())
    camp.write_state(index, resolution.state)
    atomic.write_bytes(camp.states_dir / f"{index:06d}.events.json", canonical(resolution.events) + b"\n", mode=0o600)
    body["resolved_at"] = format_time(now)
    record = camp.append_record(body)
    settle(camp, now)
    return Outcome(record, resolution.state, resolution.events)


def settle(camp: Campaign, now: datetime) -> dict[str, Any] | None:
    """Append the end record (revealing the seed) once the game is over, if it is missing.

    Safe to call at any time; a rerun after a crash between the last phase record and the end
    record completes the job here."""
    records = camp.effective_records()
    if records[-1]["kind"] == "end":
        return None
    _, state = camp.current()
    game = camp.game()
    if game.current_phase(state) is not None:
        return None
    return camp.append_record({"kind": "end", "result": game.result(state), "seed": camp.seed().hex(), "resolved_at": format_time(now)})
