"""Shared boards for the Maria tests: the shipped map when it is there, else the test map."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.data import seeds_dir
from pbem.games.maria.board import load_board, load_forces

MAPS = Path(__file__).resolve().parent.parent / "maps"


def board_and_forces() -> tuple[Any, Any]:
    """The shipped map and forces; the test map of tests/maps until they are shipped."""
    if (seeds_dir() / "maria" / "map.yaml").is_file():
        board = load_board()
        return board, load_forces(board)
    board = load_board(MAPS / "valid.yaml")
    return board, load_forces(board, MAPS / "forces.yaml")
