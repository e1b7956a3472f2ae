"""The interface between the core and a game.

The core (keys, mail, archive, campaign folder) knows a game only through :class:`Game`.
Everything here is pure: a game never touches files, clocks, mail or global randomness. State is
plain data (dicts, lists, str, int, bool, None) that round-trips through JSON exactly; all chance
comes from the :class:`~pbem.common.fair.PhaseRng` the core hands to ``new_game`` and ``resolve``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from pbem.common.fair import PhaseRng, Rng

State = dict[str, Any]
Orders = dict[str, Any]


@dataclass(frozen=True)
class Phase:
    """One round of orders.

    ``id`` is printed in reports and order forms (``1741-1/prussia``); ``kind`` names the order
    form and its JSON Schema; ``powers`` are the powers that must send orders (empty for a phase
    that resolves on its own, such as a winter with nothing to buy); ``deadline_kind`` is the key
    of the campaign's deadline table that applies.
    """

    id: str
    kind: str
    powers: tuple[str, ...]
    deadline_kind: str = ""


@dataclass(frozen=True)
class OrderProblem:
    """One problem in an order document: a path into the YAML and a sentence for the player."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass(frozen=True)
class Secret:
    """A piece of hidden state the core commits to in every phase's report.

    ``owner`` is the seat that may see it (``None``: nobody until the game ends, e.g. the deck).
    """

    label: str
    owner: str | None
    value: Any


@dataclass
class Resolution:
    """What ``resolve`` returns: the next state and the events of the phase, in order.

    Each event is a plain dict with at least ``type``; an event may carry ``audience`` (a seat) to
    mark it private to that seat (e.g. a VOID order with its reason, M12.2).
    """

    state: State
    events: list[dict[str, Any]] = field(default_factory=list)


class Game(Protocol):
    """What a game module provides. See ``pbem.games.maria`` for the real thing (the tests
    hold a small sealed-bid game that plugs in from outside pbem).

    Two attributes are optional and read by the registry (``pbem.games``): ``schemas``, the
    folder of the game's order schemas (``<kind>.schema.json``; default pbem's
    ``orders/<game>/``), and ``presentation``, its :class:`Presentation` or the
    ``"module:attr"`` that holds one (default: the plain presentation)."""

    name: str

    def seats(self, scenario: str, options: dict[str, Any] | None = None) -> tuple[str, ...]:
        """The seats (players) of a scenario under ``options``, as the roster names them."""

    def scenarios(self) -> tuple[str, ...]:
        """The scenarios this game ships."""

    def new_game(self, scenario: str, options: dict[str, Any], rng: PhaseRng) -> State:
        """The state before the first phase."""

    def current_phase(self, state: State) -> Phase | None:
        """The phase waiting for orders, or ``None`` once the game is over."""

    def seat_of(self, state: State, power: str) -> str | None:
        """The seat that controls ``power`` now (``None`` for a power with no player)."""

    def validate(self, state: State, power: str, orders: Any) -> list[OrderProblem]:
        """Problems of ``orders`` for ``power`` in the current phase; empty if all is well."""

    def default_orders(self, state: State, power: str) -> Orders:
        """Orders for a power that missed the deadline."""

    def resolve(self, state: State, orders: dict[str, Orders], rng: PhaseRng) -> Resolution:
        """Resolve the current phase. ``orders`` is keyed by power, defaults already filled in."""

    def view(self, state: State, audience: str) -> dict[str, Any]:
        """What ``audience`` (``public`` or a seat) may see: the only road from state to a report."""

    def legal_orders(self, state: State, power: str) -> dict[str, Any]:
        """The legal choices of ``power`` now, for order forms and bots."""

    def bot_orders(self, state: State, power: str, rng: Rng) -> Orders:
        """Legal orders chosen at random (fuzzing, the demo)."""

    def autopilot_orders(self, state: State, power: str, rng: Rng) -> Orders:
        """Orders for a seat whose player is gone (``--autopilot-after``), played to win from
        what that seat may know; deterministic in ``rng``."""

    def secrets(self, state: State) -> list[Secret]:
        """The hidden parts of ``state`` that each report commits to."""

    def result(self, state: State) -> dict[str, Any] | None:
        """The end of game (winner, reason), or ``None`` while it goes on."""


Box = tuple[float, float, float, float]


class MapNames(NamedTuple):
    """A drawing's names layer told against a set of names that is the same in every phase
    (:meth:`Presentation.map_names`): ``ground``, those names as an SVG of their own; the layer's
    place in the drawing, ``svg[start:end]``; ``mask``, SVG that, drawn in a mask over the
    ground's names, covers those this drawing does not show where they stand ("" for none);
    ``own``, the names it draws itself."""

    ground: str
    start: int
    end: int
    mask: str
    own: str


