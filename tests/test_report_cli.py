"""``pbem report``: one phase, every phase, and the history site before and after the end."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import run_cli
from test_report_games import play_bot_game

from pbem.core.campaign import Campaign


def test_report_renders_every_phase_and_is_idempotent(tmp_path: Path) -> None:
    root = tmp_path / "camp"
    play_bot_game(root, "mini", "short", 7, publish=False)
    assert not (root / "reports").exists()
    out = run_cli("report", str(root)).output
    assert "reports/0002-round-2/public.html" in out
    folders = sorted(p.name for p in (root / "reports").iterdir() if p.is_dir())
    assert folders == ["0000-start", "0001-round-1", "0002-round-2", "0003-round-3"]
    # beside them only what every report links once (the style sheet)
    assert [re.sub(r"\.[0-9a-f]{16}\.", ".H.", p.name) for p in (root / "reports").iterdir() if p.is_file()] == ["report.H.css"]
    mtimes = {p: p.stat().st_mtime_ns for p in (root / "reports").rglob("*") if p.is_file()}
    run_cli("report", str(root))
    assert mtimes == {p: p.stat().st_mtime_ns for p in (root / "reports").rglob("*") if p.is_file()}


def test_report_one_phase_by_id_number_or_key(tmp_path: Path) -> None:
    root = tmp_path / "camp"
    play_bot_game(root, "mini", "short", 8, publish=False)
    for ref in ("round-2", "2", "0002-round-2"):
        out = run_cli("report", str(root), "--phase", ref).output
        assert "0002-round-2/public.html" in out and "0001-round-1" not in out
    out = run_cli("report", str(root), "--phase", "start").output
    assert "0000-start/forms/north.yaml" in out
    bad = run_cli("report", str(root), "--phase", "round-9", ok=False)
    assert bad.exit_code == 1 and "no phase 'round-9'" in bad.output


def test_site_shows_secrets_only_after_the_end(tmp_path: Path) -> None:
    root = tmp_path / "camp"
    camp = play_bot_game(root, "mini", "long", 9, max_phases=2)
    run_cli("report", str(root), "--all")
    index = (root / "site" / "index.html").read_text()
    assert "0002-round-2/public.html" in index and "The game is over" not in index
    assert not (root / "site" / "secrets.html").exists()
    seed = camp.seed().hex()
    assert all(seed not in p.read_text() for p in (root / "site").rglob("*.html"))
    assert (root / "site" / "0001-round-1" / "public.html").read_bytes() == (root / "reports" / "0001-round-1" / "public.html").read_bytes()
    assert not list((root / "site").rglob("private*")) and not list((root / "site").rglob("forms"))

    done = tmp_path / "done"
    play_bot_game(done, "mini", "short", 9)
    run_cli("report", str(done), "--all")
    index = (done / "site" / "index.html").read_text()
    seed = Campaign(done).seed().hex()
    assert "The game is over" in index and seed in index and "audit passed" not in index
    assert "passed" in index and "3 phases replayed" in index
    secrets = (done / "site" / "secrets.html").read_text()
    assert secrets.count('class="ok"') == 9 and "does not open" not in secrets  # 3 phases x (hand:N, hand:S, deck)
    assert "回到戰役紀錄" in (done / "site" / "secrets.zh-TW.html").read_text()
