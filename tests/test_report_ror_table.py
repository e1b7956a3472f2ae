"""The Republic of Rome's situation table (R8.7): every senator in play with his faction, the
HRAO's office, the active wars by name, and no faction's treasury in the public report."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pbem.core.campaign import Campaign
from pbem.render import i18n

LANGS = {"en": "public", "zh-TW": "public.zh-TW"}
COLON = {"en": ": ", "zh-TW": "："}  # zh-TW writes a full-width colon after a label


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A ror demo campaign and the state its first resolved phase produced."""
    root = tmp_path_factory.mktemp("ror_table") / "demo"
    subprocess.run([sys.executable, "-m", "pbem", "demo", str(root), "--game", "ror", "-q"], check=True, capture_output=True, timeout=300)
    camp = Campaign(root / "campaign")
    # records 1 and 2 are the rounds before the deal (pbem.core.deal); 3 is the first game phase
    first = next(r for r in camp.effective_records() if r["kind"] == "phase" and not r["phase"].startswith("deal/"))
    report = sorted((root / "campaign" / "reports").glob(f"{first['phase_number']:04d}*"))[0]
    return report, camp.read_state(first["index"])


def _situation(text: str, lang: str) -> str:
    """The situation part of a text report: from 'The Republic:' to the next heading."""
    start = text.index(i18n.gettext_for(lang, "The Republic") + COLON[lang].strip())
    end = text.find("\n" + i18n.gettext_for(lang, "Next") + "\n", start)
    return text[start:end if end > 0 else None]


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_every_senator_in_play_appears_with_his_faction(demo: tuple[Path, dict[str, Any]], lang: str) -> None:
    """R8.7: senators, their factions and offices are public."""
    report, st = demo
    text = _situation((report / f"{LANGS[lang]}.txt").read_text(), lang)
    page = html.unescape((report / f"{LANGS[lang]}.html").read_text())
    in_play = {sid: r for sid, r in st["senators"].items() if r["zone"] == "faction" and r["alive"]}
    assert in_play
    for sid, r in sorted(in_play.items()):
        fname = i18n.gettext_for(lang, "faction %(id)s") % {"id": r["faction"]}
        assert f"{fname}{COLON[lang]}{r['name']} ({sid})" in text, (lang, sid)
        assert re.search(rf"<td>{re.escape(fname)}</td><td>{re.escape(r['name'])} \({re.escape(sid)}\)", page), (lang, sid)


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_hrao_office_and_active_wars_are_printed(demo: tuple[Path, dict[str, Any]], lang: str) -> None:
    report, st = demo
    text = _situation((report / f"{LANGS[lang]}.txt").read_text(), lang)
    page = (report / f"{LANGS[lang]}.html").read_text()
    hrao = i18n.gettext_for(lang, "HRAO")
    hraos = [line for line in text.splitlines() if "[" + hrao in line]
    assert len(hraos) == 1, hraos  # the HRAO's row names the office first
    active = sorted(w for w, r in st["wars"].items() if r["status"] == "active")
    assert active
    for wid in active:
        assert f"  {wid}{COLON[lang]}" in text, (lang, wid)
        assert f"<td>{wid}</td>" in page, (lang, wid)
    for wid in sorted(set(st["wars"]) - set(active)):
        assert f"<td>{wid}</td>" not in page  # only active wars are listed


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_no_faction_treasury_in_the_public_report(demo: tuple[Path, dict[str, Any]], lang: str) -> None:
    """R8.7: Faction Treasuries are secret until the game ends."""
    report, st = demo
    assert st.get("game_result") is None
    for suffix in ("txt", "html"):
        body = html.unescape((report / f"{LANGS[lang]}.{suffix}").read_text())
        if suffix == "txt":
            body = _situation(body, lang)
        for fid, f in sorted(st["factions"].items()):
            value = f["faction_treasury"]
            fname = i18n.gettext_for(lang, "faction %(id)s") % {"id": fid}
            for label in (i18n.gettext_for(lang, "treasury of %(faction)s") % {"faction": fname},
                          "faction treasury", "Faction Treasury", "派系國庫"):
                assert not re.search(rf"{re.escape(label)}\D{{0,20}}\b{value}\b", body), (lang, suffix, fid)


def test_rule_ids_in_rome_reports_link_to_their_text(demo: tuple[Path, dict[str, Any]]) -> None:
    """Rules at hand: a rule id a Rome report's events cite links to the report's "Rules cited"
    list, which prints the rule from pbem's reference (docs/rules/ror.md), in Chinese for zh-TW."""
    report, _ = demo
    linked = 0
    for page in sorted(report.parent.glob("*/public*.html")):
        html_text = page.read_text(encoding="utf-8")
        for anchor in re.findall(r'<a class="rule" href="#rule-([a-z0-9-]+)">', html_text):
            assert f'<dt id="rule-{anchor}">' in html_text, (page, anchor)
            linked += 1
        if page.name == "public.zh-TW.html" and 'class="rule"' in html_text:
            cited = html_text[html_text.index('<section id="rules">'):]
            assert re.search(r"[\u4e00-\u9fff]", cited), page
    assert linked > 0
