"""The marker for sentences the catalogs translate."""

from __future__ import annotations


def N_(message: str) -> str:
    """Marks a sentence for the catalogs (``pybabel extract`` finds it) and returns it unchanged.
    A game fills it in English with ``%``; a report, receipt or page in another language finds the
    sentence in the catalog and says it there (``i18n.say_game`` for a game's sentences)."""
    return message
