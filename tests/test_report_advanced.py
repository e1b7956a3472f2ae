"""Reports of Maria's advanced game (M9-M11): every political, track, peace, election, marker and
scoring event has a sentence of its own in both languages, and no report of a whole advanced
game falls back to the raw key/value line of ``base/events/_other``."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from pbem.render import i18n
from pbem.render.reportpage import glossary

LANGS = ("en", "zh-TW")
CJK = re.compile(r"[\u4e00-\u9fff]")

# One event of each advanced type, with the fields the engine gives it (pbem/games/maria/rules/
# politics.py, effects.py and tracks.py); the optional fields appear in a second sample where they
# change the sentence.
SAMPLES: list[dict[str, Any]] = [
    {"type": "political_cards", "cards": ["PC07", "PC05"],
     "names": {"PC07": "Imperial Diet at Frankfurt (1742)", "PC05": "Belle-Isle's Diplomatic Offensive (1741)"}},
    {"type": "political_cards_leave", "cards": ["PC04"], "group": "A", "reason": "the group's turns are over (M9.2)"},
    {"type": "trump", "suit": "H", "named_by": None, "turned": ["H9.3"]},
    {"type": "trump", "suit": "S", "named_by": "FR", "turned": []},
    {"type": "bid_commitments", "turn": 1, "mode": "trusted_gm", "commitments": {"AU": "ab" * 32, "FR": "cd" * 32}},
    {"type": "bid_commitments", "turn": 2, "mode": "trustless", "commitments": {}},
    {"type": "bid_refused", "power": "AU", "reason": "does not match its commitment"},
    {"type": "bid_reveal", "turn": 1, "trump": "H", "bids": {"AU": "H7.2", "FR": "pass"}, "returned": {"PR": ["D3.1"]},
     "display": {"AU": ["H7.2"]}},
    {"type": "choosing_order", "totals": {"AU": 7, "FR": 0, "PR": 10, "PA": 0}, "order": ["PR", "AU"]},
    {"type": "choice", "power": "PR", "choice": "take", "card": "PC05", "discarded": ["H10.4"]},
    {"type": "choice", "power": "AU", "choice": "keep", "display": ["H7.2"]},
    {"type": "display_returned", "power": "AU", "cards": ["C2.3"]},
    {"type": "political_card_untaken", "card": "PC07"},
    {"type": "political_card", "power": "PR", "card": "PC05", "executed": True, "name": "Belle-Isle's Diplomatic Offensive (1741)"},
    {"type": "political_card", "power": "AU", "card": "PC01", "executed": False},
    {"type": "effect_skipped", "card": "PC05", "effect": 2, "reason": "optional, skipped"},
    {"type": "draw_modifier", "power": "PA", "delta": 1, "stages": 2, "card": "PC12"},
    {"type": "troops_added", "power": "AU", "troops": 1, "lost": 1, "cause": "PC02 add_troops"},
    {"type": "troops_lost", "power": "AU", "troops": 1, "cause": "PC20 lose_troops"},
    {"type": "blocked", "power": "PA", "pieces": ["cumberland", "stair"], "stages": 1, "cause": "PC23 block_generals"},
    {"type": "unblocked", "piece": "cumberland", "power": "PA"},
    {"type": "hussar_change", "delta": 1, "turns": 2, "cause": "PC02 hussars"},
    {"type": "hussar_change", "delta": -1, "turns": 1, "cause": "PC20 hussars"},
    {"type": "train_not_restored", "power": "FR", "reason": "no re-entry site is free"},
    {"type": "track", "track": "italy", "frm": 0, "to": -1, "cause": "PC05 move_track"},
    {"type": "alliance", "power": "SX", "ally": None, "neutral": True},
    {"type": "alliance", "power": "SX", "ally": "PR", "neutral": False},
    {"type": "neutral", "power": "PR", "neutral": True, "cause": "M9.16"},
    {"type": "neutral", "power": "PR", "neutral": False, "cause": "M9.16"},
    {"type": "transfer", "piece": "rutowski", "power": "SX", "frm": "hemau", "to": "plauen", "cause": "M9.10"},
    {"type": "peace_offered", "accepted": False, "reason": "Austria does not accept"},
    {"type": "peace_offered", "accepted": True},
    {"type": "peace", "turn": 7},
    {"type": "train_placed", "train": "pr_2", "power": "PR", "city": "berlin", "cause": "M9.15"},
    {"type": "withdrawn", "general": "friedrich", "power": "PR", "city": "liegnitz", "cause": "russia"},
    {"type": "withdrawal_ended", "general": "schwerin", "cause": "russia"},
    {"type": "withdrawn_waits", "general": "schwerin", "power": "PR"},
    {"type": "marker_removed", "city": "wittenberg", "power": "PR", "marker": True, "to": "pool", "cause": "M9.10 Saxony neutral"},
    {"type": "marker_removed", "city": "brieg", "power": "PR", "marker": True, "to": "out", "cause": "PC14 retire_markers"},
    {"type": "markers_returned", "power": "PR", "count": 1, "cause": "M9.15 step 7"},
    {"type": "box_filled", "power": "AU", "box": "card_bohemian_crown", "cause": "PC09 place_marker", "pool": 6},
    {"type": "box_filled", "power": "PR", "box": "major_victory", "cause": "M5.10", "pool": 3},
    {"type": "box_not_filled", "power": "FR", "box": "emperor", "reason": "the pool is empty (M9.18)"},
    {"type": "election", "cause": "M9.14", "held": True, "votes": {"coalition": 3, "habsburg": 2}, "elected": None},
    {"type": "election", "cause": "M9.14", "held": True, "votes": {"coalition": 5, "habsburg": 2}, "elected": "coalition"},
    {"type": "election", "cause": "PC07 trigger_election", "held": False, "reason": "an Emperor is already elected"},
    {"type": "winter_score", "scores": {"AU": 6, "FR": 10}, "totals": {"AU": 14, "FR": 31}},
    {"type": "subsidy", "giver": "FR", "to": "PR"},
    {"type": "round_skipped", "step": "winter", "reason": "no power can buy anything"},
    {"type": "round_skipped", "step": "prussia", "reason": "no power has anything to order"},
    {"type": "subsidy_card", "power": "FR", "giver": "FR", "to": "PR", "card": "H5.1", "audience": "louis"},
]
ADVANCED_TYPES = sorted({e["type"] for e in SAMPLES})

# Older types with fields the advanced game adds, and what the sentence must then say (en).
NEW_FIELDS: list[tuple[dict[str, Any], str]] = [
    ({"type": "hussars", "cities": ["melk"], "source": "1741-1/politics"}, "one mail covered two phases"),
    ({"type": "draw", "power": "PR", "count": 1, "cause": "PC17 draw"}, "political card PC17"),
    ({"type": "general_returned", "general": "schwerin", "power": "PR", "city": "berlin", "cause": "M9.17"}, "M9.17"),
    ({"type": "train_reentered", "train": "fr_1", "power": "FR", "city": "metz", "cost": 0, "cause": "PC19 restore_train"},
     "political card PC19"),
    ({"type": "eliminated", "general": "noailles", "power": "FR", "city": "mainz", "cause": "no_transfer_site"},
     "no place to transfer to"),
    ({"type": "train_destroyed", "train": "sx_1", "power": "SX", "city": "mainz", "cause": "no_transfer_site"},
     "no place to transfer to"),
    ({"type": "game_over", "winner": "AU", "reason": "M10.4 lowest winter total 14", "totals": {"AU": 14, "FR": 31}},
     "France 31"),
]


def render_event(e: dict[str, Any], lang: str, ext: str) -> str:
    """``e`` rendered the way base/public.* includes an event, with Maria's names."""
    env = i18n.environment(lang)
    tpl = env.from_string(
        '{% import "maria/names.' + ext + '" as n with context %}'
        '{% include ["maria/events/" ~ e.type ~ ".' + ext + '", "base/events/" ~ e.type ~ ".' + ext + '", '
        '"base/events/_other.' + ext + '"] %}')
    return tpl.render(e=e, glossary=glossary("maria", lang), game="maria").strip()


