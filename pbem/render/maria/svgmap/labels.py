"""Cities' names: placed where they hide nothing, trying eight places around each city (the
placement rule; :mod:`.kept` keeps the empty board's names and moves those a view disturbs)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from pbem.games.maria.board import Board, City
from pbem.render.maria.svgmap.style import FORTRESS_NAME, NAME_SIZE
from pbem.render.maria.svgmap.svg import Box, rnd, svg_text, text_width


@dataclass(frozen=True)
class Label:
    """A city's name placed on the drawing: where, how large, and its SVG text."""

    city: str
    size: float
    x: float
    y: float
    anchor: str
    box: Box
    svg: str

# -- names ---------------------------------------------------------------------------------

Entry = tuple[Box, int, str, bool]  # a taken box, its weight, the city whose name it is, important


class Boxes:
    """Rectangles already taken on the drawing, bucketed in a grid so a test is cheap.

    A name's box records its city and whether the name is an important one, so a view can
    look past the names it is about to move (``skip``) or past the small names (``only_big``).
    """

    def __init__(self, cell: float = 24.0) -> None:
        """``cell``: the side of the grid's squares (what :meth:`cost` counts depends on it)."""
        self.cell = cell
        self.cells: dict[tuple[int, int], list[Entry]] = {}

    def _keys(self, box: Box) -> Iterable[tuple[int, int]]:
        c = self.cell
        for i in range(int(box[0] // c), int(box[2] // c) + 1):
            for j in range(int(box[1] // c), int(box[3] // c) + 1):
                yield (i, j)

    def add(self, box: Box, weight: int, owner: str = "", big: bool = True) -> None:
        """Take ``box``; ``owner`` names the city whose name it is ("" for symbols)."""
        entry = (box, weight, owner, big)
        c = self.cell
        cells = self.cells
        for i in range(int(box[0] // c), int(box[2] // c) + 1):
            for j in range(int(box[1] // c), int(box[3] // c) + 1):
                cells.setdefault((i, j), []).append(entry)

    def cost(self, box: Box, skip: Set[str] = frozenset(), only_big: bool = False,
             first: bool = False) -> int:
        """The summed weights of the boxes that ``box`` overlaps (each counted once); with
        ``first``, the weight of the first one found (enough to tell a free place)."""
        # the hot loop of the name placement: written out rather than built from helpers
        c = self.cell
        x0, y0, x1, y1 = box
        i0, i1, j0, j1 = int(x0 // c), int(x1 // c), int(y0 // c), int(y1 // c)
        cells = self.cells
        one_cell = i0 == i1 and j0 == j1
        seen: set[Entry] = set()
        total = 0
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                for entry in cells.get((i, j), ()):
                    other, weight, owner, big = entry
                    if (x0 < other[2] and other[0] < x1 and y0 < other[3] and other[1] < y1
                            and not (owner and (owner in skip or (only_big and not big)))):
                        if first:
                            return weight
                        if not one_cell:
                            if entry in seen:
                                continue
                            seen.add(entry)
                        total += weight
        return total

    def hit(self, box: Box) -> bool:
        """Whether ``box`` overlaps any box taken."""
        c = self.cell
        x0, y0, x1, y1 = box
        cells = self.cells
        for i in range(int(x0 // c), int(x1 // c) + 1):
            for j in range(int(y0 // c), int(y1 // c) + 1):
                for other, _, _, _ in cells.get((i, j), ()):
                    if x0 < other[2] and other[0] < x1 and y0 < other[3] and other[1] < y1:
                        return True
        return False

    def owners(self, box: Box) -> set[str]:
        """The cities whose names ``box`` overlaps."""
        c = self.cell
        x0, y0, x1, y1 = box
        cells = self.cells
        return {owner for i in range(int(x0 // c), int(x1 // c) + 1)
                for j in range(int(y0 // c), int(y1 // c) + 1)
                for other, _, owner, _ in cells.get((i, j), ())
                if owner and x0 < other[2] and other[0] < x1 and y0 < other[3] and other[1] < y1}

    def one_cell(self, box: Box) -> bool:
        """Whether ``box`` lies in one cell of the grid (:meth:`cost` then counts every box it
        overlaps as added, else each different box once)."""
        c = self.cell
        return int(box[0] // c) == int(box[2] // c) and int(box[1] // c) == int(box[3] // c)

    def near(self, box: Box) -> list[Entry]:
        """The boxes that ``box`` overlaps, each as often as it was added."""
        c = self.cell
        x0, y0, x1, y1 = box
        cells = self.cells
        seen: set[int] = set()
        out = []
        for i in range(int(x0 // c), int(x1 // c) + 1):
            for j in range(int(y0 // c), int(y1 // c) + 1):
                for entry in cells.get((i, j), ()):
                    other = entry[0]
                    if (x0 < other[2] and other[0] < x1 and y0 < other[3] and other[1] < y1
                            and id(entry) not in seen):
                        seen.add(id(entry))
                        out.append(entry)
        return out


LABEL_HIT = 10  # covering another name is worse than covering a city's symbol
PIECE_HIT = 30  # and covering a piece or a battle ring is worse still: it hides the play
FARTHER = 12.0  # the second ring of places for an important name, tried when the first
FARTHER_FROM = LABEL_HIT  # ring has no place that leaves other names and the pieces clear
SMALL_NAME = 6.4


def name_rank(city: City, busy: Set[str]) -> int:
    """Electoral and major fortresses are named first, then minor ones and busy cities."""
    if city.electoral or city.fortress == "major":
        return 0
    if city.fortress == "minor" or city.id in busy:
        return 1
    return 2


def is_important(city: City, busy: Set[str]) -> bool:
    return name_rank(city, busy) < 2


def name_reach(city: City, at: tuple[float, float], lang: str) -> Box:
    """The area that every place :func:`place_label` tries for a town's name lies in."""
    x, y = at
    w = text_width(city.display_name(lang), NAME_SIZE) + 2
    h = NAME_SIZE * 1.05
    gap = 9.0 if city.electoral else 6.5 if city.fortress == "major" else 4.5
    return (x - gap - w, y - gap - 2 * h, x + gap + w, y + gap + 2 * h)


# One place a name may take: its type size, where its text is anchored (x, y, anchor), its box.
Spot = tuple[float, float, float, str, Box]


def spots(city: City, x: float, y: float, lang: str, important: bool) -> Iterator[list[Spot]]:
    """The places tried for a city's name, eight around it in each of two tiers (each worked
    out when reached): a town's name in its type, then smaller; an important name close by,
    then a little farther out."""
    text = city.display_name(lang)
    gap0 = 9.0 if city.electoral else 6.5 if city.fortress == "major" else 4.5
    tries = (((FORTRESS_NAME, gap0), (FORTRESS_NAME, gap0 + FARTHER)) if important
             else ((NAME_SIZE, gap0), (SMALL_NAME, gap0)))
    for size, gap in tries:
        w = text_width(text, size)
        h = size * 1.05
        candidates = [
            (x + gap, y + h * 0.35, "start"),
            (x - gap, y + h * 0.35, "end"),
            (x, y + gap + h * 0.8, "middle"),
            (x, y - gap - 1, "middle"),
            (x + gap * 0.7, y + gap + h * 0.5, "start"),
            (x - gap * 0.7, y + gap + h * 0.5, "end"),
            (x + gap * 0.7, y - gap * 0.6, "start"),
            (x - gap * 0.7, y - gap * 0.6, "end"),
        ]
        tier = []
        for tx, ty, anchor in candidates:
            left = tx if anchor == "start" else tx - w if anchor == "end" else tx - w / 2
            tier.append((size, tx, ty, anchor, (left - 0.8, ty - h * 0.78, left + w + 0.8, ty + h * 0.22)))
        yield tier


P = TypeVar("P")


def choose(tiers: Iterable[Sequence[P]], important: bool, cost: Callable[[P, int | None], int]) -> tuple[int, P]:
    """The first place of least ``cost``, tier by tier: the next tier is tried only while no
    place is free, and for an important name only while the best place covers another name or
    a piece (a name touching a town's dot stays by its own city).

    ``cost(place, best)`` is told the least cost found before (``None``: none yet); where the
    place costs at least that much it may stop counting and return what it has counted, if that
    is at least ``best`` too (the place cannot be chosen then)."""
    best: tuple[int, P] | None = None
    for i, tier in enumerate(tiers):
        if i and important and best is not None and best[0] < FARTHER_FROM:
            break
        for place in tier:
            c = cost(place, None if best is None else best[0])
            if best is None or c < best[0]:
                best = (c, place)
            if c == 0:
                return best
    assert best is not None
    return best


def label_at(city: City, spot: Spot, lang: str) -> Label:
    """``city``'s name written at ``spot``."""
    size, x, y, anchor, box = spot
    attrs = {"class": "lbl major" if city.fortress == "major" else "lbl",
             "id": f"label-{city.id}",
             "style": None if size == NAME_SIZE else f"font-size:{size}px",
             "text-anchor": anchor, "x": rnd(x), "y": rnd(y)}
    return Label(city.id, size, x, y, anchor, box,
                 svg_text(city.display_name(lang), attrs))


def place_label(city: City, x: float, y: float, lang: str, important: bool,
                 cost: Callable[[Box], int]) -> tuple[int, Label]:
    """The best of eight places around the city for its name, and what it covers there.

    A town's name that fits nowhere is tried in a smaller type; an important name (which is
    printed whatever it covers) is tried a little farther out instead.
    """
    c, spot = choose(spots(city, x, y, lang, important), important, lambda s, _: cost(s[4]))
    return c, label_at(city, spot, lang)


def place_labels(board: Board, pos: Mapping[str, tuple[float, float]], symbols: Sequence[Box],
                  pieces: Sequence[Box], busy: Set[str], lang: str) -> list[Label]:
    """Name every city where its name hides nothing, trying eight places around it: the
    full placement, in drawing order.

    Fortresses and cities with pieces are named first and always; a plain town whose name
    fits nowhere is tried in a smaller type, and left unnamed if it still does not fit (its
    name stays in the city's tooltip), since overprinted names help nobody.
    """
    taken = Boxes()
    for box in symbols:
        taken.add(box, 3)
    for box in pieces:
        taken.add(box, PIECE_HIT)
    out = []
    for city in sorted(board.cities.values(), key=lambda c: (name_rank(c, busy), c.id)):
        x, y = pos[city.id]
        important = is_important(city, busy)
        # a small name is placed only where it covers nothing: the first hit tells enough
        cost, label = place_label(city, x, y, lang, important,
                                   taken.cost if important else partial(taken.cost, first=True))
        if cost > 0 and not important:
            continue
        taken.add(label.box, LABEL_HIT, city.id, important)
        out.append(label)
    return out
