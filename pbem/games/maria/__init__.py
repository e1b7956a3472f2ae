"""Maria (Histogame, War of the Austrian Succession 1741-1744): rules in ../shared/rules/maria.md.

``GAME`` is the :class:`~pbem.games.base.Game` the registry finds. The package is split by the
sequence of play: ``model`` (data and state queries), ``adjudicate`` (the round pipeline),
``rules/`` (movement, supply, hussars, combat, conquest, winter, victory), ``orders``
(validation and defaults), ``views`` (what each audience sees) and ``bots``. ``GAME`` is made
on first use, so importing ``board`` or ``cards`` alone stays light.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "GAME":
        from pbem.games.maria.game import MariaGame

        game = MariaGame()
        globals()["GAME"] = game
        return game
    raise AttributeError(f"module 'pbem.games.maria' has no attribute {name!r}")
