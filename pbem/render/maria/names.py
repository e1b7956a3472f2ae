"""What Maria's reports call its pieces: the cities', generals' and political cards' names in
the reader's language, from the board and the default deck."""

from __future__ import annotations

from functools import cache
from typing import Any

from pbem.games.maria.board import load_board, load_forces
from pbem.games.maria.political import load_deck


def glossary(lang: str) -> dict[str, Any]:
    """``cities``, ``generals`` and ``titles`` (political cards) mappings in ``lang``."""
    return dict(_glossary(lang))


@cache
def _glossary(lang: str) -> dict[str, Any]:
    board = load_board()
    forces = load_forces(board)
    zh = lang.startswith("zh")
    return {
        "cities": {c: city.display_name(lang) for c, city in sorted(board.cities.items())},
        "generals": {g.id: (g.name_zh if zh and g.name_zh else g.name) for g in forces.generals},
        # political card titles of the default deck (a GM's own deck keeps its own titles)
        "titles": dict(load_deck(board)["titles_zh"]) if zh else {},
    }
