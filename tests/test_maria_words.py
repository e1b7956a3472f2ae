"""Maria's reports in the players' own words: the zh-TW catalog names things with the terms of
the user's rule summary (seed 000), and every Maria event reads as written Chinese, with no
English word left over beyond ids (cities, cards, rules) and proper names."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from typing import Any

import jinja2
import pytest

from pbem.render import i18n
from pbem.render.reportpage import glossary

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_event_templates import call_sites  # noqa: E402
from test_report_advanced import SAMPLES  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# English message id -> the seed's term its translation must use
GLOSSARY = {
    "Pragmatic Army": "護皇軍",
    "Maria Theresa": "瑪莉亞泰瑞莎",
    "Frederick": "腓特烈",
    "Louis XV": "路易十五",
    "Tactical cards": "戰術牌",
    "political card %(card)s": "政治牌",
    "Victory marker": "勝利標誌",
    "Victory markers": "勝利標誌",
    "action stage": "行動階段",
    "political phase": "政治階段",
    "supply train %(id)s": "補給車",
    "hussars": "輕騎兵",
    "Fortress": "要塞",
    "major victory": "重大戰鬥勝利",
    "electoral fortresses box": "選區要塞",
}
# words the seeds replace, which must not come back
RETIRED = ("國事詔書軍", "選帝侯")  # the seed says 護皇軍 and 選區要塞


def test_the_seed_terms_name_things_in_zh_tw() -> None:
    for english, term in GLOSSARY.items():
        assert term in i18n.gettext_for("zh-TW", english), f"{english!r} should read {term}"
    po = (ROOT / "pbem/locale/zh_TW/LC_MESSAGES/pbem.po").read_text(encoding="utf-8")
    svgmap = "".join(f.read_text(encoding="utf-8") for f in sorted((ROOT / "pbem/render/maria/svgmap").glob("*.py")))
    seeds = "".join(f.read_text(encoding="utf-8") for f in sorted((ROOT / "seeds/maria").glob("*.yaml")))
    for old in RETIRED:
        assert old not in po and old not in svgmap and old not in seeds, old


def test_phase_ids_and_seats_read_as_words() -> None:
    env = i18n.environment("zh-TW")
    tpl = env.from_string('{% import "maria/names.txt" as n with context %}'
                          '{{ n.phase_label(p) }}|{{ n.seat(s) }}')
    assert tpl.render(p="1743-1/france", s="louis", glossary={}) == "1743 年第 1 回合，法國與巴伐利亞|路易十五"
    assert tpl.render(p="1742-winter", s="maria_theresa", glossary={}) == "1742 年，冬季|瑪莉亞泰瑞莎"
    en = i18n.environment("en").from_string('{% import "maria/names.txt" as n with context %}{{ n.phase_label(p) }}')
    assert en.render(p="1743-1/france", glossary={}) == "1743, turn 1, France and Bavaria"


# Plausible values for the fields the engine gives, by name: enough for a template to print
# its whole sentence.
SAMPLE: dict[str, Any] = {
    "power": "FR", "winner": "PR", "winner_power": "PR", "ally": "PR", "giver": "FR", "named_by": "AU",
    "previous": "AU", "city": "prag", "frm": 1, "general": "broglie", "by": "broglie",
    "pieces": ["broglie", "fr_1"], "generals": ["broglie"], "eliminated": ["broglie"],
    "path": ["prag", "beraun"], "retreat": ["prag", "beraun"], "cities": ["prag", "beraun"],
    "card": "H7.2", "cards": ["H7.2", "S3.1"], "count": 2, "delta": 1, "stages": 2, "turns": 1,
    "losses": 2, "cost": 4, "troops": 3, "diff": 2, "pool": 5, "turn": 4, "effect": 1, "lost": 1,
    "cause": "M4.7", "train": "fr_1", "suit": "H", "trump": "H", "box": "major_victory", "track": "saxony",
    "step": "france", "totals": [7, 5], "marker": True, "how": "entry", "force_march": False,
    "accepted": True, "held": True, "neutral": False, "major_victory": True,
    "attacker": {"power": "FR", "generals": ["broglie"], "strength": 5, "city": "beraun"},
    "defender": {"power": "AU", "generals": ["karl"], "strength": 4, "city": "prag"},
    "plays": [{"side": "attacker", "card": "H7.2", "value": 7}], "winner_side": "attacker",
}
# ids and proper names that may stay in Latin letters in a Chinese sentence
ID = re.compile(r"maria\|&lt;turn&gt;\|&lt;power&gt;\|&lt;bid map&gt;\|&lt;salt&gt;|maria\|<turn>\|<power>\|<bid map>\|<salt>|\b(?:[0-9a-f]{16,}|SHA-256|JSON|[SHDCR]\d*\.\d+[ab]?|[SHDCR]\d+|PC\d+|M\d+(?:\.\d+)*|E\d+|W\d+|[a-z]{2}_\d+)\b")


def english_words(text: str) -> list[str]:
    """Latin-letter words of two letters or more left in ``text`` once tags and ids are gone."""
    text = ID.sub(" ", text)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.findall(r"[A-Za-z]{2,}", text)


CJK = "\u3000-\u9fff\uff00-\uffef"


def ascii_punctuation(text: str) -> list[str]:
    """ASCII brackets, commas, colons and semicolons beside a Chinese character (zh-TW uses the
    full-width forms)."""
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return re.findall(rf"[{CJK}]\s?[(),;:]|[(),;:]\s?[{CJK}]", text)


def _fields(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: (SAMPLE[k] if k in SAMPLE and v == "x1" else v) for k, v in fields.items()}


@pytest.mark.parametrize("ext", ["html", "txt"])
def test_every_maria_event_reads_as_chinese(ext: str) -> None:
    env = i18n.environment("zh-TW")
    tpl = env.from_string(
        '{% import "maria/names.' + ext + '" as n with context %}{% include ["maria/events/" ~ e.type ~ ".'
        + ext + '", "base/events/" ~ e.type ~ ".' + ext + '", "base/events/_other.' + ext + '"] %}')
    words = glossary("maria", "zh-TW")
    rendered = problems = stand_ins = 0
    bad = []
    # the game's end, whose fields the engine builds at run time (M10)
    ends = [("game_over", {"winner": w, "reason": r, "player": "louis"}, "M10")
            for w, r in (("PR", "M10.1 Prussia controls 12 Austrian or Silesian fortresses"),
                         ("FR", "M10.1 France controls 9 Austrian home fortresses"),
                         ("AU", "M10.1 no power won by the end of turn 9"),
                         ("PA", "M10.2 the pool of Pragmatic Army is empty"),
                         ("AU", "M10.3 several pools are empty; Austria has the most markers placed (M10.5 tie-break)"),
                         ("FR", "M10.4 lowest winter total 12"))]
    samples = [(s["type"], {k: v for k, v in s.items() if k != "type"}, "sample") for s in SAMPLES]
    for etype, fields, where in call_sites("maria") + ends + samples:
        if etype == "void":
            continue  # the engine's reason, in the words of the receipt
        ev = {"type": etype, **_fields(fields)}
        try:
            text = tpl.render(e=ev, glossary=words, game="maria", view={})
        except (jinja2.UndefinedError, TypeError, ValueError, AttributeError, KeyError):
            stand_ins += 1  # a stand-in value the template cannot use: its words are checked elsewhere
            continue
        rendered += 1
        # values the engine passes through as they are (stand-ins for free text) are not words
        text = text.replace("x1", " ")
        left = english_words(text) + ascii_punctuation(text)
        if left:
            problems += 1
            bad.append(f"{where}: {etype}: {left} in {text.strip()[:160]!r}")
    assert rendered > 40 and stand_ins <= rendered // 4, (rendered, stand_ins)
    assert not bad, "\n".join(bad)


def test_english_counts_read_as_words() -> None:
    env = i18n.environment("en")
    tpl = env.from_string('{% import "maria/names.html" as n with context %}'
                          '{% set one %}{% include "maria/events/" ~ e.type ~ ".html" %}{% endset %}{{ one|plurals }}')
    words = glossary("maria", "en")
    one = tpl.render(e={"type": "draw", "power": "FR", "count": 1}, glossary=words)
    many = tpl.render(e={"type": "supply", "result": "out", "general": "broglie", "power": "FR", "city": "prag", "lost": 2},
                      glossary=words)
    assert "draws 1 card<" in one and "loses 2 troops and" in many and "(s)" not in one + many
    assert i18n.plurals("1 victory marker(s) and 3 stage(s)") == "1 victory marker and 3 stages"


def test_chinese_sentences_have_no_spaces_between_chinese_words() -> None:
    assert i18n.tidy("zh-TW", "法國 征服 皮爾森（布羅伊）") == "法國征服皮爾森（布羅伊）"
    assert i18n.tidy("zh-TW", "法國 抽 5 張牌") == "法國抽 5 張牌"
    assert i18n.tidy("en", "France draws 1 card(s)") == "France draws 1 card"


def test_a_phase_title_counts_the_turns_of_its_year_as_the_phase_name_does() -> None:
    from pbem.games.maria.views import title

    state = {"turn": 9, "step": "austria"}
    assert title(state) == "1743, turn 3 \u2014 Austria"
    for lang, want in (("en", "1743, turn 3"), ("zh-TW", "1743 年第 3 回合")):
        env = i18n.environment(lang)
        both = env.from_string('{% import "maria/names.txt" as n with context %}{{ n.title(v) }}|{{ n.phase_label(p) }}')
        got_title, label = both.render(v=state, p="1743-3/austria", glossary={}).split("|")
        assert label.startswith(want) and ("turn 3" in got_title or "第 3 回合" in got_title), (got_title, label)


@pytest.mark.parametrize("ext", ["html", "txt"])
def test_a_void_order_and_a_battle_s_losses_read_as_chinese(ext: str) -> None:
    env = i18n.environment("zh-TW")
    tpl = env.from_string('{% import "maria/names.' + ext + '" as n with context %}{% include ["maria/events/" ~ e.type ~ ".'
                          + ext + '", "base/events/" ~ e.type ~ ".' + ext + '"] %}')
    words = glossary("maria", "zh-TW")
    void = tpl.render(e={"type": "void", "power": "BA", "order": None, "reason": "x"}, glossary=words)
    assert "巴伐利亞" in void and not ascii_punctuation(void), void
    losses = tpl.render(e={"type": "battle_losses", "battle": "traun>belle_isle", "losses": {"belle_isle": 1}},
                        glossary=words)
    assert "特勞恩" in losses and "traun>" not in losses and "traun" not in losses, losses
