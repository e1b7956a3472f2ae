"""pbem run: many campaigns, due phases, a broken campaign skipped."""

from __future__ import annotations

import json
from email.message import EmailMessage
from pathlib import Path

from conftest import NOW, run_cli
from orders_util import signed


def _new(root: Path, name: str, keys: dict[str, Path], *extra: str) -> Path:
    camp = root / name
    run_cli(
        "new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short",
        "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
        "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}",
        "--deadline", "stage=24h", "--grace", "1h", "--now", NOW, *extra,
    )
    return camp


def _mail_into_inbox(camp: Path, doc: Path, sender: str, n: int) -> None:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "gm@example.org"
    msg["Subject"] = "orders"
    msg.set_content("orders attached")
    msg.add_attachment(doc.read_bytes(), maintype="text", subtype="yaml", filename="orders.yaml")
    (camp / "inbox" / "new" / f"1764590400.M{n}P1.host").write_bytes(msg.as_bytes())


def _hand(camp: Path, power: str) -> list[int]:
    return json.loads((camp / "states" / "000000.json").read_bytes())["hands"][power]


def test_run_resolves_due_campaigns_and_waits_for_others(tmp_path: Path, keys: dict[str, Path]) -> None:
    root = tmp_path / "games"
    full = _new(root, "a-full", keys)
    half = _new(root, "b-half", keys)
    for camp, seats in ((full, ("north", "south")), (half, ("north",))):
        for i, seat in enumerate(seats):
            power = seat[0].upper()
            doc = signed(tmp_path, keys[seat], camp.name, seat, "round-1", {power: {"bid": _hand(camp, power)[0]}}, name=f"{camp.name}-{seat}")
            _mail_into_inbox(camp, doc, f"{seat}@example.org", i)
    result = run_cli("run", str(root), "--now", NOW, "--quiet")
    lines = result.output.splitlines()
    assert any(line.startswith(f"{full}: 1 phase(s) resolved, 2 accepted") for line in lines), result.output
    assert any(line.startswith(f"{half}: 0 phase(s) resolved, 1 accepted") and "waiting for S" in line for line in lines), result.output
    assert list((full / "inbox" / "cur").iterdir()) and not list((full / "inbox" / "new").iterdir())
    # within the grace period nothing more is due; after deadline + grace the waiting one resolves with defaults
    assert "0 phase(s) resolved" in run_cli("run", str(root), "--now", "2026-12-02T12:30:00Z", "-q").output.split("\n")[1]
    late = run_cli("run", str(root), "--now", "2026-12-02T13:00:01Z", "-q").output
    assert f"{half}: 1 phase(s) resolved" in late
    rec = json.loads((half / "archive" / "000001.json").read_bytes())
    assert rec["defaults"] == ["S"]


def test_broken_campaign_is_skipped_not_fatal(tmp_path: Path, keys: dict[str, Path]) -> None:
    root = tmp_path / "games"
    good = _new(root, "good", keys, "--outage-share", "0")  # nobody sends orders here
    bad = _new(root, "bad", keys)
    (bad / "states" / "000000.json").write_text("{}\n")
    result = run_cli("run", str(root), "--now", "2026-12-09T00:00:00Z", "-q", ok=False)
    assert result.exit_code == 1
    assert f"{bad}: SKIPPED:" in result.output and "does not match record 0" in result.output
    assert f"{good}: 1 phase(s) resolved" in result.output


def test_parallel_jobs_give_the_same_archives(tmp_path: Path, keys: dict[str, Path]) -> None:
    roots = []
    for jobs in (1, 2):
        root = tmp_path / f"j{jobs}"
        for name in ("c1", "c2", "c3"):
            _new(root, name, keys, "--outage-share", "0")  # nobody sends orders here
        run_cli("run", str(root), "--now", "2026-12-09T00:00:00Z", "-q", "--jobs", str(jobs))
        roots.append(root)
    for name in ("c1", "c2", "c3"):
        a = [p.name for p in sorted((roots[0] / name / "archive").iterdir())]
        assert a == [p.name for p in sorted((roots[1] / name / "archive").iterdir())]
        assert len(a) == 2
