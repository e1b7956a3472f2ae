"""Maria's presentation: how the generic renderers show a game of Maria (its names, its map,
the order of its report's events, the history site's summary, its order page's data). The
game names it (``pbem.games.maria.game``: ``presentation``) and the registry finds it; the
generic renderers reach it only through :func:`pbem.games.presentation`."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pbem.games.base import Box, MapNames, Presentation
from pbem.render.rules import shipped

REFERENCE = {"en": "maria.md", "zh-TW": "maria.zh-TW.md"}


class MariaPresentation(Presentation):
    rule_id = re.compile(r"\b(M\d{1,2}\.\d{1,2}|E\d{1,2}|W\d)\b")

    def rules_reference(self, lang: str) -> Path | None:
        return shipped(REFERENCE[lang]) if lang in REFERENCE else None

    def glossary(self, lang: str) -> dict[str, Any]:
        from pbem.render.maria.names import glossary

        return glossary(lang)

    def map_svg(self, view: Mapping[str, Any], highlights: Mapping[str, Any], lang: str) -> str | None:
        from pbem.render.maria.mapview import map_svg

        return map_svg(view, highlights, lang)

    def action_box(self, view: Mapping[str, Any], highlights: Mapping[str, Any]) -> Box | None:
        from pbem.render.maria.mapview import action_box

        return action_box(view, highlights)

    def map_ground(self, svg: str) -> int:
        from pbem.render.maria.mapview import map_ground

        return map_ground(svg)

    def map_names(self, svg: str) -> MapNames | None:
        from pbem.render.maria.svgmap.stored import map_names

        return map_names(svg)

    def map_recurring(self, svg: str) -> tuple[tuple[int, int], ...]:
        from pbem.render.maria.svgmap.stored import legend_span

        span = legend_span(svg)
        return (span,) if span else ()

    def story(self, events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        from pbem.render.maria.story import story

        return story(events)

    def phase_summary(self, events: Sequence[Mapping[str, Any]], view: Mapping[str, Any]) -> dict[str, Any]:
        from pbem.render.maria.story import phase_summary

        return phase_summary(events, view)

    def order_page_data(self, state: Mapping[str, Any], view: Mapping[str, Any], powers: list[str],
                        legal: Mapping[str, Any], lang: str) -> dict[str, Any] | None:
        from pbem.render.maria.orderdata import order_data

        return order_data(state, view, powers, lang)

    def order_page_map(self, view: Mapping[str, Any], lang: str) -> str | None:
        """The seat's map as the order page draws it when the publisher gives none."""
        from pbem.games.maria.board import load_board
        from pbem.render.maria.svgmap import render_map

        return render_map(load_board(), view["map"], lang=lang)


PRESENTATION = MariaPresentation()
