"""Victory checks (M10.1 for the introductory game; M10.2-M10.5 come with the advanced game)."""

from __future__ import annotations

from typing import Any

from pbem.games.maria import model

FR_TARGET = 9   # M10.1: Austrian home fortresses
PR_TARGET = 12  # M10.1: Austrian or Silesian fortresses


def intro_counts(state: dict[str, Any], board: Any) -> dict[str, int]:
    """M4.9: the fortresses FR and PR count towards M10.1."""
    fr = pr = 0
    for f in model.fortresses_of(board):
        holder = model.controller(state, board, f)
        territory = board.territory_of(f)
        if holder == "FR" and board.home_of(f) == "AU":
            fr += 1
        if holder == "PR" and (board.home_of(f) == "AU" or territory == "silesia"):
            pr += 1
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
