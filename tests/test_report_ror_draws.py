"""Every draw of a Republic of Rome campaign is recomputed from its public reports alone (R8.1:
each round's report publishes what anyone needs to recompute a draw).

Whole bot games are played with ``pbem demo``; then, for every round, the public report's own
text gives the seed of the public stream and, in "What happened", each draw with what it was
made among: a die (1-6), a pick among listed candidates in canonical order, or a chit from the
cup (chits 1-30, the Draw-2 and blank chits, less those already out). No state or event file is
read: a draw the text does not let a reader recompute fails the test.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.common.fair import Rng

GAMES = [("late", 2), ("middle", 2)]

_DIE = re.compile(r"^Die roll \((?P<purpose>.+)\): (?P<value>\S+)$")
_AMONG = re.compile(r"^Draw \((?P<purpose>.+)\) among (?P<cands>.+): (?P<value>\S+)$")
_CUP = re.compile(r"^Draw \((?P<purpose>.+)\) from a cup of (?P<size>\d+) chits \(1-30, (?P<draw2>\d+) draw2, "
                  r"(?P<blank>\d+) blank; out: (?P<out>.+)\): (?P<value>\S+)$")


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = []
    for scenario, seed in GAMES:
        root = tmp_path_factory.mktemp("draws") / f"{scenario}{seed}"
        res = CliRunner().invoke(main, ["demo", str(root), "--game", "ror", "--scenario", scenario,
                                        "--seed", str(seed), "-q"])
        assert res.exit_code == 0, res.output
        out.append(root / "campaign")
    return out


def _cup(draw2: int, blank: int, out: list[str]) -> list[str]:
    cup = [str(i) for i in range(1, 31)] + ["draw2"] * draw2 + ["blank"] * blank
    for chit in out:
        cup.remove(chit)
    return cup


def recompute(text: str) -> tuple[int, list[str]]:
    """Recompute every draw a public report lists; (draws checked, problems)."""
    if "The dice of this phase" not in text:
        return 0, []
    happened = text.split("What happened\n", 1)[1].split("\nThe situation\n", 1)[0]
    dice = text.split("The dice of this phase\n", 1)[1].split("Commitments and reveals", 1)[0]
    seed = re.search(r"^Seed of the public stream: ([0-9a-f]{64})$", dice, flags=re.M)
    if seed is None:
        return 0, ["no seed printed"]
    listed = re.findall(r"^\s*\d+\. .+: (\S+)$", dice.split("Seed of the public stream", 1)[0], flags=re.M)
    rng = Rng(bytes.fromhex(seed.group(1)))
    problems: list[str] = []
    draws: list[str] = []
    for line in happened.splitlines():
        line = re.sub(r"^\s*\d+\. ", "", line).strip()
        if not (line.startswith("Die roll (") or line.startswith("Draw (")):
            continue
        m = _DIE.match(line)
        if m:
            cands = [str(i) for i in range(1, 7)]
        elif (m := _AMONG.match(line)) is not None:
            cands = m["cands"].split(", ")
        elif (m := _CUP.match(line)) is not None:
            out = [] if m["out"] == "-" else m["out"].split(", ")
            cands = _cup(int(m["draw2"]), int(m["blank"]), out)
            if len(cands) != int(m["size"]):
                problems.append(f"cup size {m['size']} does not match its chits: {line}")
        else:
            problems.append(f"a draw the report does not let anyone recompute: {line}")
            continue
        value = m["value"]
        draws.append(value)
        if len(cands) < 2:
            problems.append(f"a pick among {len(cands)} candidate(s) uses no draw: {line}")
            continue
        got = cands[rng.below(len(cands))]
        if got != value:
            problems.append(f"recomputed {got}, the report says {value}: {line}")
    if draws != listed:
        problems.append(f"the draws told ({len(draws)}) are not the dice listed ({len(listed)})")
    return len(draws), problems


def _public_reports(camp: Path) -> list[tuple[str, str]]:
    return [(p.parent.name, p.read_text()) for p in sorted((camp / "reports").glob("*/public.txt"))]


def test_every_draw_of_every_round_is_recomputed_from_the_public_reports(campaigns: list[Path]) -> None:
    kinds: set[str] = set()
    total = 0
    for camp in campaigns:
        for name, text in _public_reports(camp):
            n, problems = recompute(text)
            assert not problems, (camp.parent.name, name, problems)
            total += n
            kinds |= {k for k in ("Die roll (", "among", "from a cup of") if k in text}
    assert total >= 50, total
    assert kinds == {"Die roll (", "among", "from a cup of"}, kinds  # dice, unit picks and chits


def test_a_report_without_the_candidates_cannot_be_recomputed(campaigns: list[Path]) -> None:
    """The check fails when a pick's candidates are missing or changed."""
    text, line = next((t, x) for camp in campaigns for _, t in _public_reports(camp) for x in t.splitlines()
                      if _AMONG.match(re.sub(r"^\s*\d+\. ", "", x)))
    assert recompute(text)[1] == []
    stripped = text.replace(line, re.sub(r" among .+:", ":", line).replace("Draw (", "Die roll ("), 1)
    assert recompute(stripped)[1]
    m = _AMONG.match(re.sub(r"^\s*\d+\. ", "", line))
    assert m is not None
    other = next(c for c in m["cands"].split(", ") if c != m["value"])
    wrong = text.replace(line, line[: line.rindex(": ") + 2] + other, 1)
    assert any("recomputed" in p for p in recompute(wrong)[1])


