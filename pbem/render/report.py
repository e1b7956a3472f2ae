"""Report contexts: pure functions from views, events and archive records to template contexts.

Nothing here reads a file, a clock or a full game state. What a report may show reaches these
functions only as

- a view (``game.view(state, audience)``, M11: the one road from state to a report),
- events already filtered for the audience (:func:`visible_events`),
- the public fields of archive records (commitments, chain keys, players' entropy reveals), and
- for a private report, the seat's own secrets with the salts that open their commitments.

:mod:`pbem.core.publish` gathers those from a campaign folder and renders the templates.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.common.canonical import canonical
from pbem.common.fair import phase_seed
from pbem.games import presentation

PUBLIC = "public"


def visible_events(events: Iterable[Mapping[str, Any]], audience: str) -> list[dict[str, Any]]:
    """The events ``audience`` may read, in order.

    An event with no ``audience`` is public. One with ``audience: <seat>`` (or a list of seats)
    goes to those seats only; the public audience never gets it (M12.2: a VOID order is told
    only to its sender)."""
    out = []
    for ev in events:
        who = ev.get("audience")
        if who is None or (audience != PUBLIC and (who == audience or (isinstance(who, list) and audience in who))):
            out.append(dict(ev))
    return out


def story(events: Iterable[Mapping[str, Any]], game: str) -> list[dict[str, Any]]:
    """``events`` in the order a player follows them, as the game's presentation tells them
    (Maria's regroups what a move did on its way under that move); a copy."""
    return presentation(game).story(list(events))


@dataclass(frozen=True)
class NextPhase:
    """The phase after this one: who must send what, by when."""

    id: str
    kind: str
    deadline: str | None
    senders: tuple[tuple[str, tuple[str, ...]], ...]  # (seat, powers)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "kind": self.kind, "deadline": self.deadline,
            "senders": [{"seat": s, "powers": list(p)} for s, p in self.senders],
        }


def next_phase(phase: Any, seat_of: Mapping[str, str | None], deadline: str | None) -> NextPhase | None:
    """Who must send orders in ``phase`` (a :class:`~pbem.games.base.Phase`, or ``None`` once the
    game is over), grouped by seat; ``seat_of`` maps each of its powers to the seat that plays it."""
    if phase is None:
        return None
    by_seat: dict[str, list[str]] = {}
    for power in phase.powers:
        seat = seat_of.get(power)
        if seat is not None:
            by_seat.setdefault(seat, []).append(power)
    return NextPhase(phase.id, phase.kind, deadline, tuple((s, tuple(p)) for s, p in sorted(by_seat.items())))


def chain_check(record: Mapping[str, Any], previous_key: str, previous_label: str) -> dict[str, str]:
    """The public hash-chain key of a phase, the key it must hash to, and a command that checks it."""
    key = record["public_key"]
    return {
        "key": key,
        "previous": previous_key,
        "previous_label": previous_label,
        "command": f"python3 -c \"import hashlib;print(hashlib.sha256(bytes.fromhex('{key}')).hexdigest())\"",
        "ok": "yes" if hashlib.sha256(bytes.fromhex(key)).hexdigest() == previous_key else "no",
    }


def commitments_table(record: Mapping[str, Any]) -> list[dict[str, str]]:
    """The phase's commitments, sorted by label."""
    return [{"label": k, "hash": v} for k, v in sorted(record.get("commitments", {}).items())]


