"""The :class:`~pbem.games.base.Game` interface of Maria, over the rules modules."""

from __future__ import annotations

from typing import Any

from pbem.common.fair import PhaseRng, Rng
from pbem.games.base import OrderProblem, Phase, Resolution, Secret
from pbem.games.maria import adjudicate, autopilot, bots, model, orders, views


class MariaGame:
    """Maria: the introductory game and the advanced game (politics, both maps)."""

    name = "maria"
    # how the reports and order pages show the game: found by the registry on first use
    presentation = "pbem.render.maria:PRESENTATION"

    def scenarios(self) -> tuple[str, ...]:
        """The shipped scenarios."""
        return ("intro", "advanced")

    def seats(self, scenario: str, options: dict[str, Any] | None = None) -> tuple[str, ...]:
        """Three players, or two with ``game.players: two`` (M1.2)."""
        if (options or {}).get("game.players") == "two":
            return model.SEATS_TWO
        return model.SEATS_THREE

    def new_game(self, scenario: str, options: dict[str, Any], rng: PhaseRng) -> dict[str, Any]:
        """The state before the set-up round."""
        return adjudicate.new_game(scenario, options, rng)

    def current_phase(self, state: dict[str, Any]) -> Phase | None:
        """The round waiting for orders, or None once the game is over."""
        return adjudicate.current_phase(state)

    def seat_of(self, state: dict[str, Any], power: str) -> str | None:
        """The seat that plays ``power`` now (M1.2)."""
        return model.seat_of(state, power)

    def validate(self, state: dict[str, Any], power: str, orders_: Any) -> list[OrderProblem]:
        """Problems of one power's orders in the current round."""
        return orders.validate(state, power, orders_)

    def default_orders(self, state: dict[str, Any], power: str) -> dict[str, Any]:
        """M12.6 defaults."""
        return orders.default_orders(state, power)

    def resolve(self, state: dict[str, Any], orders_: dict[str, Any], rng: PhaseRng
                ) -> Resolution:
        """Resolve the current round and run on to the next that needs orders (M12.12)."""
        return adjudicate.resolve(state, orders_, rng)

    def view(self, state: dict[str, Any], audience: str) -> dict[str, Any]:
        """What ``audience`` may see (M11)."""
        return views.view(state, audience)

    def secrets(self, state: dict[str, Any]) -> list[Secret]:
        """Hands, troops and the draw pile (M11)."""
        return views.secrets(state)

    def legal_orders(self, state: dict[str, Any], power: str) -> dict[str, Any]:
        """The legal choices of ``power`` now."""
        return bots.legal_orders(state, power)

    def bot_orders(self, state: dict[str, Any], power: str, rng: Rng) -> dict[str, Any]:
        """Random legal orders."""
        return bots.bot_orders(state, power, rng)

    def autopilot_orders(self, state: dict[str, Any], power: str, rng: Rng) -> dict[str, Any]:
        """Orders that play to win for the power's seat, from what that seat knows."""
        return autopilot.autopilot_orders(state, power, rng)

    def result(self, state: dict[str, Any]) -> dict[str, Any] | None:
        """``{winner, player, reason}`` once the game is over (M10)."""
        return state.get("result")

    def run_case(self, case: dict[str, Any]) -> list[str]:
        """Run one adjudication case (tests/cases/README.md)."""
        from pbem.games.maria.casefmt import run_case

        return run_case(case)
