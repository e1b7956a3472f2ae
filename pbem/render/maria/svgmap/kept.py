"""The names of the empty board, placed once per board and language, and the names a view
moves: those its pieces, marks and battle rings cover, placed again around the kept ones.

A view moves a few dozen of a board's names. What moving a name needs that no piece changes is
worked out the first time it is needed and kept with the empty board's names: the places tried
for it, and which city symbols and kept names each place covers. A view then only tests those
places against its own pieces and the names it moved, and the names come out where the
placement rule of :mod:`.labels` puts them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from functools import partial
from operator import itemgetter
from typing import NamedTuple

from pbem.games.maria.board import Board
from pbem.render.maria.svgmap.labels import (
    LABEL_HIT,
    PIECE_HIT,
    Boxes,
    Entry,
    Label,
    Spot,
    choose,
    is_important,
    label_at,
    name_rank,
    name_reach,
    place_labels,
    spots,
)
from pbem.render.maria.svgmap.svg import Box


class Cover(NamedTuple):
    """What of the empty board lies under a place, as the grid's cost counts it: whether the
    place lies in one cell of the grid, the summed weight of the city symbols it covers, the
    cities whose kept names it covers, and of those the important ones with their weights."""

    one_cell: bool
    symbols: int
    owners: frozenset[str]
    big_names: tuple[tuple[str, int], ...]


class Place:
    """A place for a city's name; what it covers is worked out when first asked."""

    __slots__ = ("spot", "box", "grid", "near", "cover", "label", "cells")

    def __init__(self, spot: Spot, grid: Boxes, near: Sequence[Entry]) -> None:
        """``near``: the boxes of ``grid`` near the place, each as often as it was added."""
        self.spot, self.box, self.grid, self.near = spot, spot[4], grid, near
        self.cover: Cover | None = None
        self.label: Label | None = None
        self.cells: tuple[tuple[int, int], ...] | None = None  # those of a view's grid it lies in

    def view_cells(self) -> tuple[tuple[int, int], ...]:
        """The cells of a view's grid (:data:`DYNAMIC_CELL`) the place lies in."""
        if self.cells is None:
            self.cells = _cells(self.box)
        return self.cells

    def covered(self) -> Cover:
        if self.cover is None:
            one_cell = self.grid.one_cell(self.box)
            x0, y0, x1, y1 = self.box
            hits = [e for e in self.near if x0 < e[0][2] and e[0][0] < x1 and y0 < e[0][3] and e[0][1] < y1]
            if not one_cell:  # the grid's cost then counts each different box once
                hits = list(dict.fromkeys(hits))
            symbols, owners, big_names = 0, set(), []
            for _, weight, owner, big in hits:
                if not owner:
                    symbols += weight
                    continue
                owners.add(owner)
                if big:
                    big_names.append((owner, weight))
            self.cover = Cover(one_cell, symbols, frozenset(owners), tuple(big_names))
        return self.cover


