"""What sending the outbox involves, worked out without touching anything.

:func:`plan_delivery` reads the outbox, its journals (``outbox/.journal/NAME.json``, one per
message, see :mod:`pbem.core.delivery`) and ``sent/``, and returns a :class:`Plan`: one
:class:`Step` per outbox file. ``pbem send --dry-run`` prints it (:func:`describe_plan`);
:func:`pbem.core.delivery.deliver` carries it out under the outbox lock.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import Any

from pbem.core.mailconfig import MailError
from pbem.core.outgoing import Outgoing, message_id_of, parse_outgoing, wire_bytes

JOURNAL_DIR = ".journal"


def _json_bytes(data: Any) -> bytes:
    return (json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()



# -- journal ----------------------------------------------------------------------------------


@dataclass
class Journal:
    """What is known about the delivery of one message. Saved after every step."""

    message_id: str
    date: str  # the Date header, fixed at the first attempt so that a resend is identical
    delivered: dict[str, str] = field(default_factory=dict)  # recipient -> server reply
    refused: dict[str, str] = field(default_factory=dict)  # permanent (5xx): never retried
    deferred: dict[str, str] = field(default_factory=dict)  # temporary (4xx): next run
    in_flight: list[str] = field(default_factory=list)  # sent DATA, reply not yet on disk
    done: bool = False
    sent_as: str | None = None  # the file name in sent/

    def remaining(self, recipients: tuple[str, ...]) -> list[str]:
        """Recipients still owed this message."""
        return [r for r in recipients if r not in self.delivered and r not in self.refused]

    def to_bytes(self) -> bytes:
        return _json_bytes(self.__dict__)

    @classmethod
    def load(cls, path: Path) -> Journal | None:
        try:
            data = json.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except ValueError as exc:
            raise MailError(f"delivery journal is damaged: {exc}", source=str(path)) from None
        return cls(**data)


# -- plan -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One thing the apply step will do for one outbox file.

    ``kind``: ``send`` (to ``recipients``), ``file`` (delivery finished, only the move to
    sent/ is left), ``duplicate`` (Message-ID already in sent/ or in an earlier outbox file,
    same bytes: drop this copy), ``conflict`` (the same with other content: left alone,
    reported), ``broken`` (cannot be sent: reason in ``note``).
    """

    kind: str
    name: str
    item: Outgoing | None = None
    journal: Journal | None = None
    recipients: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Plan:
    """Everything :func:`deliver` will do, in order, and journals left without a message."""

    steps: tuple[Step, ...]
    stray_journals: tuple[str, ...] = ()

    @property
    def to_send(self) -> list[Step]:
        return [s for s in self.steps if s.kind == "send"]


def sent_index(sent_dir: Path) -> dict[str, str]:
    """Message-ID -> file name of every message in sent/."""
    index: dict[str, str] = {}
    if sent_dir.is_dir():
        for path in sorted(sent_dir.glob("*.eml")):
            mid = message_id_of(path)
            if mid:
                index.setdefault(mid, path.name)
    return index


def plan_delivery(campaign_dir: Path, *, sender: str | None = None) -> Plan:
    """Work out what sending the outbox of ``campaign_dir`` involves; touches nothing."""
    outbox = campaign_dir / "outbox"
    if not outbox.is_dir():
        raise MailError("has no outbox folder", source=str(campaign_dir))
    sent = sent_index(campaign_dir / "sent")
    journals = outbox / JOURNAL_DIR
    steps: list[Step] = []
    queued: dict[str, Outgoing] = {}  # Message-ID -> the first outbox file that carries it
    names = sorted(p.name for p in outbox.glob("*.eml") if not p.name.startswith("."))
    for name in names:
        raw = (outbox / name).read_bytes()
        try:
            item = parse_outgoing(name, raw, sender)
        except MailError as exc:
            steps.append(Step("broken", name, note=exc.message))
            continue
        journal = Journal.load(journals / f"{name}.json")
        if journal is not None and journal.message_id != item.message_id:
            # the file was replaced by another message after a run stopped: its journal is void
            journal = None
        if journal is not None and journal.done:
            steps.append(Step("file", name, item, journal))
            continue
        if item.message_id in sent:
            sent_name = sent[item.message_id]
            sent_raw = (campaign_dir / "sent" / sent_name).read_bytes()
            sent_date = BytesHeaderParser().parsebytes(sent_raw).get("Date", "")
            same = wire_bytes(raw, str(sent_date)) == sent_raw or raw == sent_raw
            kind = "duplicate" if same else "conflict"
            note = f"Message-ID {item.message_id} is already in sent/{sent_name}"
            steps.append(Step(kind, name, item, note=note))
            continue
        first = queued.setdefault(item.message_id, item)
        if first is not item:
            kind = "duplicate" if first.raw == item.raw else "conflict"
            note = f"Message-ID {item.message_id} is also in outbox/{first.name}"
            steps.append(Step(kind, name, item, note=note))
            continue
        if journal is None:
            journal = Journal(item.message_id, "")  # the Date is set when it is first sent
        steps.append(Step("send", name, item, journal, tuple(journal.remaining(item.recipients))))
    stray: tuple[str, ...] = ()
    if journals.is_dir():
        stray = tuple(
            sorted(p.name for p in journals.glob("*.json") if p.name[: -len(".json")] not in names)
        )
    return Plan(tuple(steps), stray)


def describe_plan(plan: Plan) -> list[str]:
    """One line per step, for ``--dry-run``."""
    lines = []
    for step in plan.steps:
        if step.kind == "send":
            assert step.item is not None and step.journal is not None
            extra = " (resend: an earlier run was interrupted)" if step.journal.in_flight else ""
            lines.append(f"would send {step.name} {step.item.message_id} to "
                         f"{', '.join(step.recipients)}{extra}")
        elif step.kind == "file":
            lines.append(f"would move {step.name} to sent/ (already delivered)")
        elif step.kind == "duplicate":
            lines.append(f"would drop {step.name}: {step.note}")
        else:
            lines.append(f"would leave {step.name}: {step.note}")
    return lines
