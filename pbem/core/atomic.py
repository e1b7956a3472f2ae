"""Crash-safe file writes: temp file, fsync, rename, fsync the folder.

A reader (or a rerun after SIGKILL) sees either the old file or the new one, never half of one.
While a campaign is held (:func:`scratch`), the temp files of writes under its folder go to one
scratch folder of that campaign, so the temp files a killed writer left behind are found by
listing that one folder (:func:`sweep`), not by walking the campaign's whole tree. Elsewhere a
temp file sits beside its target.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SCRATCH = ".tmp"
_scratch: list[Path] = []  # the campaign folders held by this process, innermost last


@contextmanager
def scratch(root: Path) -> Iterator[None]:
    """Within this block, atomic writes under ``root`` keep their temp files in ``root/.tmp``
    (on the same file system, so the rename stays atomic)."""
    (root / SCRATCH).mkdir(exist_ok=True)
    _scratch.append(root)
    try:
        yield
    finally:
        _scratch.pop()


def sweep(root: Path) -> None:
    """Remove the temp files in ``root/.tmp`` whose writer died between writing and renaming (a
    SIGKILL), so a rerun leaves the same files as an uninterrupted run. Only files of dead
    processes go: a live writer under another lock may be using the folder."""
    try:
        entries = list(os.scandir(root / SCRATCH))
    except FileNotFoundError:
        return
    for entry in entries:
        pid = entry.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            Path(entry.path).unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _temp_path(path: Path) -> Path:
    for root in reversed(_scratch):
        if path.is_relative_to(root):
            rel = str(path.relative_to(root)).replace(os.sep, "!")
            return root / SCRATCH / f".tmp-{rel}-{os.getpid()}"
    return path.parent / f".tmp-{path.name}-{os.getpid()}"


def fsync_dir(path: Path) -> None:
    """Flush a folder's entries (the rename itself) to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_bytes(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Atomically replace ``path`` with ``data``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_path(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def write_text(path: Path, text: str, mode: int = 0o644) -> None:
    """Atomically replace ``path`` with UTF-8 ``text``."""
    write_bytes(path, text.encode("utf-8"), mode)


def write_if_changed(path: Path, data: bytes, mode: int = 0o644) -> bool:
    """Write only when the content differs (keeps reruns cheap and mtimes stable)."""
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    write_bytes(path, data, mode)
    return True


def link_or_copy(src: Path, dst: Path) -> None:
    """Atomically make ``dst`` hold ``src``'s bytes: a hard link to ``src`` where the file system
    allows (no disk for a second copy), else a copy. A link already in place is kept."""
    try:
        if os.path.samefile(src, dst):
            return
    except OSError:  # dst missing
        pass
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_path(dst)
    try:
        tmp.unlink(missing_ok=True)
        os.link(src, tmp)
        os.replace(tmp, dst)
    except OSError:  # no hard links here (another file system, FAT...): copy
        tmp.unlink(missing_ok=True)
        write_if_changed(dst, src.read_bytes())
        return
    fsync_dir(dst.parent)
