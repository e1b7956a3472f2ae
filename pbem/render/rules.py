"""The rules at hand: the rule ids a report cites, linked to their text.

A game's presentation names its rules reference (``rules_reference``) and the form of its rule
ids (``rule_id``); pbem ships one per game (Maria: ``docs/rules/maria.md``, in Chinese
``maria.zh-TW.md``; the Republic of Rome: ``ror.md``, ``ror.zh-TW.md``) with one anchor per rule
id (``M4.7`` -> ``#m4-7``, ``R6.6`` -> ``#r6-6``, the loss ``L4`` -> ``#l4``). A report's events pass through :func:`link_rules`,
which makes every rule id they cite a link to the report's own "Rules cited" list and notes the
id; that list then prints each rule's paragraph from the reference in the reader's language, so
the rule is at hand offline, in a mail as on the history site. The reference's list of the words
used in the reports is the report's glossary (:func:`glossary_items`).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from pbem.games import presentation

CJK = r"[\u3000-\u9fff\uff00-\uffef]"


def anchor(rule: str) -> str:
    """The anchor of ``rule`` in the reference: ``M4.7`` -> ``m4-7``."""
    return rule.lower().replace(".", "-")


@cache  # a report's "Rules cited" names it; finding the shipped folder reads the disk
def doc_name(game: str, lang: str) -> str | None:
    """The file name of ``game``'s rules reference in ``lang`` (pbem's own live under
    docs/rules/), if it has one; a language without its own reference reads the English one
    (as ``i18n.check_lang`` falls back). The i18n environment imports this module for its
    filters, so this module does not import i18n."""
    path = _path(game, lang)
    return path.name if path is not None else None


def shipped(name: str) -> Path | None:
    """The rules reference ``name`` that pbem ships under docs/rules/ (None if it is missing)."""
    from pbem.data import data_dir

    try:
        return data_dir("docs/rules") / name
    except FileNotFoundError:
        return None


def _path(game: str, lang: str) -> Path | None:
    present = presentation(game)
    return present.rules_reference(lang) or present.rules_reference("en")


def _pattern(game: str) -> re.Pattern[str] | None:
    return presentation(game).rule_id


@cache
def _doc(game: str, lang: str) -> str:
    path = _path(game, lang)
    if path is None:
        return ""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:  # an installation without the reference: ids stay plain
        return ""


def _join(lines: list[str]) -> str:
    text = ""
    for line in lines:
        # a wrapped line: Chinese joins without a space
        glue = "" if not text or re.match(CJK, line) or re.search(CJK + "$", text) else " "
        text += glue + line
    return text


@cache
def rule_text(game: str, lang: str, rule: str) -> str | None:
    """The paragraph of ``rule`` in the reference (Markdown emphasis and table bars removed)."""
    doc = _doc(game, lang)
    m = re.search(r'<a id="' + re.escape(anchor(rule)) + r'"></a>(.*?)(?:\n\s*\n|\n<a id=|\n\| <a id=|$)', doc, re.S)
    if m is None:
        return None
    lines = [ln.strip().strip("|").strip() for ln in m.group(1).replace("**", "").replace("`", "").splitlines() if ln.strip()]
    text = re.sub(r"\s*\|\s*", " — ", _join(lines))
    text = re.sub(r"^" + re.escape(rule) + r"\b\s*(?:— )?", "", text)  # the id is printed beside it
    text = re.sub(r"([\u3001\u3002\uff0c\uff1a\uff1b])\s+", r"\1", text)
    return text or None


@cache
def glossary_items(game: str, lang: str) -> tuple[tuple[str, str], ...]:
    """The reference's "words used in the reports": (term, explanation) pairs."""
    doc = _doc(game, lang)
    m = re.search(r"\n## [^\n]*\n\n((?:- .*\n(?: .*\n)*)+)", doc)
    if m is None:
        return ()
    items = []
    for item in re.split(r"\n(?=- )", m.group(1).strip()):
        text = _join([ln.strip() for ln in item[2:].splitlines()])
        term = re.match(r"\*\*(.+?)\*\*", text)
        if term:
            items.append((term.group(1), text[term.end():].lstrip(" ：:").replace("**", "").replace("`", "")))
    return tuple(items)


def link_rules(html: Any, game: str, cited: list[str]) -> Markup:
    """``html`` (a rendered event) with every rule id that the reference has made a link to
    ``#rule-<anchor>``; the ids are added to ``cited`` in order of first mention."""
    key = (str(html), game)
    linked = _LINKED.get(key)
    if linked is None:
        if len(_LINKED) >= 4096:
            _LINKED.clear()
        mentioned: list[str] = []
        linked = _LINKED[key] = (_link_rules(html, game, mentioned), tuple(mentioned))
    for rule in linked[1]:
        if rule not in cited:
            cited.append(rule)
    return linked[0]


# each event's sentence as linked and the rules it cites: a phase's reports show the same events
_LINKED: dict[tuple[str, str], tuple[Markup, tuple[str, ...]]] = {}


def forget_links() -> None:
    """Forget the sentences linked so far (a benchmark publishes each phase as a daily run does, once)."""
    _LINKED.clear()


def _link_rules(html: Any, game: str, cited: list[str]) -> Markup:
    pattern = _pattern(game)
    if pattern is None or pattern.search(str(html)) is None:
        return Markup(html)
    out = []
    # rule ids only in text, never inside a tag
    for part in re.split(r"(<[^>]*>)", str(html)):
        if part.startswith("<"):
            out.append(part)
            continue

        def link(m: re.Match[str]) -> str:
            rule = m.group(1)
            if rule_text(game, "en", rule) is None:
                return rule
            if rule not in cited:
                cited.append(rule)
            return f'<a class="rule" href="#rule-{anchor(rule)}">{escape(rule)}</a>'

        out.append(pattern.sub(link, part))
    return Markup("".join(out))


def note_rules(text: str, game: str, cited: list[str]) -> str:
    """The plain-text counterpart of :func:`link_rules`: ``text`` unchanged, its rule ids noted."""
    pattern = _pattern(game)
    if pattern is not None:
        for rule in pattern.findall(text):
            if rule not in cited and rule_text(game, "en", rule) is not None:
                cited.append(rule)
    return text
