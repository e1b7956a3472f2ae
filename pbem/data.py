"""Where the shipped data lives: ``seeds/``, ``templates/`` and ``orders/``.

In a wheel they are package data under ``pbem/_data``; in a source checkout (editable install)
they sit at the repository's top level, beside the package.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """The folder ``name`` (``seeds``, ``templates`` or ``orders``) of this installation."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"pbem's '{name}' folder is missing from this installation")


def seeds_dir() -> Path:
    """The game data folder."""
    return data_dir("seeds")


def templates_dir() -> Path:
    """The Jinja2 templates folder."""
    return data_dir("templates")


def orders_dir() -> Path:
    """The order schemas and forms folder."""
    return data_dir("orders")
