"""The deal waits for the players' entropy (``pbem new --entropy-first``, the default).

A campaign made this way draws nothing at creation. Record 0 publishes the public hash-chain
anchor, the commitment to the secret key and the campaign nonce, and its state is the *lobby*:
two rounds that every seat plays like any other phase, with an empty order form that
``pbem sign`` (or the order page) fills with entropy:

1. ``deal/commit``: each seat's file commits to a fresh value (``entropy_commit``);
2. ``deal/reveal``: each seat's file reveals it (and commits the value its first orders reveal).

Resolving ``deal/reveal`` makes the deal: the game's ``new_game`` draws from that phase's streams,
whose seeds mix every reveal (:func:`pbem.common.fair.phase_rng`), so the GM, who fixed the seed
before anyone committed, cannot try seeds until a deal pleases him, and a player cannot choose
a value after seeing the others. The rounds are phases of the archive: intake, deadlines,
receipts, reports, the audit's replay and ``pbem audit --public`` treat them as they treat
every phase.

:class:`EntropyFirst` wraps the game: for a lobby state it answers itself, for every other state
it hands each call to the game.
"""

from __future__ import annotations

from typing import Any

from pbem.common.catalog import N_
from pbem.common.fair import PhaseRng, Rng
from pbem.games.base import Game, OrderProblem, Phase, Resolution, Secret

LOBBY = "pbem_lobby"
COMMIT, REVEAL = "deal/commit", "deal/reveal"
KIND = "entropy"


def lobby_state(scenario: str, options: dict[str, Any], seats: list[str]) -> dict[str, Any]:
    """The state of a campaign before the deal: the first round (commit) waits."""
    return {LOBBY: {"step": COMMIT, "scenario": scenario, "options": dict(options), "seats": sorted(seats)}}


def is_lobby(state: Any) -> bool:
    return isinstance(state, dict) and LOBBY in state


class EntropyFirst:
    """``game`` with the two entropy rounds before its deal (see the module doc)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.name = game.name

    def __getattr__(self, name: str) -> Any:  # everything not about the lobby is the game's
        return getattr(self.game, name)

    def current_phase(self, state: dict[str, Any]) -> Phase | None:
        if not is_lobby(state):
            return self.game.current_phase(state)
        lobby = state[LOBBY]
        return Phase(lobby["step"], KIND, tuple(lobby["seats"]))

    def seat_of(self, state: dict[str, Any], power: str) -> str | None:
        if not is_lobby(state):
            return self.game.seat_of(state, power)
        return power if power in state[LOBBY]["seats"] else None

    def validate(self, state: dict[str, Any], power: str, orders: Any) -> list[OrderProblem]:
        if not is_lobby(state):
            return self.game.validate(state, power, orders)
        if orders not in ({}, None):
            return [OrderProblem(f"orders.{power}", N_("this round takes no orders: leave it as {}; pbem sign fills in the entropy"))]
        return []

    def default_orders(self, state: dict[str, Any], power: str) -> dict[str, Any]:
        return {} if is_lobby(state) else self.game.default_orders(state, power)

    def legal_orders(self, state: dict[str, Any], power: str) -> dict[str, Any]:
        return {} if is_lobby(state) else self.game.legal_orders(state, power)

    def bot_orders(self, state: dict[str, Any], power: str, rng: Rng) -> dict[str, Any]:
        return {} if is_lobby(state) else self.game.bot_orders(state, power, rng)

    def autopilot_orders(self, state: dict[str, Any], power: str, rng: Rng) -> dict[str, Any]:
        return {} if is_lobby(state) else self.game.autopilot_orders(state, power, rng)

    def secrets(self, state: dict[str, Any]) -> list[Secret]:
        return [] if is_lobby(state) else self.game.secrets(state)

    def result(self, state: dict[str, Any]) -> dict[str, Any] | None:
        return None if is_lobby(state) else self.game.result(state)

    def view(self, state: dict[str, Any], audience: str) -> dict[str, Any]:
        if not is_lobby(state):
            return self.game.view(state, audience)
        lobby = state[LOBBY]
        return {"entropy_round": lobby["step"], "seats": list(lobby["seats"])}

    def resolve(self, state: dict[str, Any], orders: dict[str, Any], rng: PhaseRng) -> Resolution:
        if not is_lobby(state):
            return self.game.resolve(state, orders, rng)
        lobby = state[LOBBY]
        if lobby["step"] == COMMIT:  # every commitment is in the archive now: the reveals may come
            return Resolution({LOBBY: dict(lobby, step=REVEAL)}, [{"type": "entropy_committed"}])
        # the deal: the game's own creation, from streams that mix every seat's reveal
        return Resolution(self.game.new_game(lobby["scenario"], lobby["options"], rng), [{"type": "dealt"}])
