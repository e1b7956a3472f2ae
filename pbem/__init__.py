"""pbem: a play-by-email adjudicator for long board-game campaigns."""

__version__ = "0.1.0"
