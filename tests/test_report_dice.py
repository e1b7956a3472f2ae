"""The dice section of a public report: every roll listed there is recomputed from the seed the
report prints, with nothing but :class:`pbem.core.fair.Rng` (R1.7, R8.1: every draw of the
public stream is logged and checkable)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.core.fair import H, Rng

# A draw among ``1 << 64`` outcomes never rejects, so it consumes exactly one 8-byte number:
# the stream position a pick among candidates the report does not list (a chit, a unit) used.
_ONE_NUMBER = 1 << 64


@pytest.fixture(scope="module")
def ror_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dice") / "d"
    res = CliRunner().invoke(main, ["demo", str(root), "--game", "ror", "-q"])
    assert res.exit_code == 0, res.output
    return root / "campaign"


def _section(text: str) -> tuple[str, list[tuple[str, str]], str]:
    """The seed, the listed rolls and the check command of a public.txt's dice section."""
    part = text.split("The dice of this phase\n", 1)[1].split("Commitments and reveals", 1)[0]
    rolls = re.findall(r"^\s*\d+\. (.+): (\S+)$", part, flags=re.M)
    seed = re.search(r"^Seed of the public stream: ([0-9a-f]{64})$", part, flags=re.M)
    command = re.search(r"^  (printf .+)$", part, flags=re.M)
    assert seed and command, part
    return seed.group(1), rolls, command.group(1)


def _phase_reports(camp: Path) -> list[tuple[dict, str]]:
    out = []
    for rec_path in sorted((camp / "archive").glob("*.json")):
        rec = json.loads(rec_path.read_text())
        if rec.get("kind") != "phase":
            continue
        folder = camp / "reports" / f"{rec['phase_number']:04d}-{rec['phase'].replace('/', '_')}"
        out.append((rec, (folder / "public.txt").read_text()))
    return out


def test_every_listed_die_is_recomputed_from_the_printed_seed(ror_demo: Path) -> None:
    checked = 0
    for rec, text in _phase_reports(ror_demo):
        events = json.loads((ror_demo / "states" / f"{rec['index']:06d}.events.json").read_text())
        events = events if isinstance(events, list) else events["events"]
        dice = [e for e in events if e["type"] == "die"]
        if not dice:
            assert "The dice of this phase" not in text
            continue
        seed, rolls, command = _section(text)
        # the listed rolls are the die events, in order
        assert rolls == [(str(e["purpose"]), str(e["value"])) for e in dice]
        assert len(rolls) == rec["public_draws"]
        assert command == f"printf '{seed}0000000000000000' | xxd -r -p | sha256sum"
        rng = Rng(bytes.fromhex(seed))
        for (purpose, value), ev in zip(rolls, dice, strict=True):
            # a plain die draws among the ints 1..6 (Dice.d6); a pick among chits or units
            # draws among strings
            if not isinstance(ev["value"], int):
                rng.below(_ONE_NUMBER)
                continue
            assert rng.die(6) == int(value), (rec["phase"], purpose)
            checked += 1
        # block 0, as the printed command computes it, opens the stream
        first = int.from_bytes(H(bytes.fromhex(seed) + bytes(8))[:8], "big")
        if isinstance(dice[0]["value"], int):
            assert first % 6 + 1 == dice[0]["value"]
    assert checked >= 5, "the ror demo should roll some plain dice"


def test_a_wrong_seed_does_not_give_the_listed_dice(ror_demo: Path) -> None:
    """The check can fail: the seed of another phase does not reproduce these rolls."""
    reports = [(rec, text) for rec, text in _phase_reports(ror_demo) if "The dice of this phase" in text]
    assert reports
    seed, rolls, _ = _section(reports[0][1])
    wrong = Rng(H(bytes.fromhex(seed)))
    plain = [int(v) for p, v in rolls if v in {"1", "2", "3", "4", "5", "6"} and " chit" not in p]
    assert [wrong.die(6) for _ in plain] != plain


_OWN_TEMPLATES = ("bribes", "lay_down", "veterans_desert", "maintenance", "state_debits", "chit",
                  "family_card", "war_activated", "no_attack", "pending_win", "rebel_condition")


def test_ror_events_are_told_in_sentences_not_key_value_lines(ror_demo: Path) -> None:
    """Events with their own template never fall back to the generic ``type: key value`` line."""
    seen = set()
    for rec, text in _phase_reports(ror_demo):
        events = json.loads((ror_demo / "states" / f"{rec['index']:06d}.events.json").read_text())
        events = events if isinstance(events, list) else events["events"]
        seen |= {e["type"] for e in events} & set(_OWN_TEMPLATES)
        for kind in _OWN_TEMPLATES:
            assert not re.search(rf"^\s*\d+\. {kind}: ", text, flags=re.M), (rec["phase"], kind)
    assert len(seen) >= 8, seen
