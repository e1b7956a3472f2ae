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
