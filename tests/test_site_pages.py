"""The history site's phase pages: each has a summary (battles, conquests, who leads), links to
the previous and next phase, the index and the map, in both languages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from test_report_games import play_bot_game

from pbem.core.site import build_site
from pbem.games.maria import selfplay
from pbem.games.maria.views import view
from pbem.render.report import phase_summary, visible_events


def test_every_phase_page_links_its_neighbours(tmp_path: Path) -> None:
    camp = play_bot_game(tmp_path / "camp", "mini", "long", 9, max_phases=3, publish=False)
    build_site(camp)
    site = tmp_path / "camp" / "site"
    keys = sorted(p.name for p in site.iterdir() if p.is_dir())
    assert len(keys) >= 3
    for sfx in ("", ".zh-TW"):
        index = (site / f"index{sfx}.html").read_text()
        for i, key in enumerate(keys):
            assert f'href="{key}/index{sfx}.html"' in index
            page = (site / key / f"index{sfx}.html").read_text()
            assert f'href="public{sfx}.html"' in page and f'href="../index{sfx}.html"' in page
            prev = re.search(r'rel="prev" href="\.\./([^/]+)/', page)
            nxt = re.search(r'rel="next" href="\.\./([^/]+)/', page)
            assert (prev.group(1) if prev else None) == (keys[i - 1] if i else None)
            assert (nxt.group(1) if nxt else None) == (keys[i + 1] if i + 1 < len(keys) else None)
    assert "本階段" in (site / keys[1] / "index.zh-TW.html").read_text()


def test_maria_summary_counts_battles_conquests_and_leaders() -> None:
    rounds: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    selfplay.play(1, check=lambda state, _o, events: rounds.append((view(state, "public"), events)))
    battles = conquests = 0
    for v, events in rounds:
        s = phase_summary("maria", visible_events(events, "public"), v)
        assert len(s["battles"]) == sum(e["type"] == "battle" for e in events)
        assert [c["city"] for c in s["conquests"]] == [e["city"] for e in events if e["type"] == "conquest"]
        counts = [x["fortresses"] for x in s["leaders"]]
        assert counts == sorted(counts, reverse=True) and sum(counts) == len(v["control"])
        battles += len(s["battles"])
        conquests += len(s["conquests"])
    assert battles > 0 and conquests > 5
    assert phase_summary("mini", [], {}) == {"battles": [], "conquests": [], "leaders": []}


def _visible(page: str) -> str:
    """The words a reader sees on a page: no scripts, styles, drawings, code, hashes or lines to
    copy (commands, the pin); the audit's lines (``pre.audit``) are words to read and stay."""
    import html

    page = re.sub(r"<(script|style|svg|code)\b.*?</\1>|<pre(?! class=\"audit\")\b.*?</pre>", " ", page, flags=re.S)
    page = re.sub(r'<(\w+)[^>]*class="hash"[^>]*>.*?</\1>', " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


# Latin words a Chinese page may show: the test game's own ids and words (its seats, rounds,
# scenario and result), the campaign id, format names, the language link and pbem's name.
MINI_WORDS = {"mini", "north", "south", "round", "short", "most", "points", "N", "S"}
PAGE_WORDS = {"HTML", "SVG", "English", "pbem", "SHA", "UTC"}


def _english(text: str, allowed: set[str]) -> list[str]:
    """Latin words of ``text`` that are not allowed: hashes, file names, quoted commands, rule
    ids, trains (fr_2) and the rules reference's option lines (ids and values of the campaign file)
    aside."""
    text = re.sub(r"\b[0-9a-f]{12,}\b|[\w./-]+\.(?:html|txt|svg|md|json)\b|'[^'\n]*'|\[選項 [^\]]*\]"
                  r"|\b(?:M\d+\.\d+|E\d+|W\d|[a-z]{2}_\d+)\b", " ", text)
    return sorted({w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in allowed})


def test_the_history_site_reads_in_chinese(tmp_path: Path) -> None:
    """Every page of the history site in zh-TW (the index with the audit's lines, each phase's
    page and the secrets page at the end) holds no English outside ids and proper names."""
    from pbem.core.audit import audit

    camp = play_bot_game(tmp_path / "camp", "mini", "short", 1, publish=False)
    build_site(camp)
    site = tmp_path / "camp" / "site"
    pages = [site / "index.zh-TW.html", site / "secrets.zh-TW.html",
             *sorted(site.glob("*/index.zh-TW.html"))]
    assert len(pages) > 4 and all(p.is_file() for p in pages)
    for page in pages:
        assert _english(_visible(page.read_text()), MINI_WORDS | PAGE_WORDS) == [], page
    index = _visible((site / "index.zh-TW.html").read_text())
    assert len(audit(camp).lines()) >= 3
    assert "雜湊鏈完整" in index and "重播" in index  # the audit's lines, in Chinese
    secrets = _visible((site / "secrets.zh-TW.html").read_text())
    assert "手牌" in secrets or "分數" in secrets or "出價" in secrets, secrets[:400]


def test_maria_phase_pages_read_in_chinese(tmp_path: Path) -> None:
    from pbem.games.maria.board import load_board

    camp = play_bot_game(tmp_path / "camp", "maria", "intro", 2, max_phases=4, publish=False)
    build_site(camp)
    site = tmp_path / "camp" / "site"
    names = {w for c in load_board().cities.values() for w in re.findall(r"[A-Za-z]{2,}", c.name)}
    pages = [site / "index.zh-TW.html", *sorted(site.glob("*/index.zh-TW.html")), *sorted(site.glob("*/public.zh-TW.html"))]
    assert len(pages) > 8
    # the game's and the campaign's ids: powers, phase folders, a variable of a rule (diff), a field (seq)
    ids = {"maria", "camp", "AU", "FR", "PR", "PA", "BA", "SX", "start", "setup", "hussars", "france", "prussia",
           "austria", "diff", "max", "seq"}
    told = ""
    for page in pages:
        text = _visible(page.read_text())
        assert _english(text, PAGE_WORDS | names | ids) == [], (page, text)
        told += text
    assert "征服" in told and "領先" in told
    # the text reports: what changed is marked » (and the mark explained), routine supply is one table
    texts = [p.read_text() for p in sorted(site.glob("*/public.txt"))]
    marked = [line for t in texts for line in t.splitlines() if re.match(r"^\s*\d+\. » ", line)]
    assert marked and all("» marks what changed" in t for t in texts if re.search(r"^\s*\d+\. » ", t, re.M))
    assert any(re.search(r"^\s*\d+\. In supply \(\d+\):\n\s+Power\s+General\s+City$", t, re.M) for t in texts)
