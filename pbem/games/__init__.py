"""The registry of games. A game is found by name; a plug-in may add its own with
:func:`register` or through the ``pbem.games`` entry-point group."""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any

from pbem.errors import PbemError

_BUILTIN = {
    "maria": "pbem.games.maria:GAME",
    "ror": "pbem.games.ror:GAME",
}
_registered: dict[str, Any] = {}


def register(name: str, game: Any) -> None:
    """Make ``game`` available under ``name``."""
    _registered[name] = game


def _load(ref: str) -> Any:
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def get_game(name: str) -> Any:
    """The game called ``name``; raises :class:`PbemError` naming the known games otherwise."""
    if name in _registered:
        return _registered[name]
    ref = _BUILTIN.get(name)
    if ref is None:
        for ep in entry_points(group="pbem.games"):
            if ep.name == name:
                ref = ep.value
    if ref is None:
        raise PbemError(f"unknown game '{name}'; known games: {', '.join(sorted(known_games()))}")
    try:
        game = _load(ref)
    except (ImportError, AttributeError) as exc:
        raise PbemError(f"the game '{name}' is not available in this installation ({exc})") from None
    _registered[name] = game
    return game


def known_games() -> list[str]:
    """Names of every game this installation knows."""
    names = set(_BUILTIN) | set(_registered)
    names |= {ep.name for ep in entry_points(group="pbem.games")}
    return sorted(names)
