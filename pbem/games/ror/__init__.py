"""The Republic of Rome: the revolution phase, civil war and end of game.

``GAME`` implements :class:`pbem.games.base.Game`. Powers are faction ids; each faction is
played by one seat (its ``player``). Module map, in the sequence of play: ``model`` (state and
shared helpers), ``setup`` (scenario states), ``turn`` (the minimal rest of the turn, R9, and
the sequence), ``revolution`` (R2), ``civil_war`` (R3, R4), ``loyalty`` (R4.1-R4.2),
``maintenance`` (R5), ``combat`` (R6, R7.7-R7.8), ``mortality`` (R9.3-R9.4), ``victory`` (R7),
``orders`` (R8), ``views``, ``bots``, ``adjudicate``.
"""

from __future__ import annotations

from typing import Any

from pbem.common.fair import PhaseRng, Rng
from pbem.games.base import OrderProblem, Phase, Resolution, Secret
from pbem.games.ror import adjudicate, autopilot, bots, orders, views
from pbem.games.ror.model import State
from pbem.games.ror.setup import _scenario_raw, scenario_names


class RorGame:
    """The Game protocol for the revolution module."""

    name = "ror"
    # how the reports and order pages show the game: found by the registry on first use
    presentation = "pbem.render.ror:PRESENTATION"

    def scenarios(self) -> tuple[str, ...]:
        """Scenarios shipped under seeds/ror/scenarios."""
        return scenario_names()

    def seats(self, scenario: str, options: dict[str, Any] | None = None) -> tuple[str, ...]:
        """One seat per faction, in seating order (options do not change the seats)."""
        st = _scenario_raw(scenario)["state"]
        factions = st["factions"]
        order = st.get("seating") or list(factions)
        return tuple(str(factions[f].get("player", str(f).lower())) for f in order)

    def new_game(self, scenario: str, options: dict[str, Any], rng: PhaseRng) -> State:
        """The scenario's state, run on to its first round."""
        return adjudicate.new_game(scenario, options, rng)

    def current_phase(self, state: State) -> Phase | None:
        """The round waiting for orders; ``powers`` are the factions that must send."""
        if state.get("game_result") is not None or not state.get("awaiting"):
            return None
        w = state["awaiting"]
        return Phase(w["round"], w["kind"], tuple(w["powers"]), w["kind"])

    def seat_of(self, state: State, power: str) -> str | None:
        """The player of a faction."""
        f = state["factions"].get(power)
        return None if f is None else str(f["player"])

    def validate(self, state: State, power: str, orders_: Any) -> list[OrderProblem]:
        """Problems of a faction's orders (paths into the YAML)."""
        return orders.validate_orders(state, power, orders_)

    def default_orders(self, state: State, power: str) -> dict[str, Any]:
        """R8.4 defaults."""
        return orders.default_orders(state, power)

    def resolve(self, state: State, orders_: dict[str, Any], rng: PhaseRng) -> Resolution:
        """Resolve the waiting round (every die from ``rng.public``)."""
        return adjudicate.resolve(state, orders_, rng)

    def view(self, state: State, audience: str) -> dict[str, Any]:
        """``public`` or one seat's view."""
        return views.view(state, audience)

    def legal_orders(self, state: State, power: str) -> dict[str, Any]:
        """Legal choices for forms and bots."""
        return orders.legal_orders(state, power)

    def bot_orders(self, state: State, power: str, rng: Rng) -> dict[str, Any]:
        """Random legal orders."""
        return bots.bot_orders(state, power, rng)

    def autopilot_orders(self, state: State, power: str, rng: Rng) -> dict[str, Any]:
        """Orders played to win for an absent faction, from what its seat knows (autopilot)."""
        return autopilot.autopilot_orders(state, power, rng)

    def secrets(self, state: State) -> list[Secret]:
        """Hands and Faction Treasuries (each seen by its player), and the deck if any."""
        out = []
        for fid in state["seating"]:
            f = state["factions"][fid]
            out.append(Secret(f"hand:{fid}", str(f["player"]), list(f["hand"])))
            out.append(Secret(f"faction_treasury:{fid}", str(f["player"]),
                              f["faction_treasury"]))
        if state.get("deck"):
            out.append(Secret("deck", None, list(state["deck"])))
        return out

    def result(self, state: State) -> dict[str, Any] | None:
        """The R7 outcome, or None while the game goes on."""
        return state.get("game_result")

    def run_case(self, case: dict[str, Any]) -> list[str]:
        """Run one adjudication case (tests/cases/ror/README.md)."""
        return adjudicate.run_case(case)


GAME = RorGame()
