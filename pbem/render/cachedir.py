"""pbem's own cache folder, ``$XDG_CACHE_HOME/pbem`` (``~/.cache/pbem``): what a run may keep for
the next (compiled templates, map tiles) to save time, never an input of a record, a report's
text or the audit. Deleting it is always safe.

Each kind of thing kept has a folder per what it depends on (``templates-<key>``,
``map-tiles-<key>``), so an upgrade starts new ones. A folder's time is its last use: when a new
folder of a kind is made, the folders of that kind no run has used for :data:`UNUSED_DAYS` days
are removed, so the cache does not grow with every upgrade."""

from __future__ import annotations

import os
import shutil
import stat
import time
from collections.abc import Iterator
from pathlib import Path

UNUSED_DAYS = 30


def cache_folder(name: str) -> Path | None:
    """The folder ``name`` (``<kind>-<key>``) under pbem's cache folder, made (owner only) if need
    be and marked used; None when it cannot be made: the caller then only works without it."""
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pbem" / name
    try:
        folder.mkdir(parents=True, mode=0o700)
    except FileExistsError:
        try:
            os.utime(folder)
        except OSError:
            pass
        return folder if folder.is_dir() else None
    except OSError:
        return None
    _prune(folder)
    return folder


def remove_unused_files(folder: Path) -> None:
    """Remove the files in ``folder`` written (or marked used) more than :data:`UNUSED_DAYS` days
    ago, leaving folders and links alone, never failing the run: a kind whose folder lives long
    (the map pieces' tiles, where a counter stood a month ago) does not grow without end."""
    for entry, st in _unused(folder):
        if stat.S_ISREG(st.st_mode):
            try:
                os.unlink(entry.path)
            except OSError:
                pass


def _prune(made: Path) -> None:
    """Remove the folders of ``made``'s kind unused for :data:`UNUSED_DAYS` days; never through
    a link, never anything but a folder, and never failing the run."""
    kind = made.name.rpartition("-")[0] + "-"
    for entry, st in _unused(made.parent):
        if (entry.name.startswith(kind) and entry.name != made.name and "-" not in entry.name[len(kind):]
                and stat.S_ISDIR(st.st_mode)):
            shutil.rmtree(entry.path, ignore_errors=True)


def _unused(folder: Path) -> Iterator[tuple[os.DirEntry[str], os.stat_result]]:
    """The entries of ``folder`` (and their own status, links not followed) last changed more
    than :data:`UNUSED_DAYS` days ago; none when it cannot be read."""
    oldest = time.time() - UNUSED_DAYS * 86400
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if st.st_mtime < oldest:
            yield entry, st
