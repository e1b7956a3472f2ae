"""pbem's cache folder does not grow without end: every upgrade (or a new catalog) starts new
``templates-…`` and ``map-tiles-…`` folders, and a folder no run has used for
:data:`~pbem.render.cachedir.UNUSED_DAYS` days is removed when a new folder of its kind is made."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from pbem.render import cachedir

DAY = 86400


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "pbem"


def _aged(folder: Path, days: float) -> Path:
    folder.mkdir(parents=True)
    (folder / "kept.cache").write_bytes(b"x")
    then = time.time() - days * DAY
    os.utime(folder, (then, then))
    return folder


def test_a_new_folder_removes_its_kinds_unused_folders(cache: Path) -> None:
    stale = _aged(cache / "templates-aaaa", cachedir.UNUSED_DAYS + 5)
    recent = _aged(cache / "templates-bbbb", cachedir.UNUSED_DAYS - 5)
    other_kind = _aged(cache / "map-tiles-cccc", cachedir.UNUSED_DAYS + 5)
    made = cachedir.cache_folder("templates-dddd")
    assert made == cache / "templates-dddd" and made.is_dir()
    assert not stale.exists()
    assert recent.exists() and other_kind.exists()


def test_using_a_folder_marks_it_used(cache: Path) -> None:
    old = _aged(cache / "map-tiles-aaaa", cachedir.UNUSED_DAYS + 5)
    assert cachedir.cache_folder("map-tiles-aaaa") == old
    assert time.time() - old.stat().st_mtime < DAY
    cachedir.cache_folder("map-tiles-bbbb")  # a new kind-mate: the used folder stays
    assert (old / "kept.cache").exists()


def test_pruning_leaves_what_is_not_a_cache_folder_alone(cache: Path, tmp_path: Path) -> None:
    outside = _aged(tmp_path / "elsewhere", cachedir.UNUSED_DAYS + 5)
    cache.mkdir(parents=True)
    link = cache / "templates-eeee"
    link.symlink_to(outside, target_is_directory=True)
    stray = cache / "templates-ffff"
    stray.write_bytes(b"a file")
    then = time.time() - (cachedir.UNUSED_DAYS + 5) * DAY
    os.utime(stray, (then, then))
    os.utime(link, (then, then), follow_symlinks=False)
    cachedir.cache_folder("templates-gggg")
    assert (outside / "kept.cache").exists()  # never through a link
    assert link.is_symlink() and stray.exists()
