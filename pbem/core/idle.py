"""The idle mark: what ``pbem run`` needs to see that a campaign has nothing to do, in one small
file, so that an idle run costs the same on a campaign of five records or of five hundred.

A full run parses every archive record (the roster, the deadline with its extensions, a pause,
the orders folder's name all come from them). After one, the pipeline writes
``states/idle.json``: why the waiting phase waits (the line ``pbem run`` prints), until when the
clock alone changes nothing (the deadline with its grace; none when only a change can make the
phase due: the game is over, a pause, the outage guard holding it), and a fingerprint of every
input that decision was made from:

- pbem's version (another version's rules may decide otherwise);
- the archive head: its index and the SHA-256 of its file, and no record after it;
- the state file the waiting phase was read from (the SHA-256 of its bytes);
- the waiting phase's orders folder (each entry's name and the SHA-256 of each file's bytes:
  the files of one phase, as many as its players sent, however long the campaign);
- the publishing mark ``reports/.published``;

and it is sealed with an HMAC keyed by the campaign's secret seed file.

The next run takes the mark's word only when the inbox's ``new/`` holds no mail, the clock is
before ``until`` and every fingerprint is as recorded (which reads the head record, the
state file and the waiting phase's orders: no other record). The mark holds nothing read from the
clock or from file times, so the same folder gives the same mark. Anything else, a missing, unreadable
or foreign mark included, makes the run do its full work and write the mark again; so a new
record, an accepted file, a rewritten state file or a published report all rebuild it.

Why this is safe: the mark is the GM's own derived file in the GM's own folder. It is never
an input of a record, an order, a report or a mail; it can only let a run skip work whose
outcome it recorded, for inputs shown to be unchanged. A wrong or stale mark is detected (its
fingerprint differs) and rebuilt; at worst a run does the full work. Records before the head are
bound to it by the hash chain, which ``pbem audit`` checks (a full run does not either).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem import __version__
from pbem.common.canonical import canonical, sha256_hex
from pbem.core import atomic
from pbem.core.campaign import Campaign, format_time, parse_time
from pbem.errors import CampaignError

MARK = "idle.json"
PUBLISHED_MARK = ".published"  # the publishing mark under reports/ (see pbem.core.pipeline)


def mark_path(camp: Campaign) -> Path:
    return camp.states_dir / MARK


def still_idle(camp: Campaign, now: datetime) -> str | None:
    """The waiting reason the mark recorded, if it still holds at ``now`` (see the module's
    text); None when the run must do its full work. Hold the campaign lock around this."""
    if _mail_waiting(camp):
        return None
    try:
        mark = json.loads(mark_path(camp).read_bytes())
        if not hmac.compare_digest(str(mark["mac"]), _mac(camp, {k: v for k, v in mark.items() if k != "mac"})):
            return None
        until = mark["until"]
        if until is not None and now >= parse_time(str(until)):
            return None
        inputs = mark["inputs"]
        found = _inputs(camp, int(inputs["head"][0]), int(inputs["state"][0]), inputs["orders"][0])
    except (OSError, ValueError, KeyError, TypeError, IndexError, CampaignError):
        return None
    if found is None or found != inputs:
        return None
    return str(mark["waiting"])


def remember(camp: Campaign, waiting: str, until: datetime | None, orders: Path | None) -> None:
    """Write the mark after a full run that left the campaign waiting: ``waiting`` is the reason
    printed, ``until`` when the clock alone makes the phase due (None: never), ``orders`` the
    waiting phase's orders folder (None: no phase waits)."""
    records = camp.records()
    rec = camp.state_records()[-1]
    rel = None if orders is None else os.path.relpath(orders, camp.root)
    inputs = _inputs(camp, len(records) - 1, int(rec.get("state_of", rec["index"])), rel)
    if inputs is None:
        return
    mark: dict[str, Any] = {"inputs": inputs, "until": None if until is None else format_time(until), "waiting": waiting}
    try:
        mark["mac"] = _mac(camp, mark)
        atomic.write_if_changed(mark_path(camp), canonical(mark) + b"\n")
    except OSError:  # the seed unreadable, a full disk...: no mark, and the next run is a full one
        return


def _mac(camp: Campaign, body: dict[str, Any]) -> str:
    """The mark's seal: an HMAC keyed with the campaign's secret seed file, so a mark written by
    anyone who cannot read that file (or damaged on disk) is not taken."""
    key = (camp.secret_dir / "seed").read_bytes()
    return hmac.new(key, b"pbem|idle-mark|" + canonical(body), hashlib.sha256).hexdigest()


def _inputs(camp: Campaign, head: int, state: int, orders: str | None) -> dict[str, Any] | None:
    """The fingerprint of what an idle run's decision rests on, or None when the archive does
    not end at ``head``."""
    if os.path.exists(camp.record_path(head + 1)):
        return None
    try:
        head_hash = sha256_hex(camp.record_path(head).read_bytes())
    except FileNotFoundError:
        return None
    try:
        published: str | None = (camp.reports_dir / PUBLISHED_MARK).read_text().strip()
    except (FileNotFoundError, UnicodeDecodeError):
        published = None
    return {
        "version": __version__,
        "head": [head, head_hash],
        "state": [state, _hash(camp.state_path(state))],
        "orders": [orders, None if orders is None else _listing(camp.root / orders)],
        "published": published,
    }


def _hash(path: Path | str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return sha256_hex(fh.read())
    except FileNotFoundError:
        return None


def _listing(folder: Path) -> str | None:
    """A hash of the folder's entries: each name, with the SHA-256 of a regular file's bytes."""
    try:
        with os.scandir(folder) as entries:
            lines = sorted(f"{e.name} {_hash(e.path) if e.is_file(follow_symlinks=False) else '-'}" for e in entries)
    except FileNotFoundError:
        return None
    return sha256_hex("\n".join(lines).encode("utf-8", "surrogateescape"))


def _mail_waiting(camp: Campaign) -> bool:
    """Whether intake may find something in the inbox: a mail in its ``new/`` (a name intake
    reads: not a dot-file), or an inbox that is not a Maildir at all."""
    if not (camp.inbox / "cur").is_dir():
        return True
    try:
        with os.scandir(camp.inbox / "new") as entries:
            return any(not e.name.startswith(".") for e in entries)
    except (FileNotFoundError, NotADirectoryError):
        return True
