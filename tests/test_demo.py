"""pbem demo: a whole campaign through the real pipeline, then audit and tamper detection."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from conftest import run_cli

from pbem.cli import main


def test_demo_plays_to_the_end_and_audits(tmp_path: Path) -> None:
    out = run_cli("demo", str(tmp_path / "d"), "--game", "mini", "--scenario", "long", "-q").output
    # two entropy rounds before the deal, then the ten rounds of the game
    assert "played:    12 phases from 24 signed mails" in out
    assert "12 phases replayed" in out
    camp = tmp_path / "d" / "campaign"
    assert "audit passed" in run_cli("audit", str(camp)).output
    assert "audit passed" in run_cli("audit", str(camp), "--public").output
    assert len(list((camp / "inbox" / "cur").iterdir())) == 24
    records = [json.loads(p.read_bytes()) for p in sorted((camp / "archive").glob("*.json"))]
    assert [r.get("phase") for r in records[1:3]] == ["deal/commit", "deal/reveal"]
    assert "hands" not in json.loads((camp / "states" / "000001.json").read_bytes())  # nothing dealt before the reveals
    assert {e["status"] for e in records[2]["entropy"].values()} == {"ok"}


def test_demo_is_deterministic_for_a_seed(tmp_path: Path) -> None:
    for name in ("a", "b"):
        run_cli("demo", str(tmp_path / name), "--game", "mini", "--scenario", "short", "-q")
    a = sorted(p.read_bytes() for p in (tmp_path / "a" / "campaign" / "archive").iterdir())
    b = sorted(p.read_bytes() for p in (tmp_path / "b" / "campaign" / "archive").iterdir())
    # the keys are fresh per run, so signatures (and hashes of order files) differ; the states do not
    assert len(a) == len(b) == 7  # create, two entropy rounds, three rounds, end
    sa = [p.read_bytes() for p in sorted((tmp_path / "a" / "campaign" / "states").glob("*[0-9].json"))]
    sb = [p.read_bytes() for p in sorted((tmp_path / "b" / "campaign" / "states").glob("*[0-9].json"))]
    assert sa == sb


def test_demo_refuses_a_used_folder(tmp_path: Path) -> None:
    run_cli("demo", str(tmp_path / "d"), "--game", "mini", "--scenario", "short", "-q")
    again = CliRunner().invoke(main, ["demo", str(tmp_path / "d"), "--game", "mini", "--scenario", "short", "-q"])
    assert again.exit_code == 1 and "already exists" in again.output
