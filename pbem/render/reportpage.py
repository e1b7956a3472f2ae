"""The report's pages: the report templates filled with a context and the names the game's
pieces go by. Pure: a context in, text out."""

from __future__ import annotations

from functools import cache
from typing import Any

from pbem.data import templates_dir
from pbem.render import i18n
from pbem.render.i18n import render


def glossary(game: str, lang: str) -> dict[str, Any]:
    """The names reports print for a game's ids (cities, generals), from its static data; an
    empty glossary for a game without one (ids are printed as they are)."""
    return dict(_glossary(game, i18n.check_lang(lang)))


@cache
def _glossary(game: str, lang: str) -> dict[str, Any]:
    if game != "maria":
        return {"cities": {}, "generals": {}, "titles": {}}
    from pbem.games.maria.board import load_board, load_forces
    from pbem.games.maria.political import load_deck

    board = load_board()
    forces = load_forces(board)
    zh = lang.startswith("zh")
    return {
        "cities": {c: city.display_name(lang) for c, city in sorted(board.cities.items())},
        "generals": {g.id: (g.name_zh if zh and g.name_zh else g.name) for g in forces.generals},
        # political card titles of the default deck (a GM's own deck keeps its own titles)
        "titles": dict(load_deck(board)["titles_zh"]) if zh else {},
    }


def names_dir(game: str) -> str:
    """The template folder whose ``names.html``/``names.txt`` name the game's pieces."""
    return game if (templates_dir() / game / "names.html").is_file() else "base"


def with_names(lang: str, ctx: dict[str, Any]) -> dict[str, Any]:
    """``ctx`` with the game's names in ``lang`` (``glossary``, ``names_dir``) for the templates."""
    return dict(ctx, glossary=glossary(ctx["game"], lang), names_dir=names_dir(ctx["game"]))


def report_html(lang: str, which: str, ctx: dict[str, Any]) -> str:
    """The report ``which`` (``public`` or ``private``) as HTML in ``lang``."""
    return render(lang, f"base/{which}.html", with_names(lang, ctx))


def report_text(lang: str, which: str, ctx: dict[str, Any]) -> str:
    """The report ``which`` (``public`` or ``private``) as plain text in ``lang``."""
    return render(lang, f"base/{which}.txt", with_names(lang, ctx))


def sealed_html(note: str, public_html: str) -> str:
    """A public report's HTML with the note that the private part travels sealed."""
    from html import escape

    banner = f'<div class="sealed-note"><pre>{escape(note)}</pre></div>'
    return public_html.replace("<main>", "<main>" + banner, 1)
