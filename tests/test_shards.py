"""``pbem run ROOT --shard K/N``: N hosts share one folder of campaigns; each campaign is run by
exactly one shard, and a shard killed mid-run loses nothing (its rerun ends where an
uninterrupted run ends)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import make_keys, player_args, run_cli

from pbem.core.pipeline import parse_shard, shard_of, sharded_campaigns
from pbem.errors import PbemError

START, LATER = "2027-01-04T08:00:00Z", "2027-01-04T10:00:00Z"  # setup is due at LATER: its deadline passed


@pytest.fixture(scope="module")
def twelve(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve introductory Maria campaigns whose set-up is due (every seat gets its default split)."""
    base = tmp_path_factory.mktemp("shards")
    args = player_args(make_keys(base / "keys", ("maria_theresa", "louis", "frederick")))
    for i in range(12):
        run_cli("new", str(base / "root" / f"c{i:02d}"), "--deal-now", "--game", "maria", "--scenario", "intro", "--id", f"shard-{i}",
                "--deadline", "setup=1h", "--deadline", "default=1h", "--outage-share", "0", "--now", START, *args)
    return base / "root"


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and p.name != "lock"}


def _run(root: Path, shard: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "pbem", "run", str(root), "--shard", shard, "--now", LATER, "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_shards_split_the_campaigns_by_id_stably(twelve: Path) -> None:
    parts = [sharded_campaigns(twelve, (k, 3)) for k in range(3)]
    assert sorted(p for part in parts for p in part) == sorted(twelve.iterdir())
    assert all(len(part) < 12 for part in parts)  # the split really splits
    moved = twelve.parent / "moved"
    shutil.copytree(twelve / "c00", moved / "renamed")
    assert shard_of(moved / "renamed", 3) == shard_of(twelve / "c00", 3)  # by id, not by folder


def test_shard_option_refuses_what_is_not_k_of_n() -> None:
    assert parse_shard("2/3") == (2, 3)
    for bad in ("3/3", "1", "-1/3", "a/b", "1/0"):
        with pytest.raises(PbemError, match="--shard"):
            parse_shard(bad)


def test_three_concurrent_shards_each_run_every_campaign_once_and_a_killed_one_loses_nothing(
        twelve: Path, tmp_path: Path) -> None:
    ref, root = tmp_path / "ref", tmp_path / "root"
    shutil.copytree(twelve, ref)
    shutil.copytree(twelve, root)
    run_cli("run", str(ref), "--now", LATER, "-q")  # one host, no shards: the expected end
    # the shard with the most campaigns is killed as soon as its first campaign has resolved
    sizes = {k: len(sharded_campaigns(root, (k, 3))) for k in range(3)}
    victim = max(sizes, key=lambda k: (sizes[k], k))
    procs = {k: _run(root, f"{k}/3") for k in range(3)}
    mine = sharded_campaigns(root, (victim, 3))
    deadline = time.monotonic() + 120
    while not any((c / "archive" / "000001.json").exists() for c in mine) and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(procs[victim].pid, signal.SIGKILL)
    outputs = {k: p.communicate(timeout=300)[0] for k, p in procs.items()}
    assert procs[victim].returncode == -signal.SIGKILL
    unfinished = [c for c in mine if not (c / "reports" / ".published").exists()]
    for k in set(procs) - {victim}:
        assert procs[k].returncode == 0, outputs[k]
        lines = [line for line in outputs[k].splitlines() if line.startswith(str(root))]
        # every campaign of the shard, and only those, each once
        assert sorted(line.split(":")[0] for line in lines) == sorted(str(c) for c in sharded_campaigns(root, (k, 3)))
        assert all(": 1 phase(s) resolved" in line for line in lines), outputs[k]
    rerun = _run(root, f"{victim}/3")
    out, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err
    assert sorted(line.split(":")[0] for line in out.splitlines()) == sorted(str(c) for c in mine)
    assert unfinished, "the kill came after the shard had finished: nothing was tested mid-run"
    assert _tree(root) == _tree(ref)
