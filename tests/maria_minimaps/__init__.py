"""Shared boards for the Maria tests."""

from __future__ import annotations

from typing import Any

from pbem.games.maria.board import load_board, load_forces


def board_and_forces() -> tuple[Any, Any]:
    """The shipped map and forces (seeds/maria/map.yaml, forces.yaml)."""
    board = load_board()
    return board, load_forces(board)
