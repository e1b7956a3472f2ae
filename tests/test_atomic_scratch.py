"""Temp files of atomic writes: under a held campaign they go to its one scratch folder, so the
sweep after a killed writer lists one folder however long the campaign grows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.core import atomic


def test_temp_files_of_a_held_campaign_go_to_its_scratch_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    real_replace = os.replace

    def spy(src: str | Path, dst: str | Path) -> None:
        seen.append(str(Path(src).parent))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    with atomic.scratch(tmp_path):
        atomic.write_bytes(tmp_path / "reports" / "0001" / "public.html", b"x")
    atomic.write_bytes(tmp_path / "elsewhere" / "f", b"y")  # not held: beside its target
    assert seen == [str(tmp_path / ".tmp"), str(tmp_path / "elsewhere")]
    assert (tmp_path / "reports" / "0001" / "public.html").read_bytes() == b"x"
    assert list((tmp_path / ".tmp").iterdir()) == []


def test_sweep_removes_what_dead_writers_left_and_only_that(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / ".tmp").mkdir()
    left = tmp_path / ".tmp" / f".tmp-reports!0001!public.html-{dead.stdout.strip()}"
    live = tmp_path / ".tmp" / f".tmp-archive!000002.json-{os.getpid()}"
    left.write_bytes(b"half")
    live.write_bytes(b"being written")
    atomic.sweep(tmp_path)
    assert not left.exists() and live.exists()


def test_a_group_writes_nothing_visible_until_its_commit(tmp_path: Path) -> None:
    """Group commit: within a group a covered write leaves its target as it was (a crash then
    loses only temp files), read_bytes sees the pending bytes, commit renames them all; a write
    outside the group's folders is durable at once."""
    covered, other = tmp_path / "orders", tmp_path / "archive"
    (covered / "a.yaml").parent.mkdir()
    (covered / "a.yaml").write_bytes(b"old")
    with atomic.scratch(tmp_path), atomic.group(covered):
        atomic.write_bytes(covered / "a.yaml", b"new")
        atomic.write_bytes(covered / "sub" / "b.yaml", b"b")
        atomic.write_bytes(other / "0.json", b"record")
        assert (covered / "a.yaml").read_bytes() == b"old" and not (covered / "sub" / "b.yaml").exists()
        assert atomic.read_bytes(covered / "a.yaml") == b"new" and atomic.read_bytes(covered / "nothing") is None
        assert (other / "0.json").read_bytes() == b"record"
        assert not atomic.write_if_changed(covered / "a.yaml", b"new")  # the pending bytes count
        atomic.commit()
        assert (covered / "a.yaml").read_bytes() == b"new" and (covered / "sub" / "b.yaml").read_bytes() == b"b"
        atomic.write_bytes(covered / "c.yaml", b"c")
    assert (covered / "c.yaml").read_bytes() == b"c"  # leaving the block commits
    assert list((tmp_path / atomic.SCRATCH).iterdir()) == []


def test_a_group_that_raises_drops_its_pending_writes(tmp_path: Path) -> None:
    with pytest.raises(KeyError), atomic.scratch(tmp_path), atomic.group(tmp_path):
        atomic.write_bytes(tmp_path / "a.yaml", b"a")
        raise KeyError("a crash")
    assert not (tmp_path / "a.yaml").exists()
    assert list((tmp_path / atomic.SCRATCH).iterdir()) == []
