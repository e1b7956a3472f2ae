"""The working context of one resolution: the state being changed, the board, chance and the
events written so far. Every rules module takes a :class:`Ctx`; only ``adjudicate`` makes one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.common.fair import PhaseRng
from pbem.games.maria import model
from pbem.games.maria.geography import Board


@dataclass
class Ctx:
    """State, board, rng and event log of one resolution."""

    state: dict[str, Any]
    board: Board
    rng: PhaseRng
    events: list[dict[str, Any]] = field(default_factory=list)

    def event(self, type_: str, audience: str | None = None, **fields: Any) -> dict[str, Any]:
        """Append an event; ``audience`` (a seat) makes it private to that seat."""
        ev: dict[str, Any] = {"type": type_, **fields}
        if audience is not None:
            ev["audience"] = audience
        self.events.append(ev)
        return ev

    def private(self, power: str, type_: str, **fields: Any) -> None:
        """An event only the seat playing ``power`` sees (a neutral power's go nowhere)."""
        seat = model.seat_of(self.state, power)
        self.event(type_, audience=seat or "nobody", power=power, **fields)

    def void(self, power: str, where: str, reason: str) -> None:
        """A VOID order, reported only to its sender (M12.2)."""
        self.private(power, "void", order=where, reason=reason)

    def opt(self, key: str) -> Any:
        """A rule option of this game."""
        return self.state["options"][key]

    @property
    def stage(self) -> dict[str, Any]:
        """The scratch record of the current stage (moved pieces, beaten generals, pending
        conquests); reset at each stage's step (a)."""
        record: dict[str, Any] = self.state["stage_record"]
        return record