def fallback(e: dict[str, Any], lang: str, ext: str) -> str:
    """What the generic template would print for ``e``."""
    env = i18n.environment(lang)
    return env.get_template(f"base/events/_other.{ext}").render(e=e).strip()


def plain(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html)).strip()


@pytest.mark.parametrize("e", SAMPLES + [s for s, _ in NEW_FIELDS], ids=lambda e: e["type"])
def test_every_advanced_event_is_a_sentence_in_both_languages(e: dict[str, Any]) -> None:
    out = {(lang, ext): render_event(e, lang, ext) for lang in LANGS for ext in ("html", "txt")}
    for (lang, ext), text in out.items():
        assert text != fallback(e, lang, ext), (lang, ext, text)
        assert "ev-other" not in text
        assert len(plain(text)) >= 6, (lang, ext, text)
    assert plain(out["en", "html"]) != plain(out["zh-TW", "html"])
    assert CJK.search(out["zh-TW", "txt"]), out["zh-TW", "txt"]
    # the HTML and the text say the same words
    assert " ".join(plain(out["en", "html"]).split()) == " ".join(out["en", "txt"].split())


def test_new_fields_of_older_events_are_said() -> None:
    for e, words in NEW_FIELDS:
        assert words in render_event(e, "en", "txt"), e["type"]
    assert "一封郵件涵蓋兩個階段" in render_event(NEW_FIELDS[0][0], "zh-TW", "txt")


