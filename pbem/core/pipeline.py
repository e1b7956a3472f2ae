"""The GM's daily job for many campaigns: ``pbem run ROOT``.

For every campaign folder under ROOT: fetch new mail when a mailbox is configured, take in the
inbox, resolve every phase that is due (all orders in, or the deadline and grace passed; missing
powers get their default orders), publish the reports and queue the mails. Each campaign runs
under its own lock, optionally in parallel processes; a broken campaign is reported and skipped
and never stops the others.
"""

from __future__ import annotations

import hashlib
import json
import os
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem.core import atomic, idle
from pbem.core.campaign import Campaign
from pbem.core.idle import PUBLISHED_MARK  # the idle mark reads it too
from pbem.core.intake import intake
from pbem.core.mailconfig import ServerSettings, load_mail_config
from pbem.core.phase import due, resolve, settle
from pbem.errors import PbemError, describe_os_error

MAX_PHASES_PER_RUN = 64


@dataclass
class CampaignRun:
    """What one campaign's run did."""

    path: str
    resolved: list[str] = field(default_factory=list)
    accepted: int = 0
    refused: int = 0
    queued: int = 0
    waiting: str = ""
    error: str | None = None
    fetched: str = ""
    sent: str = ""
    attention: list[str] = field(default_factory=list)  # what the GM should look at (safety net)

    def line(self) -> str:
        if self.error:
            return f"{self.path}: SKIPPED: {self.error}"
        parts = [self.fetched] if self.fetched else []
        parts += [f"{len(self.resolved)} phase(s) resolved", f"{self.accepted} accepted", f"{self.refused} refused", f"{self.queued} mail(s) queued"]
        parts += [self.sent] if self.sent else []
        tail = f" — {self.waiting}" if self.waiting else ""
        notes = "".join(f"\n  ATTENTION: {a}" for a in self.attention)
        return f"{self.path}: " + ", ".join(parts) + tail + notes


def set_aside(record: dict[str, Any]) -> list[str]:
    """One line for each power whose orders a phase record set aside (the rules raised on them)."""
    return [f"{record['phase']}: orders of {power} set aside: {why}" for power, why in sorted(record.get("voided", {}).items())]


def find_campaigns(root: Path) -> list[Path]:
    """Campaign folders at ROOT itself, or one or two levels below it, sorted."""
    if (root / "archive" / "000000.json").is_file():
        return [root]
    found = {p.parent.parent for p in root.glob("*/archive/000000.json")}
    found |= {p.parent.parent for p in root.glob("*/*/archive/000000.json")}
    return sorted(found)


def sharded_campaigns(root: Path, shard: tuple[int, int] = (0, 1)) -> list[Path]:
    """The campaigns under ``root`` that shard ``K`` of ``N`` runs."""
    k, n = shard
    return [p for p in find_campaigns(root) if n == 1 or shard_of(p, n) == k]


def shard_of(path: Path, shards: int) -> int:
    """The shard (0 .. shards-1) that runs the campaign at ``path``: a stable hash of its id, so
    every host computes the same split, and the split survives moving or renaming the folders.
    A campaign whose id cannot be read goes by its folder name (one shard still reports it)."""
    try:
        key = str(json.loads((path / "archive" / "000000.json").read_bytes())["campaign"])
    except (OSError, ValueError, KeyError, TypeError):
        key = path.name
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") % shards


def parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` with 0 <= K < N (K as a Kubernetes Indexed Job's JOB_COMPLETION_INDEX counts)."""
    k, sep, n = text.partition("/")
    if not (sep and k.isdigit() and n.isdigit() and 0 <= int(k) < int(n)):
        raise PbemError(f"--shard takes K/N with 0 <= K < N, such as 0/3, 1/3 or 2/3, not {text[:40]!r}")
    return int(k), int(n)


def _outbox_count(camp: Campaign) -> int:
    try:
        with os.scandir(camp.outbox) as entries:  # no Path per mail: the outbox may hold many
            return sum(1 for e in entries if e.name.endswith(".eml"))
    except FileNotFoundError:
        return 0


def publish_pending(camp: Campaign) -> list[int]:
    """Publish every record in force that is not published yet (reports, forms, mails).

    A high-water mark in ``reports/.published`` is written after each record is fully
    published, so a command killed halfway through publishing leaves the mark behind and the
    next command publishes that record again (the writes are idempotent: same bytes)."""
    try:
        from pbem.core.publish import publish_phase, publish_reopened
    except ModuleNotFoundError:  # an installation without the report renderer
        return []
    mark_path = camp.reports_dir / PUBLISHED_MARK
    try:
        mark = int(mark_path.read_text().strip())
    except (FileNotFoundError, ValueError):
        mark = -1
    from pbem.core.replies import notify

    done = []
    for rec in camp.effective_records():
        if rec["index"] > mark:
            publish_phase(camp, rec["index"])
            if rec["kind"] == "rollback" and rec.get("fresh_reveals"):
                publish_reopened(camp, rec["index"])  # the reopened phase's forms, for a fresh reveal
            notify(camp, rec["index"])  # a GM's change, a pause: the same notice its command queued
            atomic.write_text(mark_path, f"{rec['index']}\n")
            done.append(rec["index"])
    return done


def run_campaign(path: Path, now: datetime, *, fetch_mail: bool = True, send_mail: bool = True,
                 wait: float = 30.0) -> CampaignRun:
    """One campaign's daily job: fetch, take in, resolve what is due, publish and, where the
    campaign's mail settings name the servers, fetch before and send after. Never raises: a
    failure is reported in the result."""
    result = CampaignRun(str(path))
    try:
        camp = Campaign(path)
        if fetch_mail and (path / "mail.yaml").is_file():
            result.fetched = _fetch(path)
        with camp.locked(wait):
            waiting = idle.still_idle(camp, now)  # nothing in, nothing due: read no records
            if waiting is not None:
                result.waiting = waiting
            else:
                _run_locked(camp, now, result)
        if send_mail and (path / "mail.yaml").is_file():
            result.sent = _send(path)  # under the outbox's own lock, not the campaign's
    except PbemError as exc:
        result.error = str(exc)
    except OSError as exc:  # disk full, read-only, permission: the campaign is left as it was
        result.error = describe_os_error(exc)
    except Exception as exc:  # noqa: BLE001 - one broken campaign must not stop the others
        result.error = f"internal error {type(exc).__name__}: {exc} ({Path(traceback.extract_tb(exc.__traceback__)[-1].filename).name})"
    return result


def _run_locked(camp: Campaign, now: datetime, result: CampaignRun) -> None:
    """The full run of one campaign, under its lock: take in, resolve what is due, publish;
    then, if the campaign is left waiting, the idle mark (:mod:`pbem.core.idle`)."""
    before = _outbox_count(camp)
    settle(camp, now)
    report = intake(camp, [camp.inbox], now)
    result.accepted, result.refused = report.accepted, report.refused
    result.attention += [f"refused by an internal error (see pbem status): {v.message}" for v in report.internal]
    waiting = None
    for _ in range(MAX_PHASES_PER_RUN):
        d = due(camp, now)
        if not d.due:
            result.waiting = d.reason
            waiting = d
            break
        outcome = resolve(camp, now)
        result.resolved.append(outcome.record["phase"])
        result.attention += set_aside(outcome.record)
    publish_pending(camp)
    result.queued = _outbox_count(camp) - before
    if waiting is not None:
        folder = camp.orders_folder(camp.phase_number(), waiting.phase.id) if waiting.phase is not None else None
        idle.remember(camp, waiting.reason, waiting.until, folder)


def _by_mail(path: Path, server: str, act: Callable[[ServerSettings], str]) -> str:
    """``act(settings)`` with the campaign's ``server`` settings (``imap`` or ``smtp``) when they
    name a host, else nothing. A failure is reported, not raised: the run goes on, and the next
    run does what this one could not."""
    try:
        settings = getattr(load_mail_config(path), server)
        return act(settings) if settings.host else ""
    except (PbemError, OSError) as exc:
        text = describe_os_error(exc) if isinstance(exc, OSError) else str(exc)
        return f"{'fetch' if server == 'imap' else 'send'} failed: {text}"


def _fetch(path: Path) -> str:
    """Fetch the campaign's mail (see ``pbem fetch``)."""
    from pbem.core.fetch import fetch_mail

    def fetch(settings: ServerSettings) -> str:
        outcome = fetch_mail(path, settings, out=lambda _line: None, err=lambda _line: None)
        return f"{len(outcome.stored)} fetched"

    return _by_mail(path, "imap", fetch)


def _send(path: Path) -> str:
    """Deliver the campaign's outbox (see ``pbem send``: exactly once); what cannot go now stays
    queued for the next run."""
    from pbem.core.delivery import deliver

    def send(settings: ServerSettings) -> str:
        # one quick retry: what stays queued goes with the next run, not by holding this one up
        outcome = deliver(path, settings, out=lambda _line: None, err=lambda _line: None, retries=1, retry_delay=2.0)
        trouble = len(outcome.left) + sum(len(r) for r in outcome.refused.values())
        return f"{len(outcome.sent)} sent" + (f", {trouble} not delivered (see pbem send)" if trouble else "")

    return _by_mail(path, "smtp", send)


def run_all(root: Path, now: datetime, *, jobs: int = 1, fetch_mail: bool = True, send_mail: bool = True,
            progress: Callable[[int], None] | None = None, shard: tuple[int, int] = (0, 1)) -> Iterator[CampaignRun]:
    """Run every campaign under ``root`` (with ``shard=(K, N)``, only those of shard K of N);
    yields results as they finish (sorted when jobs == 1)."""
    paths = sharded_campaigns(root, shard)
    if jobs <= 1:
        for p in paths:
            yield run_campaign(p, now, fetch_mail=fetch_mail, send_mail=send_mail)
            if progress:
                progress(1)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_campaign, p, now, fetch_mail=fetch_mail, send_mail=send_mail) for p in paths]
        for fut in as_completed(futures):
            yield fut.result()
            if progress:
                progress(1)
