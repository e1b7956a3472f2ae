"""Crash-safe file writes: temp file, fsync, rename, fsync the folder.

A reader (or a rerun after SIGKILL) sees either the old file or the new one, never half of one.
While a campaign is held (:func:`scratch`), the temp files of writes under its folder go to one
scratch folder of that campaign, so the temp files a killed writer left behind are found by
listing that one folder (:func:`sweep`), not by walking the campaign's whole tree. Elsewhere a
temp file sits beside its target.

Group commit (:func:`group`): intake writes three small files per mail, and an fsync of each
file and of its folder after each rename cost far more than the rest of its work on a real disk.
Within a group, a write under the group's folders only writes its temp file; :func:`commit`
then flushes them all at once (one ``syncfs`` on Linux, else an fsync each), renames them, and
fsyncs each folder once. Until then the targets do not change on disk, so a crash leaves only
temp files (swept by the next lock) and the caller, which acts on the writes only after the
commit (intake moves a mail to ``cur/`` then), does it all again. :func:`read_bytes` sees a
pending write's bytes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

SCRATCH = ".tmp"
_scratch: list[str] = []  # the campaign folders held by this process (as "folder/"), innermost last


class _Group:
    """The writes of an open group: each target's temp file and bytes, in write order (keyed by
    the target's path as text: intake writes thousands, and text is cheaper than ``Path``)."""

    def __init__(self, folders: tuple[Path, ...]) -> None:
        self.prefixes = tuple(os.path.join(f, "") for f in folders)
        self.pending: dict[str, tuple[str, bytes]] = {}
        self.temps: dict[str, str] = {}  # each target folder made (or found) so far: its temp files' names but the end
        self.scratch = list(_scratch)  # (what the temp names were made under)


_group: list[_Group] = []  # the open group, if any (one at a time)


@contextmanager
def group(*folders: Path) -> Iterator[None]:
    """Within this block, writes under ``folders`` wait for :func:`commit` (see the module's
    text); leaving the block commits what is left. If the block raises, the pending writes are
    dropped, as a crash would drop them."""
    if _group:
        raise RuntimeError("atomic.group() is not reentrant")
    _group.append(_Group(tuple(folders)))
    try:
        yield
        commit()
    finally:
        for tmp, _ in _group.pop().pending.values():
            _unlink(tmp)


def commit() -> None:
    """Make the open group's pending writes durable and visible: flush, rename, fsync folders."""
    if not _group or not _group[0].pending:
        return
    pending = _group[0].pending
    _flush([tmp for tmp, _ in pending.values()])
    for path, (tmp, _) in pending.items():
        os.replace(tmp, path)
    for folder in sorted({os.path.dirname(path) for path in pending}):  # one fsync per folder
        fsync_dir(folder)
    pending.clear()


def _flush(temps: list[str]) -> None:
    """Put the temp files' bytes on disk: one ``syncfs`` of their file system where Linux
    offers it (cheaper than an fsync each by far), else an fsync of each."""
    if _syncfs is not None:
        fd = os.open(temps[0], os.O_RDONLY)
        try:
            if _syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    for tmp in temps:
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _find_syncfs() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        call: Callable[[int], int] = libc.syncfs
        return call
    except (OSError, AttributeError):
        return None


_syncfs = _find_syncfs()


def read_bytes(path: Path | str) -> bytes | None:
    """``path``'s bytes as the open group will leave them (a pending write's), or None if
    there is no such file."""
    if _group:
        hit = _group[0].pending.get(os.fspath(path))
        if hit is not None:
            return hit[1]
    if not os.access(path, os.F_OK):  # (no exception raised and caught for a missing file)
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


@contextmanager
def scratch(root: Path) -> Iterator[None]:
    """Within this block, atomic writes under ``root`` keep their temp files in ``root/.tmp``
    (on the same file system, so the rename stays atomic)."""
    (root / SCRATCH).mkdir(exist_ok=True)
    _scratch.append(os.path.join(root, ""))
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


_pid = [os.getpid()]  # this process's id, which temp names carry (a system call each time otherwise)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=lambda: _pid.__setitem__(0, os.getpid()))


def _temp_path(path: Path | str) -> str:
    # string work throughout: pathlib's joins cost more than a small write on a memory disk
    text = os.fspath(path)
    for prefix in reversed(_scratch):
        if text.startswith(prefix):  # under root
            rel = text[len(prefix):].replace(os.sep, "!")
            return f"{prefix}{SCRATCH}{os.sep}.tmp-{rel}-{_pid[0]}"
    folder, name = os.path.split(text)
    return os.path.join(folder, f".tmp-{name}-{_pid[0]}")


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def fsync_dir(path: Path | str) -> None:
    """Flush a folder's entries (the rename itself) to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_bytes(path: Path | str, data: bytes, mode: int = 0o644) -> None:
    """Atomically replace ``path`` with ``data`` (in an open group covering it: at its commit)."""
    text = os.fspath(path)
    if _group and text.startswith(_group[0].prefixes):
        _write_pending(_group[0], text, data, mode)
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_path(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise
    fsync_dir(path.parent)


def _write_pending(group: _Group, text: str, data: bytes, mode: int) -> None:
    """A group's write: only its temp file, flushed and renamed at the commit (three calls: open,
    write, close; a group writes many files to few folders, each folder is made once and the
    start of its temp files' names found once)."""
    folder, _, name = text.rpartition(os.sep)  # (the folder to make, once: dirname's care is not needed)
    if group.scratch != _scratch:  # (a campaign held or let go within the group)
        group.temps.clear()
        group.scratch = list(_scratch)
    start = group.temps.get(folder)
    if start is None:
        os.makedirs(folder, exist_ok=True)
        start = group.temps[folder] = _temp_path(text)[: -len(f"{name}-{_pid[0]}")]
    tmp = f"{start}{name}-{_pid[0]}"  # what _temp_path gives
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, mode)
    try:
        written = os.write(fd, data)  # (all of it, but for a rare short write)
        if written < len(data):
            _write_rest(fd, data, written)
    except BaseException:
        os.close(fd)
        _unlink(tmp)
        raise
    os.close(fd)
    group.pending[text] = (tmp, data)


def _write_all(fd: int, data: bytes) -> None:
    # plain os.write: a file object's buffer costs more than a small write
    written = os.write(fd, data)
    if written < len(data):
        _write_rest(fd, data, written)


def _write_rest(fd: int, data: bytes, written: int) -> None:
    view = memoryview(data)[written:]
    while view:
        view = view[os.write(fd, view):]


def write_text(path: Path, text: str, mode: int = 0o644) -> None:
    """Atomically replace ``path`` with UTF-8 ``text``."""
    write_bytes(path, text.encode("utf-8"), mode)


def write_if_changed(path: Path | str, data: bytes, mode: int = 0o644) -> bool:
    """Write only when the content differs (keeps reruns cheap and mtimes stable)."""
    if read_bytes(path) == data:
        return False
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
        _unlink(tmp)
        os.link(src, tmp)
        os.replace(tmp, dst)
    except OSError:  # no hard links here (another file system, FAT...): copy
        _unlink(tmp)
        write_if_changed(dst, src.read_bytes())
        return
    fsync_dir(dst.parent)
