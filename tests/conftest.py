"""Shared fixtures: the mini test game, player keys, and a campaign folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

TESTS = Path(__file__).parent
sys.path.insert(0, str(TESTS))

from minigame import GAME as MINI  # noqa: E402

from pbem.games import register  # noqa: E402

register("mini", MINI)

NOW = "2026-12-01T12:00:00Z"


def run_cli(*args: str, ok: bool = True) -> Result:
    """Run the pbem CLI in-process; assert its exit status."""
    from pbem.cli import main

    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, f"pbem {' '.join(args)} failed ({result.exit_code}):\n{result.output}"
    return result


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    """Keys for the mini game's seats and an outsider."""
    out = {}
    for name in ("north", "south", "mallory"):
        run_cli("keygen", name, "-o", str(tmp_path / "keys"))
        out[name] = tmp_path / "keys" / f"{name}.key"
    return out


@pytest.fixture
def mini_campaign(tmp_path: Path, keys: dict[str, Path]) -> Path:
    """A fresh mini campaign with north and south on the roster."""
    camp = tmp_path / "camp"
    run_cli(
        "new", str(camp), "--game", "mini", "--scenario", "short", "--id", "mini-1",
        "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
        "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}",
        "--deadline", "stage=48h", "--now", NOW,
    )
    return camp
