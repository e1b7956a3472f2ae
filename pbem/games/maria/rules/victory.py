"""Victory checks (M10.1 for the introductory game; M10.2-M10.5 come with the advanced game)."""

from __future__ import annotations

from typing import Any

from pbem.games.maria import model

FR_TARGET = 9   # M10.1: Austrian home fortresses
PR_TARGET = 12  # M10.1: Austrian or Silesian fortresses


_COUNTED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _counted(board: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The board's Austrian home fortresses, and its Silesian fortresses outside Austria's home
    country (computed once per board: the count runs at every stage)."""
    found = _COUNTED.get(board.id)
    if found is None:
        forts = model.fortresses_of(board)
        austrian = tuple(f for f in forts if board.home_of(f) == "AU")
        silesian = tuple(f for f in forts if board.home_of(f) != "AU" and board.territory_of(f) == "silesia")
        found = _COUNTED[board.id] = (austrian, silesian)
    return found


def intro_counts(state: dict[str, Any], board: Any) -> dict[str, int]:
    """M4.9: the fortresses FR and PR count towards M10.1."""
    austrian, silesian = _counted(board)
    fr = sum(1 for f in austrian if model.controller(state, board, f) == "FR")
    pr = sum(1 for f in austrian + silesian if model.controller(state, board, f) == "PR")
    return {"FR": fr, "PR": pr}


def check_stage(state: dict[str, Any], board: Any) -> dict[str, Any] | None:
    """Step (f): the sudden victory of M10.1 (France loses ties to Prussia)."""
    if not model.is_intro(state):
        from pbem.games.maria.rules.tracks import sudden_death

        return sudden_death(state)
    counts = intro_counts(state, board)
    if counts["PR"] >= PR_TARGET:
        return {"winner": "PR", "reason": f"M10.1 Prussia controls {counts['PR']} Austrian or "
                                          f"Silesian fortresses"}
    if counts["FR"] >= FR_TARGET:
        return {"winner": "FR", "reason": f"M10.1 France controls {counts['FR']} Austrian "
                                          f"home fortresses"}
    return None


def check_end(state: dict[str, Any], board: Any) -> dict[str, Any]:
    """The end of the last turn: Austria wins the introductory game (M10.1); the advanced game
    compares the winter totals (M10.4-M10.5)."""
    if not model.is_intro(state):
        from pbem.games.maria.rules.tracks import final_result

        return final_result(state)
    return {"winner": "AU", "reason": f"M10.1 no power won by the end of turn {state['turns']}"}
