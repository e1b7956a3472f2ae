"""The registry of games: the one place where a game plugs in. A game is found by name; a
plug-in adds its own with :func:`register` or through the ``pbem.games`` entry-point group.

What a game brings, all reached from the object registered:

- its rules, views, bots and autopilot: the methods of :class:`pbem.games.base.Game`;
- its order schemas: ``schemas``, a folder of ``<kind>.schema.json`` (default: pbem's
  ``orders/<game>/``), found by :func:`schema_path`;
- its presentation: ``presentation``, a :class:`pbem.games.base.Presentation` or the
  ``"module:attr"`` that holds one (its names, map, report story, order-page data and its
  own templates), found by :func:`presentation`.

Core, the renderers and the CLI reach a game only through these functions."""

from __future__ import annotations

import importlib
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from pbem.errors import PbemError
from pbem.games.base import PLAIN, Presentation

_BUILTIN = {
    "maria": "pbem.games.maria:GAME",
    "ror": "pbem.games.ror:GAME",
}
_registered: dict[str, Any] = {}


def register(name: str, game: Any) -> None:
    """Make ``game`` available under ``name``."""
    _registered[name] = game
    _presentations.pop(name, None)


def _load(ref: str) -> Any:
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def get_game(name: str) -> Any:
    """The game called ``name``; raises :class:`PbemError` naming the known games otherwise."""
    if name in _registered:
        return _registered[name]
    ref = _BUILTIN.get(name)
    if ref is None:
        ref = _entry_points().get(name)
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
    names |= set(_entry_points())
    return sorted(names)


@cache
def _entry_points() -> dict[str, str]:
    """The games other packages declare (``pbem.games`` entry points): name -> ``module:attr``."""
    return {ep.name: ep.value for ep in entry_points(group="pbem.games")}


_presentations: dict[str, Presentation] = {}


def presentation(name: str) -> Presentation:
    """How the game ``name`` is shown (:class:`~pbem.games.base.Presentation`); the plain
    presentation for a game that names none, and for a name that is no game (the rounds
    before a deal are shown with pbem's own ``templates/pbem/``)."""
    found = _presentations.get(name)
    if found is None and not is_game(name):
        return PLAIN
    if found is None:
        ref = getattr(get_game(name), "presentation", None)
        found = _load(ref) if isinstance(ref, str) else (ref or PLAIN)
        _presentations[name] = found
    return found


def is_game(name: str) -> bool:
    """Whether ``name`` is a game this installation knows (without loading it)."""
    return name in _registered or name in _BUILTIN or name in _entry_points()


def template_folder(name: str) -> Path | None:
    """The folder holding the game ``name``'s own templates (under ``<name>/``), if it brings
    them; ``None`` for a name that is no game or a game whose templates are pbem's."""
    if not is_game(name):
        return None
    return presentation(name).templates


def schema_path(name: str, kind: str) -> Path | None:
    """The JSON Schema of the game ``name``'s order round ``kind``, if there is one."""
    from pbem.data import orders_dir

    folder = getattr(get_game(name), "schemas", None) if is_game(name) else None
    path = Path(folder) / f"{kind}.schema.json" if folder is not None else orders_dir() / name / f"{kind}.schema.json"
    return path if path.is_file() else None
