"""The Rome rules reference: every rule id a Rome report, order check or refusal cites has an anchor in
docs/rules/ror.md and docs/rules/ror.zh-TW.md, and the two editions have the same anchors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "rules"
# R6.6, R2.1d, R5 (a section), D3 (ruleset 1.07A), L1 (a collective loss)
RULE_ID = re.compile(r"(?<![\w.])(R[1-9](?:\.\d+[a-e]?)?|D[1-7]|L[1-4])(?![\w])")


def anchor(rule: str) -> str:
    """The anchor of a rule id: R6.6 -> r6-6."""
    return rule.lower().replace(".", "-")


def anchors(path: Path) -> set[str]:
    return set(re.findall(r'<a id="([a-z0-9-]+)"></a>', path.read_text(encoding="utf-8")))


def cited() -> dict[str, set[str]]:
    """Every rule id cited by the Rome engine (events, refusals), its templates and order files."""
    files = [*sorted((ROOT / "pbem" / "games" / "ror").glob("*.py")),
             *sorted(p for p in (ROOT / "templates" / "ror").rglob("*") if p.is_file()),
             *sorted(p for p in (ROOT / "orders" / "ror").rglob("*") if p.is_file())]
    out: dict[str, set[str]] = {}
    for f in files:
        for rule in RULE_ID.findall(f.read_text(encoding="utf-8")):
            out.setdefault(rule, set()).add(str(f.relative_to(ROOT)))
    return out


@pytest.mark.parametrize("doc", ["ror.md", "ror.zh-TW.md"])
def test_every_cited_rule_id_has_an_anchor(doc: str) -> None:
    have = anchors(DOCS / doc)
    rules = cited()
    assert {"R6.6", "R2.7", "L4", "R8.4"} <= set(rules), sorted(rules)  # the scan finds the ids
    missing = {r: sorted(files)[:2] for r, files in rules.items() if anchor(r) not in have}
    assert not missing, f"{doc} lacks anchors for {missing}"


def test_both_editions_have_the_same_anchors_once_each() -> None:
    en, zh = (DOCS / "ror.md").read_text(encoding="utf-8"), (DOCS / "ror.zh-TW.md").read_text(encoding="utf-8")
    for text in (en, zh):
        ids = re.findall(r'<a id="([a-z0-9-]+)"></a>', text)
        assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    assert anchors(DOCS / "ror.md") == anchors(DOCS / "ror.zh-TW.md")


def test_the_chinese_edition_uses_the_seed_terms() -> None:
    zh = (DOCS / "ror.zh-TW.md").read_text(encoding="utf-8")
    for term in ("元老院", "叛軍", "叛軍首領", "最高長官", "精銳軍團", "死亡標記", "終身執政官", "黨庫", "副將",
                 "活躍戰爭", "人民革命", "時代結束"):
        assert term in zh, term


def test_an_unknown_rule_id_would_be_caught(tmp_path: Path) -> None:
    """The check can fail: an anchor set without R6.6 misses it."""
    doc = tmp_path / "ror.md"
    doc.write_text((DOCS / "ror.md").read_text(encoding="utf-8").replace('<a id="r6-6"></a>', ""), encoding="utf-8")
    assert anchor("R6.6") not in anchors(doc)
    assert "R6.6" in cited()


def test_reports_point_to_the_reference() -> None:
    """Every Rome report's situation names the reference of its own language and its anchors."""
    from pbem.common.fair import PhaseRng, Rng
    from pbem.games.ror import GAME
    from pbem.render.i18n import environment

    state = GAME.new_game("early", {}, PhaseRng(Rng(b"p", "public"), Rng(b"s", "secret")))
    view = GAME.view(state, "public")
    for lang, doc in (("en", "docs/rules/ror.md"), ("zh-TW", "docs/rules/ror.zh-TW.md")):
        env = environment(lang)
        # as a report includes it: with the report's macros and names
        text = env.from_string('{% import "base/macros.txt" as m with context %}{% import "ror/names.txt" as n with context %}'
                               '{% include "ror/situation.txt" %}').render(view=view, lang=lang)
        assert f"{doc}#r6-6" in text, text[-300:]
        assert (ROOT / doc).is_file()