class KeptNames:
    """The names placed on the empty board of ``board`` in ``lang``, and what a view needs to
    move some of them (worked out once per city, when first needed)."""

    def __init__(self, board: Board, pos: Mapping[str, tuple[float, float]], symbols: Sequence[Box],
                 lang: str) -> None:
        self.board, self.pos, self.lang = board, pos, lang
        self.labels: dict[str, Label] = {}
        # the cities' symbols and the empty board's names, so a view only re-places the names
        # its pieces disturb
        self.grid = Boxes()
        for box in symbols:
            self.grid.add(box, 3)
        self.names = Boxes()  # the names alone: which of them a view's pieces cover
        for lbl in place_labels(board, pos, symbols, (), set(), lang):
            self.labels[lbl.city] = lbl
            self.grid.add(lbl.box, LABEL_HIT, lbl.city, is_important(board.cities[lbl.city], set()))
            self.names.add(lbl.box, LABEL_HIT, lbl.city)
        # for each town whose name found no free place, the area its name could take
        self.unnamed = Boxes()
        for cid in sorted(c for c in board.cities if c not in self.labels):
            self.unnamed.add(name_reach(board.cities[cid], pos[cid], lang), 0, cid)
        self.rank = {cid: name_rank(city, set()) for cid, city in board.cities.items()}
        self.order = {cid: i for i, cid in enumerate(self.labels)}  # the empty board's names' drawing order
        # the empty board's names of each rank, by city
        self.by_rank: tuple[list[tuple[str, Label]], ...] = tuple(
            sorted((c, lbl) for c, lbl in self.labels.items() if self.rank[c] == n) for n in range(3))
        self._places: dict[tuple[str, bool], tuple[list[list[Place]], Box]] = {}
        self._open: dict[str, list[tuple[frozenset[str], Place]]] = {}
        self._reach: dict[str, frozenset[str]] = {}
        self._unnamed_near: dict[str, frozenset[str]] = {}

    def places(self, cid: str, important: bool) -> tuple[list[list[Place]], Box]:
        """The places tried for ``cid``'s name, tier by tier, and the area they lie in."""
        key = (cid, important)
        if key not in self._places:
            x, y = self.pos[cid]
            tried = list(spots(self.board.cities[cid], x, y, self.lang, important))
            x0, y0, x1, y1 = zip(*(s[4] for tier in tried for s in tier), strict=True)
            area = (min(x0), min(y0), max(x1), max(y1))
            near = self.grid.near(area)
            self._places[key] = ([[Place(s, self.grid, near) for s in tier] for tier in tried], area)
        return self._places[key]

    def open_places(self, cid: str) -> list[tuple[frozenset[str], Place]]:
        """The places tried for ``cid``'s small name, in order, that cover no city symbol (the
        only ones it may take), each with the cities whose kept names it covers."""
        if cid not in self._open:
            tiers, _ = self.places(cid, False)
            self._open[cid] = [(cover.owners, place) for tier in tiers for place in tier
                               if not (cover := place.covered()).symbols]
        return self._open[cid]

    def label(self, cid: str, place: Place) -> Label:
        if place.label is None:
            place.label = label_at(self.board.cities[cid], place.spot, self.lang)
        return place.label

    def reach(self, cid: str) -> frozenset[str]:
        """The towns (neither fortresses nor electoral cities) whose kept names lie where
        ``cid``'s name could go."""
        if cid not in self._reach:
            city = self.board.cities[cid]
            self._reach[cid] = frozenset(o for o in self.grid.owners(name_reach(city, self.pos[cid], self.lang))
                                         if self.rank[o] == 2)
        return self._reach[cid]

    def unnamed_near(self, cid: str) -> frozenset[str]:
        """The unnamed towns whose names could go where ``cid``'s kept name stands."""
        if cid not in self._unnamed_near:
            self._unnamed_near[cid] = frozenset(self.unnamed.owners(self.labels[cid].box))
        return self._unnamed_near[cid]


# The view's pieces and moved names are few: a coarse grid finds those near a name in a few steps.
DYNAMIC_CELL = 96.0