def test_names_come_through_the_glossary_and_the_game_terms() -> None:
    zh: dict[str, str] = {}
    for e in SAMPLES:  # the first sample of each type
        zh.setdefault(e["type"], render_event(e, "zh-TW", "txt"))
    assert "奧地利" in zh["bid_refused"] and "出價" in zh["bid_refused"]
    assert "♥" in zh["trump"] and "王牌花色" in zh["trump"]
    assert "政治牌" in zh["political_card"]
    assert "貝勒-伊勒的外交攻勢（1741）" in zh["political_card"]  # the card's own title (M9.20)
    card = next(e for e in SAMPLES if e["type"] == "political_card")
    assert "Belle-Isle's Diplomatic Offensive (1741)" in render_event(card, "en", "txt")
    own_deck = dict(card, name="Pandur Raid")  # a GM's own deck keeps its own titles
    assert "Pandur Raid" in render_event(own_deck, "zh-TW", "txt")
    assert "勝利標誌" in zh["box_filled"] and "波希米亞王冠" in zh["box_filled"]
    assert "和約" in zh["peace"]
    assert "萊格尼察" in zh["withdrawn"]  # a city through the glossary, not its id
    assert "補給車隊" in zh["train_placed"]
    assert "冬季" in zh["winter_score"]
    en = render_event(SAMPLES[4], "en", "txt")
    assert "SHA-256" in en and "ab" * 32 in en and "before the reveal" in en and "To check" in en


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One whole advanced bot game with its reports (``pbem demo`` plays Maria's advanced game)."""
    root = tmp_path_factory.mktemp("advanced")
    run_cli("demo", str(root), "--quiet")
    return root / "campaign"


def test_an_advanced_game_has_no_generic_event_line(demo: Path) -> None:
    events = [e for p in sorted((demo / "states").glob("*.events.json")) for e in json.loads(p.read_bytes())]
    seen = {e["type"] for e in events}
    # the demo reaches the political phases: most of the advanced types occur
    assert {"bid_reveal", "political_card", "track", "winter_score"} <= seen
    reports = sorted(p for p in (demo / "reports").rglob("*") if p.suffix in (".html", ".txt") and p.is_file())
    assert any(p.name.startswith("public.zh-TW") for p in reports)
    texts = {p: p.read_text() for p in reports}
    for p, text in texts.items():
        assert "ev-other" not in text, p
    advanced = {json.dumps(e, sort_keys=True): e for e in events if e["type"] in ADVANCED_TYPES}
    for e in advanced.values():
        line = fallback(e, "en", "txt")
        hits = [p for p, text in texts.items() if line in text]
        assert not hits, (e["type"], hits[:3])
    for t in sorted(seen & set(ADVANCED_TYPES)):
        e = next(x for x in events if x["type"] == t)
        for lang in LANGS:
            assert len(plain(render_event(e, lang, "html"))) >= 6, (t, lang)
    # a political phase's public report says who took which political card, in both languages
    politics = sorted(p for p in (demo / "reports").glob("*_politics"))
    assert politics
    both = "".join(texts[d / "public.txt"] for d in politics)
    assert "takes the political card" in both, "no political card taken in the whole demo"
    assert "takes no political card" in both, "every political phase took a card"
    assert "王牌花色" in "".join(texts[d / "public.zh-TW.txt"] for d in politics)
