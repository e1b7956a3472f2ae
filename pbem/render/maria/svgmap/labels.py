"""Cities' names: placed where they hide nothing, on the empty board once and again around a
view's pieces."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from functools import partial

from pbem.games.maria.board import Board, City
from pbem.render.maria.svgmap.style import FORTRESS_NAME, NAME_SIZE
from pbem.render.maria.svgmap.svg import Box, overlaps, rnd, svg_text, text_width


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


class Boxes:
    """Rectangles already taken on the drawing, bucketed in a grid so a test is cheap.

    A name's box records its city and whether the name is an important one, so a view can
    look past the names it is about to move (``skip``) or past the small names (``only_big``).
    """

    CELL = 24.0

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[tuple[Box, int, str, bool]]] = {}

    def _keys(self, box: Box) -> Iterable[tuple[int, int]]:
        c = self.CELL
        for i in range(int(box[0] // c), int(box[2] // c) + 1):
            for j in range(int(box[1] // c), int(box[3] // c) + 1):
                yield (i, j)

    def add(self, box: Box, weight: int, owner: str = "", big: bool = True) -> None:
        """Take ``box``; ``owner`` names the city whose name it is ("" for symbols)."""
        entry = (box, weight, owner, big)
        for key in self._keys(box):
            self.cells.setdefault(key, []).append(entry)

    def cost(self, box: Box, skip: Set[str] = frozenset(), only_big: bool = False,
             first: bool = False) -> int:
        """The summed weights of the boxes that ``box`` overlaps (each counted once); with
        ``first``, the weight of the first one found (enough to tell a free place)."""
        # the hot loop of the name placement: written out rather than built from helpers
        c = self.CELL
        x0, y0, x1, y1 = box
        i0, i1, j0, j1 = int(x0 // c), int(x1 // c), int(y0 // c), int(y1 // c)
        cells = self.cells
        one_cell = i0 == i1 and j0 == j1
        seen: set[tuple[Box, int, str, bool]] = set()
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

    def owners(self, box: Box) -> set[str]:
        """The cities whose names ``box`` overlaps."""
        return {owner for key in self._keys(box) for other, _, owner, _ in self.cells.get(key, ())
                if owner and overlaps(box, other)}


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


def place_label(city: City, x: float, y: float, lang: str, important: bool,
                 cost: Callable[[Box], int]) -> tuple[int, Label]:
    """The best of eight places around the city for its name, and what it covers there.

    A town's name that fits nowhere is tried in a smaller type; an important name (which is
    printed whatever it covers) is tried a little farther out instead.
    """
    text = city.display_name(lang)
    gap0 = 9.0 if city.electoral else 6.5 if city.fortress == "major" else 4.5
    tries = (((FORTRESS_NAME, gap0), (FORTRESS_NAME, gap0 + FARTHER)) if important
             else ((NAME_SIZE, gap0), (SMALL_NAME, gap0)))
    best: tuple[int, float, float, float, str, Box] | None = None
    for size, gap in tries:
        if gap != gap0 and best is not None and best[0] < FARTHER_FROM:
            break  # a name touching a town's dot stays by its own city
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
        for tx, ty, anchor in candidates:
            left = tx if anchor == "start" else tx - w if anchor == "end" else tx - w / 2
            box = (left - 0.8, ty - h * 0.78, left + w + 0.8, ty + h * 0.22)
            c = cost(box)
            if best is None or c < best[0]:
                best = (c, size, tx, ty, anchor, box)
            if c == 0:
                break
        if best is not None and best[0] == 0:
            break
    assert best is not None
    c, size, tx, ty, anchor, box = best
    attrs = {"class": "lbl major" if city.fortress == "major" else "lbl",
             "id": f"label-{city.id}",
             "style": None if size == NAME_SIZE else f"font-size:{size}px",
             "text-anchor": anchor, "x": rnd(tx), "y": rnd(ty)}
    return c, Label(city.id, size, tx, ty, anchor, box, svg_text(text, attrs))


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


def replace_labels(board: Board, pos: Mapping[str, tuple[float, float]], base: Mapping[str, Label],
                   grid: Boxes, unnamed: Boxes, obstacles: Sequence[Box], busy: Set[str],
                   lang: str) -> list[Label]:
    """The names for a view: those placed on the empty board stay where they are unless a
    piece, a mark or a battle ring now covers them or their city became busy; those are
    placed again around the kept names, important ones first as in the full placement.
    A small name that an important one now covers moves too, and a town left unnamed on the
    empty board gets a chance where a name moved away. ``base`` holds the names placed on
    the empty board, ``grid`` their boxes and the cities' symbols, and ``unnamed`` the reach
    of each town left unnamed there."""
    cities = board.cities
    dynamic = Boxes()
    for box in obstacles:
        dynamic.add(box, PIECE_HIT)
    moved: set[str] = {c for c in busy if c in cities and name_rank(cities[c], set()) == 2}
    for box in obstacles:
        moved |= grid.owners(box)
    placed: dict[str, Label] = {}

    def big_cost(box: Box) -> int:
        return grid.cost(box, moved, only_big=True) + dynamic.cost(box, only_big=True)

    for cid in sorted((c for c in moved if is_important(cities[c], busy)),
                      key=lambda c: (name_rank(cities[c], busy), c)):
        x, y = pos[cid]
        _, label = place_label(cities[cid], x, y, lang, True, big_cost)
        dynamic.add(label.box, LABEL_HIT, cid, True)
        placed[cid] = label
        # small names under it give way (kept important ones were in its cost)
        moved |= {o for o in grid.owners(label.box) if not is_important(cities[o], busy)}
    # Small names to place again: the moved ones and, as the full placement would have placed
    # them together, the small names within their reach; then the unnamed towns that may now
    # find room where a name left.
    small = {c for c in moved if not is_important(cities[c], busy)}
    for cid in sorted(small):
        small |= {o for o in grid.owners(name_reach(cities[cid], pos[cid], lang))
                  if not is_important(cities[o], busy)}
    moved |= small
    for cid in sorted(moved):
        if cid in base:
            small |= unnamed.owners(base[cid].box) - busy

    def cost(box: Box) -> int:  # as in the full placement, only a free place matters
        return grid.cost(box, moved, first=True) or dynamic.cost(box, first=True)

    for cid in sorted(small):
        x, y = pos[cid]
        c, label = place_label(cities[cid], x, y, lang, False, cost)
        if c == 0:
            dynamic.add(label.box, LABEL_HIT, cid, False)
            placed[cid] = label
    for cid, label in base.items():
        if cid not in moved:
            placed[cid] = label
    return [placed[c] for c in sorted(placed, key=lambda c: (name_rank(cities[c], busy), c))]


