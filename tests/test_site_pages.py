"""The history site's phase pages: each has a summary (battles, conquests, who leads), links to
the previous and next phase, the index and the map, in both languages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from test_report_games import play_bot_game

from pbem.games.maria import selfplay
from pbem.games.maria.views import view
from pbem.render.report import phase_summary, visible_events
from pbem.core.site import build_site


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
