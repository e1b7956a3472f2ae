"""Maria's rules at hand: pbem's own rules reference (docs/rules/maria.md and maria.zh-TW.md),
organised by the sequence of play, has an anchor for every rule id a Maria report, order check
or refusal cites; a report links each cited id to the rule's text in the reader's language, and
its glossary explains suits, strengths, reserves and markers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.render import i18n, rules
from pbem.render.reportpage import glossary

ROOT = Path(__file__).resolve().parent.parent
DOCS = {"en": ROOT / "docs/rules/maria.md", "zh-TW": ROOT / "docs/rules/maria.zh-TW.md"}
CITED = re.compile(r"\b(M\d{1,2}\.\d{1,2}|E\d{1,2}|W\d)\b")


def cited_ids() -> set[str]:
    """Every rule id the Maria engine, its templates and its order page can print."""
    files = [*(ROOT / "pbem/games/maria").rglob("*.py"), *(ROOT / "templates/maria").rglob("*.*"),
             *(ROOT / "templates/orderpage").glob("maria*.js")]
    found: set[str] = set()
    for f in files:
        found |= set(CITED.findall(f.read_text(encoding="utf-8")))
    return found


def anchors(lang: str) -> set[str]:
    return set(re.findall(r'<a id="([a-z0-9-]+)"></a>', DOCS[lang].read_text(encoding="utf-8")))


@pytest.mark.parametrize("lang", sorted(DOCS))
def test_every_cited_rule_has_an_anchor(lang: str) -> None:
    ids = cited_ids()
    assert len(ids) > 90
    missing = sorted(r for r in ids if rules.anchor(r) not in anchors(lang))
    assert not missing, f"{DOCS[lang].name} lacks anchors for {missing}"
    for r in ids:
        assert rules.rule_text("maria", lang, r), r


def test_both_editions_have_the_same_anchors_in_the_order_of_play() -> None:
    en, zh = (DOCS[lang].read_text(encoding="utf-8") for lang in ("en", "zh-TW"))
    assert anchors("en") == anchors("zh-TW")
    # the sequence of play: the political phase and the hussars before a stage's supply,
    # movement, combat and conquest; victory and winter after them
    for doc in (en, zh):
        order = [doc.index(f'<a id="{s}"></a>') for s in ("m2", "m9", "m7", "m6", "m3", "m5", "m4", "m10", "m8")]
        assert order == sorted(order)


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_report_links_the_rules_it_cites(lang: str) -> None:
    env = i18n.environment(lang)
    ev = {"type": "conquest_pending", "city": "prag", "power": "FR", "general": "broglie", "protector": "karl"}
    tpl = env.from_string(
        '{% import "maria/names.html" as n with context %}{% set cited = [] %}'
        '{% set one %}{% include "maria/events/" ~ e.type ~ ".html" %}{% endset %}{{ one|link_rules(game, cited) }}'
        '|{% for r in cited %}<dt id="rule-{{ rules.anchor(r) }}">{{ rules.rule_text(game, lang, r) }}</dt>{% endfor %}')
    out = tpl.render(e=ev, glossary=glossary("maria", lang), game="maria")
    assert '<a class="rule" href="#rule-m4-7">M4.7</a>' in out and 'id="rule-m4-7"' in out
    assert ('Pending conquest' if lang == "en" else "待定的征服") in out


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_the_glossary_explains_the_report_words(lang: str) -> None:
    words = dict(rules.glossary_items("maria", lang))
    want = (["Suits", "Reserves", "Strength", "Victory markers", "Face down"] if lang == "en"
            else ["花色", "預備牌", "戰力", "勝利標誌", "背面朝上"])
    for w in want:
        assert any(w in term for term in words), (w, list(words))
    assert all(len(text) > 20 for text in words.values())


def sections(lang: str) -> dict[str, str]:
    """Each anchor's text in the reference, up to the next anchor or heading."""
    parts = re.split(r'(<a id="[a-z0-9-]+"></a>)', DOCS[lang].read_text(encoding="utf-8"))
    return {re.search(r'id="([^"]+)"', parts[i]).group(1): parts[i + 1].split("\n## ")[0]  # type: ignore[union-attr]
            for i in range(1, len(parts), 2)}


def prose(text: str) -> str:
    """A section without its code, option lines and table rows."""
    text = re.sub(r"`[^`]*`|\[(?:option|選項) [^\]]*\]", " ", text)
    return "\n".join(line for line in text.splitlines() if not line.startswith("|"))


def test_the_chinese_edition_says_every_rule_in_full() -> None:
    """Not a summary: every rule and worked example of the English edition is in the Chinese
    one with as much to say (a Chinese character for every English word at least, which a
    condensed edition falls far short of), the same options and the same list items."""
    en, zh = sections("en"), sections("zh-TW")
    assert set(en) == set(zh)
    short = []
    for a, text in en.items():
        assert re.findall(r"\[option ([\w.]+)", text) == re.findall(r"\[選項 ([\w.]+)", zh[a]), a
        items = r"^\s*(?:- |\d+\. )"
        assert len(re.findall(items, text, re.M)) == len(re.findall(items, zh[a], re.M)), a
        words = len(re.findall(r"\b[a-z]{2,}\b", prose(text)))
        chinese = len(re.findall(r"[\u4e00-\u9fff]", prose(zh[a])))
        if re.match(r"[mw]\d", a) and words >= 10 and chinese < words:
            short.append((a, words, chinese))
    assert not short, f"sections shorter in Chinese than in English (id, English words, Chinese characters): {short}"
    # every table of the English edition (effects, cards, options, rounds, decisions, data) too
    assert DOCS["en"].read_text(encoding="utf-8").count("\n|---") == DOCS["zh-TW"].read_text(encoding="utf-8").count("\n|---")


def test_the_chinese_edition_is_written_chinese_with_the_seed_terms() -> None:
    doc = DOCS["zh-TW"].read_text(encoding="utf-8")
    text = re.sub(r"`[^`]*`|<[^>]+>|\([a-z0-9.#-]+\.md(?:#[a-z0-9-]+)?\)", " ", doc)
    cjk = "\u3000-\u9fff\uff00-\uffef"
    ascii_marks = re.findall(rf"[{cjk}]\s?[(),;:]|[(),;:]\s?[{cjk}]", text)
    assert not ascii_marks, ascii_marks[:10]
    for term in ("護皇軍", "瑪莉亞泰瑞莎", "腓特烈", "路易十五", "戰術牌", "政治牌", "勝利標誌", "行動階段",
                 "政治階段", "補給車", "輕騎兵", "要塞", "重大戰鬥勝利", "簡易遊戲", "進階遊戲", "選區要塞"):
        assert term in doc, term
    for retired in ("國事詔書軍", "大勝", "選帝侯"):
        assert retired not in doc, retired