# ---------------------------------------------------------------------------- reading the reports


def test_a_player_can_follow_the_civil_war_from_the_text(campaigns: list[Path]) -> None:
    """The findings of a Republic of Rome player, on the same whole games: names, order, codes."""
    texts = [(camp.parent.name, name, text) for camp in campaigns for name, text in _public_reports(camp)]
    joined = "\n".join(t for _, _, t in texts)
    # a senator who dies later in the round is still named; a script effect is no player's order
    assert not re.search(r"\bsenator \d+[A-Z]?\b", joined)
    assert "Your order was VOID" not in joined
    # a civil-war battle is told before its losses and Popularity, and names the Senate commander
    battles = 0
    for _, _, text in texts:
        lines = text.split("What happened\n", 1)[1].split("\nThe situation\n", 1)[0].splitlines()
        for i, line in enumerate(lines):
            if "Battle (R6.4): the Senate's army under " in line:
                battles += 1
                assert "the Combat Results Table (R6.5) gives" in line
                assert not any("(R6.6 senate loss)" in x or "R6.6 losses" in x for x in lines[max(0, i - 8):i])
    assert battles >= 1
    # end-game battles say land or naval and explain Disaster and Standoff numbers
    assert re.search(r"(Naval|Land) battle against war W\d+ \(R7\.7\)", joined)
    assert re.search(r"natural \d+(: a (Disaster|Standoff) number| is no Disaster)", joined)
    # the final report names its ending's code and reveals every hand and Faction Treasury (R8.7)
    for camp in campaigns:
        final = _public_reports(camp)[-1][1]
        assert re.search(r"The game ends: (everyone loses \(L[1-4]: |faction \w+ wins by condition \d)", final)
        assert "Hands and Faction Treasuries, revealed at the end (R8.7):" in final
        assert len(re.findall(r"^  faction \w+: hand .*; Faction Treasury \d+$", final, flags=re.M)) == 3
    # every Rome report names the game, even before the deal; every report of a dealt game points
    # to the rules reference (the entropy rounds before the deal cite no rule)
    assert all(t.splitlines()[2].startswith("Game: ror / ") for _, _, t in texts)
    dealt = [t for _, _, t in texts if "The situation\n" in t and "\nThe Republic:" in t]
    assert len(dealt) >= len(texts) - 2 * len(campaigns)
    assert all("docs/rules/ror.md#r6-6" in t for t in dealt)


def test_chinese_reports_translate_rule_reasons(campaigns: list[Path]) -> None:
    for camp in campaigns:
        for path in sorted((camp / "reports").glob("*/public.zh-TW.txt")):
            happened = path.read_text().split("\n局勢\n", 1)[0]
            for english in ("the Senate did not attack", "personal revenue", "senate loss", "Mortality Phase",
                            "Die roll", "Draw (", "The game ends", "win for", "everyone loses"):
                assert english not in happened, (path, english)
            text = path.read_text()
            assert text.splitlines()[2].startswith("遊戲：ror / "), path
            if "共和國" in text.split("\n局勢\n", 1)[-1]:
                assert "docs/rules/ror.zh-TW.md#r6-6" in text, path


_HAN = "\u4e00-\u9fff"
_HALF_WIDTH = re.compile(rf"[{_HAN}）][:;,]|[。，：；] |[{_HAN}] \(|\([{_HAN}]")


def _zh_reports(camp: Path) -> list[tuple[Path, str]]:
    """Every zh-TW report of ``camp`` as text: public and private, text and HTML (tags out)."""
    out = []
    for path in sorted((camp / "reports").rglob("*")):
        if path.suffix not in (".txt", ".html") or path.name.endswith(".orders.html"):
            continue
        text = path.read_text()
        if path.suffix == ".html":
            text = re.sub(r"<style.*?</style>|<script.*?</script>|<svg.*?</svg>", "", text, flags=re.S)
            text = html.unescape(re.sub(r"<[^>]+>", "\n", text))
        if "zh-TW" in path.name or ("/private/" in path.as_posix() and "公開報告" not in text and "私人報告" in text):
            out.append((path, text))
    return out


def test_chinese_reports_read_as_written_chinese(campaigns: list[Path]) -> None:
    """zh-TW reports of Rome and of the two entropy rounds before the deal: full-width punctuation
    after Chinese words (labels, the story's sentences, the deadline sentence), round kinds named
    in Chinese."""
    seen = 0
    for camp in campaigns:
        for path, text in _zh_reports(camp):
            seen += 1
            for line in text.splitlines():
                if re.match(r"\s*R\d+\.\d+：", line):
                    continue  # a rule's own text, quoted from the rules reference
                assert not _HALF_WIDTH.search(line), (path, line)
            for kind in ("entropy", "revolution", "senate", "endgame", "declare"):
                assert f"({kind})" not in text and f"\n{kind}\n" not in text, (path, kind)
    assert seen >= 30