def _cells(box: Box) -> tuple[tuple[int, int], ...]:
    """The cells of a view's grid that ``box`` lies in (as :meth:`Boxes.add` finds them)."""
    c = DYNAMIC_CELL
    return tuple((i, j) for i in range(int(box[0] // c), int(box[2] // c) + 1)
                 for j in range(int(box[1] // c), int(box[3] // c) + 1))


def _take(grid: dict[tuple[int, int], list[Entry]], cells: Iterable[tuple[int, int]], entry: Entry) -> None:
    """:meth:`Boxes.add` of ``entry`` to a view's grid, its cells known."""
    for key in cells:
        here = grid.get(key)
        if here is None:
            grid[key] = [entry]
        else:
            here.append(entry)


def _big_cost(moved: Set[str], near: Sequence[Entry], unique: Callable[[], Sequence[Entry]], place: Place,
              best: int | None) -> int:
    """What an important name covers at ``place``: city symbols, kept important names that
    stay, and the view's pieces and moved names (``near``; ``unique`` gives them each once).
    Where the first two cost ``best`` already, the pieces are not counted (see :func:`.choose`)."""
    cover = place.cover or place.covered()
    cost = cover.symbols
    for owner, weight in cover.big_names:
        if owner not in moved:
            cost += weight
    if best is not None and cost >= best:
        return cost
    x0, y0, x1, y1 = place.box
    for other, weight, owner, big in (near if cover.one_cell else unique()):
        if x0 < other[2] and other[0] < x1 and y0 < other[3] and other[1] < y1 and (big or not owner):
            cost += weight
    return cost


def _once(near: Sequence[Entry]) -> Callable[[], Sequence[Entry]]:
    """``near`` with each box once (equal boxes added twice count once), made when first asked."""
    kept: list[Sequence[Entry]] = []

    def unique() -> Sequence[Entry]:
        if not kept:
            kept.append(list(dict.fromkeys(near)))
        return kept[0]
    return unique


def _first_free(places: Iterable[tuple[frozenset[str], Place]], moved: Set[str], dynamic: Boxes) -> Place | None:
    """The first place where a small name covers nothing: no city symbol (``places`` holds
    only those), no kept name that stays, none of the view's pieces or moved names (in
    ``dynamic``, whose cells each place keeps: :meth:`Boxes.hit` written out)."""
    cells = dynamic.cells
    for owners, place in places:
        if not owners <= moved:
            continue
        x0, y0, x1, y1 = place.box
        for key in place.cells or place.view_cells():
            for other, _, _, _ in cells.get(key, ()):
                if x0 < other[2] and other[0] < x1 and y0 < other[3] and other[1] < y1:
                    break
            else:
                continue
            break
        else:
            return place
    return None


class Names(NamedTuple):
    """A view's names: ``labels``, all of them in drawing order; ``again``, those placed again
    (in drawing order); ``moved``, the cities whose names on the empty board may not show
    where they stood (they moved, or went)."""

    labels: list[Label]
    again: list[Label]
    moved: Set[str]


def replace_labels(kept: KeptNames, obstacles: Sequence[Box], busy: Set[str]) -> Names:
    """The names for a view: those placed on the empty board stay where they are unless a
    piece, a mark or a battle ring now covers them or their city became busy; those are
    placed again around the kept names, important ones first as in the full placement.
    A small name that an important one now covers moves too, and a town left unnamed on the
    empty board gets a chance where a name moved away."""
    cities, rank = kept.board.cities, kept.rank

    def important(cid: str) -> bool:
        return rank[cid] < 2 or cid in busy

    dynamic = Boxes(DYNAMIC_CELL)
    grid = dynamic.cells
    moved: set[str] = {c for c in busy if c in cities and rank[c] == 2}
    for box in obstacles:
        _take(grid, _cells(box), (box, PIECE_HIT, "", True))
        moved |= kept.names.owners(box)
    placed: dict[str, Label] = {}
    for cid in sorted((c for c in moved if important(c)), key=lambda c: (min(rank[c], 1), c)):
        tiers, area = kept.places(cid, True)
        near = dynamic.near(area)
        _, place = choose(tiers, True, partial(_big_cost, moved, near, _once(near)))
        label = kept.label(cid, place)
        _take(grid, place.cells or place.view_cells(), (label.box, LABEL_HIT, cid, True))
        placed[cid] = label
        # small names under it give way (kept important ones were in its cost)
        moved |= {o for o in place.covered().owners if not important(o)}
    # Small names to place again: the moved ones and, as the full placement would have placed
    # them together, the small names within their reach; then the unnamed towns that may now
    # find room where a name left.
    small = {c for c in moved if not important(c)}
    small |= set().union(*[kept.reach(cid) for cid in small]) - busy
    moved |= small
    small |= set().union(*[kept.unnamed_near(cid) for cid in moved if cid in kept.labels]) - busy
    # as in the full placement, a small name goes only where it covers nothing
    for cid in sorted(small):
        free = _first_free(kept.open_places(cid), moved, dynamic)
        if free is not None:
            label = kept.label(cid, free)
            _take(grid, free.cells or free.view_cells(), (label.box, LABEL_HIT, cid, False))
            placed[cid] = label
    # the names that did not move stay where the empty board put them; all in drawing order:
    # by rank (a busy town's name among the minor fortresses'), then by city
    new: tuple[list[tuple[str, Label]], ...] = ([], [], [])
    for c, label in placed.items():
        new[min(rank[c], 1) if c in busy else rank[c]].append((c, label))
    out: list[Label] = []
    again: list[Label] = []
    for staying, placed_again in zip(kept.by_rank, new, strict=True):
        named = [pair for pair in staying if pair[0] not in moved]
        if placed_again:
            placed_again.sort(key=itemgetter(0))
            again += [label for _, label in placed_again]
            named = sorted(named + placed_again, key=itemgetter(0))
        out += [label for _, label in named]
    return Names(out, again, moved)
