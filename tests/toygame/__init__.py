"""A toy third game, a sealed-bid auction, that plugs into pbem the way any game does: rules,
views, bots and autopilot (``rules.py``), an order schema (``schemas/``), and a presentation
(``presentation.py``: the names of the lots, a small map of the purses, its own templates under
``templates/auction/``). Nothing in pbem knows it; a program makes it playable with
:func:`install`, or a package would declare ``GAME`` in the ``pbem.games`` entry-point group.

Two collectors, ``ada`` and ``bo``, each with a purse of coins, bid in secret for one lot a
round; the higher bid takes the lot and pays (a public coin settles a tie). The lots come from a
secretly shuffled pile; each collector also holds a secret favourite kind of lot, worth double
to them. After the last lot, the most points (lots' worth plus coins left) wins.
"""

from __future__ import annotations

from toygame.rules import GAME, AuctionGame

NAME = "auction"


def install() -> None:
    """Register the game with pbem under :data:`NAME`."""
    from pbem.games import register

    register(NAME, GAME)


__all__ = ["GAME", "NAME", "AuctionGame", "install"]
