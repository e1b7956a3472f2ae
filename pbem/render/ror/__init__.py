"""The Republic of Rome's presentation: its order page's data and words (``orderpage``). Rome
has no map; its names are its own templates' (``templates/ror/``); its rules reference is
``docs/rules/ror.md``. The game names it
(``pbem.games.ror``: ``presentation``) and the registry finds it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pbem.games.base import Presentation
from pbem.render.rules import shipped

REFERENCE = {"en": "ror.md", "zh-TW": "ror.zh-TW.md"}


class RorPresentation(Presentation):
    rule_id = re.compile(r"\b(R\d{1,2}\.\d{1,2}|L[1-4])\b")

    def rules_reference(self, lang: str) -> Path | None:
        return shipped(REFERENCE[lang]) if lang in REFERENCE else None

    def order_page_data(self, state: Mapping[str, Any], view: Mapping[str, Any], powers: list[str],
                        legal: Mapping[str, Any], lang: str) -> dict[str, Any] | None:
        from pbem.render.ror.orderpage import message_table, ror_data

        return {**ror_data(state, view, powers, legal, lang), "text": dict(message_table(lang))}


PRESENTATION = RorPresentation()