class Presentation:
    """How a game is shown: what the generic renderers ask of one game. A game names its
    presentation in its ``presentation`` attribute (the object, or ``"module:attr"`` that the
    registry imports on first use, so that the rules never import a renderer); a game without
    one is shown by this plain presentation: ids as they are, no map, events in their order.

    Maria's and Rome's live beside the renderers (``pbem/render/maria/``, ``pbem/render/ror/``);
    a plug-in game's anywhere. Everything here is pure: views and events in, data or text out.
    """

    #: a folder holding the game's own templates under ``<game>/`` (``names.html``,
    #: ``events/<type>.html``, ``situation.html``, ``form.yaml`` ...), found before pbem's
    #: ``templates/``; ``None``: pbem's folder (or the ``base/`` templates alone)
    templates: Path | None = None

    def glossary(self, lang: str) -> dict[str, Any]:
        """The names reports print for the game's ids, in ``lang``: ``cities``, ``generals`` and
        ``titles`` mappings (empty: ids are printed as they are)."""
        return {"cities": {}, "generals": {}, "titles": {}}

    def map_svg(self, view: Mapping[str, Any], highlights: Mapping[str, Any], lang: str) -> str | None:
        """The map of an audience's ``view`` with the phase's moves and battles (``highlights``,
        ``render.report.map_highlights``) marked, as SVG text; ``None`` for a game without a map."""
        return None

    def action_box(self, view: Mapping[str, Any], highlights: Mapping[str, Any]) -> Box | None:
        """The part of the map of ``view`` (x, y, width, height in the units of the drawing
        ``map_svg`` makes of it) around the phase's moves and battles, cropped for a mail's first
        image; ``None``: the whole map only."""
        return None

    def map_ground(self, svg: str) -> int:
        """The length of the first layers of the drawing ``svg`` (``map_svg``'s), up to a
        top-level element, that are the same in every phase (the board without its pieces): a
        mail's whole-map image draws them once and lays each phase's pieces over them. 0: none."""
        return 0

    def map_names(self, svg: str) -> MapNames | None:
        """The names of the drawing ``svg`` (``map_svg``'s) told against names that stand in
        the same place in every phase, so that stored maps keep those once; ``None``: no such
        names (the drawing is stored with its own)."""
        return None

    def map_recurring(self, svg: str) -> tuple[tuple[int, int], ...]:
        """Where the drawing ``svg`` (``map_svg``'s) has top-level layers after its names that
        many phases draw alike (a legend), as ``(start, end)`` spans in drawing order: stored
        maps keep each once. Empty: none."""
        return ()

    def story(self, events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """``events`` in the order the reports tell them (a copy; the game may regroup them)."""
        return [dict(e) for e in events]

    def phase_summary(self, events: Sequence[Mapping[str, Any]], view: Mapping[str, Any]) -> dict[str, Any]:
        """What the history site's phase page says first (battles, conquests, leaders)."""
        return {"battles": [], "conquests": [], "leaders": []}

    #: the script (a ``.js`` file) that builds the game's form in the offline order page, on
    #: the page's ``PBEM`` helpers (``templates/orderpage/orderpage.js``); ``None``: pbem's
    #: ``templates/orderpage/<game>.js`` if there is one, else the game has no order page
    order_page_script: Path | None = None

    #: the rule ids the game's reports cite (``M4.7``), as a regular expression whose group 1
    #: is the id; ``None``: the reports link no rule
    rule_id: re.Pattern[str] | None = None

    def rules_reference(self, lang: str) -> Path | None:
        """The game's rules reference in ``lang`` (a Markdown file with one ``<a id="m4-7">``
        anchor per rule id) whose paragraphs the reports quote, or ``None``."""
        return None

    def order_page_data(self, state: Mapping[str, Any], view: Mapping[str, Any], powers: list[str],
                        legal: Mapping[str, Any], lang: str) -> dict[str, Any] | None:
        """What the offline order page embeds beyond the common part (its words included under
        ``text``), or ``None`` when the game has no order page."""
        return None

    def order_page_map(self, view: Mapping[str, Any], lang: str) -> str | None:
        """The map the order page shows when the publisher gives none (the seat's view)."""
        return self.map_svg(view, {}, lang)


PLAIN = Presentation()


_SCALARS = frozenset({str, int, float, bool, type(None)})


def plain_copy(value: Any) -> Any:
    """A deep copy of plain JSON data, equal to ``json.loads(json.dumps(value))``: new dicts and
    lists everywhere (shared references come out separate), tuples become lists, and keys other
    than strings go through JSON as they would. Anything JSON could not encode raises
    TypeError. About 4 times faster than the JSON round trip on a game state (scalars, most of
    a state, are taken as they are without a call)."""
    kind = type(value)
    if kind is dict:
        out: dict[str, Any] = {}
        for k, v in value.items():
            if type(k) is not str:
                return json.loads(json.dumps(value))
            out[k] = v if type(v) in _SCALARS else plain_copy(v)
        return out
    if kind is list or kind is tuple:
        return [v if type(v) in _SCALARS else plain_copy(v) for v in value]
    if kind in _SCALARS:
        return value  # immutable, and JSON gives back an equal value of the same type
    return json.loads(json.dumps(value))
