"""An exclusive lock per campaign folder, so two commands never interleave.

The lock is ``fcntl.flock`` on ``DIR/lock``; the kernel drops it when the holder dies, so a
killed command never leaves a stale lock. The holder writes its pid and command line into the
file, which is what a waiting command shows when it gives up.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pbem.errors import CampaignError


@contextmanager
def exclusive(path: Path, wait: float = 30.0) -> Iterator[None]:
    """Hold the lock file ``path`` exclusively; wait up to ``wait`` seconds for it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip() or "another pbem"
                    raise CampaignError(
                        f"the campaign is busy: {holder} holds {path}; try again when it has "
                        "finished (or pass --wait SECONDS)"
                    ) from None
                time.sleep(0.05)
        try:  # the note is a courtesy: a full disk must not stop the command here, nameless
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} ({' '.join(sys.argv[:3])})".encode(), 0)
        except OSError:
            pass
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
