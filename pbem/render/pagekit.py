"""What the offline pages (the order page, the key page) share: their template files, JSON that
is safe inside a ``<script>`` element, and their words in the reader's language."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from pbem.data import templates_dir
from pbem.render import i18n


@cache
def asset(folder: str, name: str) -> str:
    """The text of ``templates/<folder>/<name>``."""
    return (templates_dir() / folder / name).read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    """JSON safe inside a ``<script>`` element (no ``</`` or ``<!--`` can end it early)."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def message_table(lang: str, messages: Mapping[str, str]) -> dict[str, str]:
    """A page's words in ``lang``: English ids to the project's gettext catalog first, then the
    page's own Chinese (``messages``: id -> zh-TW) where the catalog lacks the id."""
    lang = i18n.check_lang(lang)
    out = {}
    for msg, zh in messages.items():
        text = i18n.gettext_for(lang, msg)
        if lang != "en" and text == msg:
            text = zh
        out[msg] = text
    return out
