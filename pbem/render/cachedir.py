"""pbem's own cache folder, ``$XDG_CACHE_HOME/pbem`` (``~/.cache/pbem``): what a run may keep for
the next (compiled templates, map tiles) to save time, never an input of a record, a report's
text or the audit. Deleting it is always safe."""

from __future__ import annotations

import os
from pathlib import Path


def cache_folder(name: str) -> Path | None:
    """The folder ``name`` under pbem's cache folder, made (owner only) if need be; None when it
    cannot be made: the caller then only works without it."""
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pbem" / name
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return None
    return folder
