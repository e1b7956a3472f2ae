"""Shared fixtures: the mini test game, player keys, and a campaign folder."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

TESTS = Path(__file__).parent
sys.path.insert(0, str(TESTS))

# pbem keeps compiled templates and map tiles under $XDG_CACHE_HOME/pbem: the suite (and every
# pbem process it starts) uses a folder of its own, never the machine's, so no test passes or
# fails by what an earlier run left there
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="pbem-tests-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], True)

from minigame import GAME as MINI  # noqa: E402

from pbem.games import register  # noqa: E402

register("mini", MINI)

NOW = "2026-12-01T12:00:00Z"


def require_service(available: bool, reason: str) -> None:
    """Skip a test whose machine lacks ``reason``'s service (dovecot, root, a mountable tmpfs) on
    a developer's machine; fail it under ``CI=true``, where a skip would pass the build without
    checking anything."""
    if available:
        return
    if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
        pytest.fail(f"{reason}; CI is set, so a missing service fails the run")
    pytest.skip(reason)


def run_cli(*args: str, ok: bool = True) -> Result:
    """Run the pbem CLI in-process; assert its exit status."""
    from pbem.cli import main

    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, f"pbem {' '.join(args)} failed ({result.exit_code}):\n{result.output}"
    return result


def make_keys(folder: Path, seats: Iterable[str]) -> dict[str, Path]:
    """``pbem keygen`` for each seat into ``folder``: seat -> its private key file (the public
    one is beside it, ``.pub``)."""
    out = {}
    for seat in seats:
        run_cli("keygen", seat, "-o", str(folder))
        out[seat] = folder / f"{seat}.key"
    return out


def player_args(keys: dict[str, Path]) -> list[str]:
    """``--player SEAT=SEAT@example.org:SEAT.pub`` for every seat of ``keys``, for ``pbem new``."""
    return [a for seat, key in keys.items() for a in ("--player", f"{seat}={seat}@example.org:{key.with_suffix('.pub')}")]


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    """Keys for the mini game's seats and an outsider."""
    return make_keys(tmp_path / "keys", ("north", "south", "mallory"))


@pytest.fixture
def mini_campaign(tmp_path: Path, keys: dict[str, Path]) -> Path:
    """A fresh mini campaign with north and south on the roster."""
    camp = tmp_path / "camp"
    run_cli(
        "new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short", "--id", "mini-1",
        "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
        "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}",
        "--deadline", "stage=48h", "--now", NOW,
    )
    return camp


def mailed_order_page(campaign: Path, report: str, seat: str) -> Path | None:
    """The offline order page attached to ``seat``'s report mail of the report folder ``report``
    (``0003-1741-1_hussars``; queued or sent, the newest when the phase was mailed again), written
    beside the campaign folder (``pages/REPORT-SEAT.orders.html``); ``None``: the mail has none.
    reports/ does not keep a second copy of it."""
    import email
    import email.policy

    mails = sorted(p for folder in ("sent", "outbox") for p in (campaign / folder).glob(f"report-{report}*-{seat}.eml")
                   if p.name in (f"report-{report}-{seat}.eml",) or p.name.startswith(f"report-{report}.r"))
    if not mails:
        return None
    msg = email.message_from_bytes(max(mails, key=lambda p: p.name).read_bytes(), policy=email.policy.default)
    for part in msg.walk():
        if part.get_filename() == f"orders-{report}-{seat}.html":
            page = campaign.parent / "pages" / f"{report}-{seat}.orders.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_bytes(part.get_payload(decode=True))
            return page
    return None
