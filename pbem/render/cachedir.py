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


def _prune(made: Path) -> None:
    """Remove the folders of ``made``'s kind unused for :data:`UNUSED_DAYS` days; never through
    a link, never anything but a folder, and never failing the run."""
    kind = made.name.rpartition("-")[0] + "-"
    oldest = time.time() - UNUSED_DAYS * 86400
    try:
        siblings = list(os.scandir(made.parent))
    except OSError:
        return
    for entry in siblings:
        if not entry.name.startswith(kind) or entry.name == made.name or "-" in entry.name[len(kind):]:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_mtime < oldest:
            shutil.rmtree(entry.path, ignore_errors=True)
