"""Rewriting archive records in tests the way a GM who rewrites history would: the record
changed, every later ``prev`` link recomputed so the hash chain itself still holds, and the
verdicts re-pinned to the rewritten records (the archive head a verdict names, and the verdict
hash a record holds), so only what the change itself breaks can show."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.common.canonical import canonical
from pbem.core.campaign import Campaign, record_hash


def rewrite_from(camp: Path, index: int, change: Callable[[dict[str, Any]], object], repin: bool = True) -> None:
    """Rewrite record ``index`` with ``change`` (it edits the record in place) and recompute every
    later ``prev`` link; with ``repin``, also every verdict's archive head that named a rewritten
    record, and the verdict hashes the later records hold."""
    c = Campaign(camp)
    n = len(c.records())
    prev = record_hash(c.record_path(index - 1).read_bytes()) if index else None
    renamed: dict[str, str] = {}  # old record hash -> new

    def repinned(vpath: Path) -> bool:
        verdict = json.loads(vpath.read_bytes())
        head = str(verdict.get("archive_head", ""))
        old = head.rpartition("sha256:")[2]
        if not repin or old not in renamed:
            return False
        verdict["archive_head"] = head.replace(old, renamed[old])
        vpath.write_bytes(canonical(verdict) + b"\n")
        return True

    for i in range(index, n):
        path = c.record_path(i)
        old_hash = record_hash(path.read_bytes())
        rec = json.loads(path.read_bytes())
        if i == index:
            change(rec)
        for used in rec.get("orders", {}).values():
            vpath = camp / f"{used.get('file')}.verdict.json"
            if vpath.is_file() and repinned(vpath):
                used["verdict_sha256"] = hashlib.sha256(vpath.read_bytes()).hexdigest()
        rec["prev"] = prev
        data = canonical(rec) + b"\n"
        path.write_bytes(data)
        prev = renamed[old_hash] = record_hash(data)
    for vpath in sorted(camp.glob("orders/*/*.verdict.json")):
        repinned(vpath)
