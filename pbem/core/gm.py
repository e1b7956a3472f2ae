"""The tools a GM needs when people are people: extensions, replacements, rollbacks, pauses,
and the outage guard. Each change is a record appended to the archive, so it is part of the
history that ``pbem audit`` checks; nothing is ever deleted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbem.core.accepted import newest_commits, outstanding_commits
from pbem.core.campaign import Campaign, Seat, format_time
from pbem.errors import CampaignError

DEFAULT_OUTAGE_SHARE = 0.5


def extend(camp: Campaign, seconds: int, now: datetime, reason: str = "") -> dict[str, Any]:
    """Move the waiting phase's deadline later by ``seconds``."""
    if seconds <= 0:
        raise CampaignError("an extension must be positive")
    _, state = camp.current()
    phase = camp.game().current_phase(state)
    if phase is None:
        raise CampaignError("the game is over; there is no deadline to extend")
    return _announced(camp, {
        "kind": "extend", "phase": phase.id, "phase_number": camp.phase_number(), "seconds": seconds,
        "reason": reason, "resolved_at": format_time(now),
    })


def replace_player(camp: Campaign, seat: Seat, now: datetime) -> dict[str, Any]:
    """Put a new player (address and key) in a seat. Orders the old player sent for the waiting
    phase no longer count: the new player sends their own."""
    roster = camp.roster()
    if seat.name not in roster:
        raise CampaignError(f"'{seat.name}' is not a seat of this campaign (seats: {', '.join(roster)})")
    return _announced(camp, {"kind": "roster", "seat": seat.name, "entry": seat.to_record(), "resolved_at": format_time(now)})


def rollback(camp: Campaign, phase_id: str, now: datetime) -> dict[str, Any]:
    """Reopen ``phase_id``: append a record that restores the state before it was resolved.

    The records after it stay in the archive, superseded. The reopened phase gets a fresh
    deadline (its full length from now); the orders accepted for it and for later phases are set
    aside (they stay on disk for the audit but no longer count as orders in), so players send new
    ones, with a seq above their old one, from the order form the reopened phase's report is
    mailed again with (``opened``: this record), which makes ``pbem sign`` reveal a fresh value.
    Every player gets a notice; the reports of the phases resolved again are mailed under new
    names (see :mod:`pbem.core.publish`)."""
    live = camp.effective_records()
    target = next((r for r in reversed(live) if r["kind"] == "phase" and r["phase"] == phase_id), None)
    if target is None:
        resolved = [r["phase"] for r in live if r["kind"] == "phase"]
        raise CampaignError(f"phase '{phase_id}' has not been resolved; resolved phases: {', '.join(resolved) or 'none'}")
    before = [r for r in live if "state_hash" in r and r["index"] < target["index"]][-1]
    return _announced(camp, {
        "kind": "rollback", "to": before["index"], "state_of": before.get("state_of", before["index"]),
        "state_hash": before["state_hash"], "reopens": phase_id, "resolved_at": format_time(now),
        # the re-run owes the values committed in the superseded files, not the reveals those
        # records published (with them and the GM's next chain key, the GM would know its dice):
        # each seat's newest commitment, from the newest file the campaign accepted from it
        "fresh_reveals": True,
        "owed": {**outstanding_commits(camp.records()), **newest_commits(camp)},
    })


def _announced(camp: Campaign, record: dict[str, Any]) -> dict[str, Any]:
    """Append ``record`` and queue the notice to every player (see ``replies.notify``)."""
    from pbem.core.replies import notify

    full = camp.append_record(record)
    notify(camp, full["index"])
    return full


def confirm_missing(camp: Campaign, now: datetime) -> dict[str, Any]:
    """The GM's confirmation that the waiting phase may resolve although the outage guard held it."""
    return camp.append_record({"kind": "confirm", "phase_number": camp.phase_number(), "resolved_at": format_time(now)})


@dataclass(frozen=True)
class Pause:
    """A pause in force: who asked for it, and since when."""

    seats: tuple[str, ...]
    since: str


def pause_in_force(camp: Campaign) -> Pause | None:
    """The pause of the waiting phase, if one is in force."""
    pause: Pause | None = None
    number = camp.phase_number()
    for rec in camp.effective_records():
        if rec["kind"] == "pause" and rec["phase_number"] == number:
            pause = Pause(tuple(rec["requests"]), rec["resolved_at"])
        elif rec["kind"] == "resume" and rec["phase_number"] == number:
            pause = None
    return pause


def confirmed(camp: Campaign) -> bool:
    number = camp.phase_number()
    return any(r["kind"] == "confirm" and r["phase_number"] == number for r in camp.effective_records())


def outage_suspected(camp: Campaign, missing_seats: list[str], owing_seats: list[str]) -> bool:
    """True when an unusual share of the seats that owe orders sent nothing (a mail outage?)."""
    share = float(camp.create_record().get("outage_share", DEFAULT_OUTAGE_SHARE))
    if share <= 0:
        return False
    return len(missing_seats) >= 2 and len(missing_seats) >= share * len(owing_seats) and not confirmed(camp)


def majority(count: int, seats: int) -> bool:
    return count * 2 > seats