def entropy_table(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each seat's entropy reveal of the phase and whether it matched its commitment."""
    return [
        {"seat": seat, "status": e.get("status", ""), "reveal": e.get("reveal"), "used": e.get("used")}
        for seat, e in sorted(record.get("entropy", {}).items())
    ]


def opening(label: str, commitment: str | None, value: Any, salt: str) -> dict[str, str | None]:
    """What opens one commitment: the canonical value, the salt and a shell line that checks it."""
    text = canonical(value).decode("utf-8")
    preimage = f"{label}|{text}|{salt}"
    return {
        "label": label,
        "commitment": commitment,
        "value": text,
        "salt": salt,
        "command": "printf '%s' '" + preimage.replace("'", "'\\''") + "' | sha256sum",
    }


def dice_section(record: Mapping[str, Any], events: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The dice of a phase and how to check them, or ``None`` if no ``die`` event is shown.

    Every die comes from the phase's public stream (:func:`pbem.common.fair.phase_seed` of the
    chain key, the phase id and the players' entropy mix), so printing its seed lets anyone
    recompute each roll with ``sha256sum`` (README, "Checking a die roll by hand")."""
    rolls = [{"purpose": str(e.get("purpose", "")), "value": e.get("value")} for e in events if e.get("type") == "die"]
    if not rolls or "public_key" not in record or "entropy_mix" not in record:
        return None
    seed = phase_seed("public", bytes.fromhex(record["public_key"]), record["phase"], bytes.fromhex(record["entropy_mix"])).hex()
    return {
        "seed": seed,
        "rolls": rolls,
        "command": f"printf '{seed}0000000000000000' | xxd -r -p | sha256sum",
    }


def archive_section(
    record: Mapping[str, Any],
    pin: str,
    create: Mapping[str, Any],
    roster_changes: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """What a report says about the archive it was made from: its pin (``record N sha256:HASH``,
    which ``pbem audit --pin`` checks), the order files the phase used (seat, seq, hash of the
    file as received, as each receipt shows it), the roster changes since the previous report,
    and in the start report the values fixed before anyone sent entropy (the hash-chain anchor,
    the commitment to the secret key and the campaign nonce that every order file carries)."""
    start = None
    if record["kind"] == "create":
        start = {"anchor": create.get("public_anchor"), "commitment": create.get("secret_commitment"), "nonce": create.get("nonce")}
    return {
        "pin": pin,
        "start": start,
        "orders": [{"seat": seat, "seq": u.get("seq"), "sha256": u.get("sha256")} for seat, u in sorted(record.get("orders", {}).items())],
        "withheld": [seat for seat, e in sorted(record.get("entropy", {}).items()) if e.get("status") == "withheld"],
        "roster": [{"index": r["index"], "seat": r["seat"], "key": r["entry"]["key"]} for r in roster_changes],
    }


def phase_header(campaign: str, game: str, record: Mapping[str, Any], key: str, played: str | None = None) -> dict[str, Any]:
    """The identity of the phase a report covers. ``game`` names the templates; ``played`` the
    game the campaign plays, which the heading shows (the rounds before the deal use pbem's own
    templates but belong to the campaign's game)."""
    kind = record["kind"]
    return {
        "campaign": campaign,
        "game": game,
        "played": played or game,
        "kind": kind,
        "id": record.get("phase") if kind == "phase" else None,
        "number": record.get("phase_number", 0),
        "key": key,
        "resolved_at": record.get("resolved_at") or record.get("opened_at"),
        # powers with no orders: the autopilot's (their seats missed too many deadlines) and
        # those that played the rules' default orders
        "autopilot": list(record.get("autopilot", [])),
        "defaults": [p for p in record.get("defaults", []) if p not in record.get("autopilot", [])],
    }


def public_context(
    *,
    header: Mapping[str, Any],
    view: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    record: Mapping[str, Any],
    chain: Mapping[str, str] | None,
    upcoming: NextPhase | None,
    map_svg: str | None,
    result: Mapping[str, Any] | None,
    archive: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The context of a phase's public report. ``events`` must already be public
    (:func:`visible_events` with ``public``); ``archive`` is :func:`archive_section`."""
    return {
        "archive": dict(archive) if archive else None,
        "phase": dict(header),
        "game": header["game"],
        "view": view,
        "events": story(events, header["game"]),
        "commitments": commitments_table(record),
        "entropy": entropy_table(record),
        "dice": dice_section(record, events),
        "chain": dict(chain) if chain else None,
        "next": upcoming.as_dict() if upcoming else None,
        "map_svg": map_svg,
        # a mail's HTML shows the map as images and names the attachment that holds the SVG
        "map_images": [],
        "order_page": None,
        "order_form": None,
        "map_page": None,
        "result": dict(result) if result else None,
        "audience": PUBLIC,
    }


def private_context(
    public: Mapping[str, Any],
    *,
    seat: str,
    view: Mapping[str, Any],
    own_events: Sequence[Mapping[str, Any]],
    openings: Sequence[Mapping[str, Any]],
    form: str | None,
    map_svg: str | None,
) -> dict[str, Any]:
    """The context of ``seat``'s private report: the public context, with the seat's own view,
    its private events (those addressed to it alone), the openings of the commitments to its
    secrets and its pre-filled order form."""
    ctx = dict(public)
    ctx.update({
        "audience": seat,
        "seat": seat,
        "view": view,
        "public_view": public["view"],
        "private_events": [dict(e) for e in own_events if e.get("audience") is not None],
        "openings": [dict(o) for o in openings],
        "form": form,
        "map_svg": map_svg if map_svg is not None else public.get("map_svg"),
    })
    return ctx


def form_context(
    *,
    campaign: str,
    game: str,
    seat: str,
    phase: NextPhase,
    powers: Sequence[str],
    legal: Mapping[str, Any],
    defaults: Mapping[str, Any],
    schema: str,
    nonce: str | None = None,
) -> dict[str, Any]:
    """The context of an order form for ``seat``'s ``powers`` in ``phase``."""
    return {
        "campaign": campaign,
        "nonce": nonce,
        "game": game,
        "seat": seat,
        "phase": phase.as_dict(),
        "powers": list(powers),
        "legal": {p: legal[p] for p in powers},
        "defaults": {p: defaults[p] for p in powers},
        "schema": schema,
    }


def map_highlights(events: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """What the map of a phase highlights: every move's path and every battle's city (from the
    public events, so a highlight never shows more than the report says)."""
    paths: list[list[str]] = []
    battles: list[str] = []
    for ev in events:
        if ev.get("type") == "move" and isinstance(ev.get("path"), list) and len(ev["path"]) > 1:
            paths.append([str(c) for c in ev["path"]])
        elif ev.get("type") == "battle":
            # a battle is fought where the defender stands (M5)
            city = ev.get("city") or (ev.get("defender") or {}).get("city")
            if city and city not in battles:
                battles.append(str(city))
    return {"paths": paths, "battles": battles}


def site_index_context(campaign: str, game: str, phases: Sequence[Mapping[str, Any]], end: Mapping[str, Any] | None) -> dict[str, Any]:
    """The context of the history site's index page."""
    return {"campaign": campaign, "game": game, "phases": [dict(p) for p in phases], "end": dict(end) if end else None}


def phase_summary(game: str, events: Sequence[Mapping[str, Any]], view: Mapping[str, Any]) -> dict[str, Any]:
    """What a history-site phase page says first (the phase's battles, conquests and who leads),
    from the game's presentation; ``events`` must be public. A game without one gets empty lists."""
    return presentation(game).phase_summary(events, view)
