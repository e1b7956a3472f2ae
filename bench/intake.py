"""Intake throughput against its floor.

Signs N order documents (default 2,000) for a campaign of a bench-only game with one seat per
document, puts each in its own mail (with the headers a mail client sets: From, To, Subject,
Message-ID, Date) in a Maildir, then times, in this one process:

* ``intake``: the library call :func:`pbem.core.intake.intake` over the Maildir (mail parsing,
  restricted YAML, envelope checks, Ed25519 verification, the verbatim file, its verdict and the
  receipt, written atomically in a group commit, and the move from new/ to cur/);
* the floor: for the same documents, the C YAML parse (``CSafeLoader``), their canonical form and
  the Ed25519 verification, nothing else.

Both are CPU time of this process (user and system: on a memory file system the writes are
system time), so other load on the machine moves the ratio less than it moves wall time. The
run on disk is wall time (its cost is waiting for the disk). Intake runs ``--rounds`` times
(default 3) on fresh copies of the campaign and the Maildir, each round right after a run of the
floor, and the fastest run of each counts. The last line is ``intake/floor ratio: X.XX``. Run from the
repository root::

    python3 bench/intake.py            # N=2000
    python3 bench/intake.py -n 500 --profile
"""

from __future__ import annotations

import argparse
import base64
import cProfile
import mailbox
import pstats
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from pbem.common.canonical import canonical, sha256_hex
from pbem.core.campaign import Campaign, Seat
from pbem.core.envelope import format_document, parse_order_document, sign_data, verify_signature
from pbem.core.intake import intake
from pbem.core.keys import PrivateKey
from pbem.core.mailin import read_sources
from pbem.games import register
from pbem.games.base import OrderProblem, Phase, Resolution

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)


class BenchGame:
    """One phase, ``turn-1``, in which each of ``n`` seats sends orders for its own power."""

    name = "bench-intake"

    def __init__(self, n: int) -> None:
        self.n = n

    def scenarios(self) -> tuple[str, ...]:
        return ("flat",)

    def seats(self, scenario: str, options: dict[str, Any] | None = None) -> tuple[str, ...]:
        return tuple(f"s{i:05d}" for i in range(self.n))

    def new_game(self, scenario: str, options: dict[str, Any], rng: Any) -> dict[str, Any]:
        return {"turn": 1, "n": self.n}

    def current_phase(self, state: dict[str, Any]) -> Phase | None:
        if state["turn"] > 1:
            return None
        return Phase("turn-1", "bench", tuple(f"P{i:05d}" for i in range(state["n"])), "default")

    def seat_of(self, state: dict[str, Any], power: str) -> str | None:
        return "s" + power[1:]

    def validate(self, state: dict[str, Any], power: str, orders: Any) -> list[OrderProblem]:
        if not isinstance(orders, dict) or not isinstance(orders.get("march"), list):
            return [OrderProblem(f"orders.{power}", "give 'march: [city, ...]'")]
        return []

    def default_orders(self, state: dict[str, Any], power: str) -> dict[str, Any]:
        return {"march": []}

    def resolve(self, state: dict[str, Any], orders: dict[str, Any], rng: Any) -> Resolution:
        return Resolution({**state, "turn": state["turn"] + 1}, [])

    def secrets(self, state: dict[str, Any]) -> list[Any]:
        return []

    def result(self, state: dict[str, Any]) -> dict[str, Any] | None:
        return None


def _key(i: int) -> PrivateKey:
    seed = sha256_hex(f"bench intake {i}".encode())
    return PrivateKey(f"s{i:05d}", Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed)), X25519PrivateKey.generate())


def build(root: Path, n: int) -> tuple[Campaign, Path, list[bytes]]:
    """The campaign, a Maildir of ``n`` mails, and the signed documents they carry."""
    game = BenchGame(n)
    register(game.name, game)
    keys = [_key(i) for i in range(n)]
    seats = [Seat(k.name, f"{k.name}@example.org", k.public()) for k in keys]
    camp = Campaign.create(
        root / "camp", campaign_id="bench-1", game=game, scenario="flat", options={}, seats=seats,
        deadlines={"default": 172800}, grace=0, start=NOW, seed=b"\x01" * 32,
    )
    maildir = root / "maildir"
    box = mailbox.Maildir(maildir, create=True)
    docs = []
    for i, key in enumerate(keys):
        data = {
            "pbem": 1, "campaign": "bench-1", "nonce": camp.nonce, "player": key.name, "phase": "turn-1", "seq": 1,
            "entropy_commit": sha256_hex(f"entropy {i}".encode()),
            "orders": {f"P{i:05d}": {"march": ["Wien", "Linz", "Passau"], "note": f"order {i}"}},
        }
        raw = format_document(sign_data(data, key)).encode()
        docs.append(raw)
        msg = EmailMessage(policy=SMTP)
        msg["From"], msg["To"] = f"{key.name}@example.org", "gm@example.org"
        msg["Subject"], msg["Message-ID"] = f"orders {i}", f"<bench-{i}@example.org>"
        msg["Date"] = format_datetime(NOW - timedelta(seconds=i))  # as every mail client sets it
        msg.set_content("My orders are attached.\n")
        msg.add_attachment(raw, maintype="text", subtype="yaml", filename="orders.yaml")
        box.add(msg.as_bytes(policy=SMTP))
    return camp, maildir, docs


def floor(docs: list[bytes], keys: dict[str, Any]) -> float:
    """CPU seconds to C-parse, canonicalise and Ed25519-verify every document."""
    start = time.process_time()
    for raw in docs:
        data = yaml.load(raw, Loader=yaml.CSafeLoader)
        sig = data.pop("signature")
        keys[data["player"]].verify(base64.b64decode(sig["value"]), canonical(data))
    return time.process_time() - start


def breakdown(maildir: Path, docs: list[bytes], camp: Campaign) -> dict[str, float]:
    """Parts of intake timed alone, to show where the time goes (not part of the ratio)."""
    out = {}
    start = time.process_time()
    found = sum(len(src.candidates) for src in read_sources([maildir]))
    assert found == len(docs)
    out["alone: reading the mails"] = time.process_time() - start
    roster = camp.roster()
    start = time.process_time()
    for raw in docs:
        doc = parse_order_document(raw, "bench")
        verify_signature(doc, roster[doc.player].key)
    out["alone: restricted YAML, envelope, Ed25519 verify"] = time.process_time() - start
    return out


def run_intake(camp: Campaign, maildir: Path, n: int, profile: str | None = None) -> tuple[float, float]:
    """CPU and wall seconds of one ``intake`` over the Maildir; every document must be accepted."""
    profiler = cProfile.Profile() if profile else None
    start, wall = time.process_time(), time.perf_counter()
    with camp.locked() as c:
        if profiler:
            profiler.enable()
        report = intake(c, [maildir], NOW)
        if profiler:
            profiler.disable()
    seconds, wall = time.process_time() - start, time.perf_counter() - wall
    if report.accepted != n:
        bad = next(v for v in report.verdicts if not v.accepted)
        raise SystemExit(f"only {report.accepted} of {n} accepted; first refusal: {bad.message}")
    if profiler:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats(profile or "tottime").print_stats(25)
    return seconds, wall


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=2000, help="order documents (one seat each)")
    parser.add_argument("--dir", default="/dev/shm" if Path("/dev/shm").is_dir() else None,
                        help="where the timed campaign lives (default: /dev/shm, a memory file system, like the floor)")
    parser.add_argument("--disk", default=tempfile.gettempdir(), help="also time intake here, with real fsync (default: %(default)s)")
    parser.add_argument("--no-disk", action="store_true", help="skip the run on disk")
    parser.add_argument("--profile", nargs="?", const="cumulative", help="print a cProfile of intake, sorted (cumulative, tottime)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the floor and then intake (on fresh copies of the folders); the fastest of each counts (default: %(default)s)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="pbem-bench-intake-", dir=args.dir))
    disk = None if args.no_disk else Path(tempfile.mkdtemp(prefix="pbem-bench-intake-", dir=args.disk))
    try:
        t0 = time.perf_counter()
        camp, maildir, docs = build(root, args.n)
        print(f"setup: {args.n} signed documents in a Maildir in {time.perf_counter() - t0:.2f} s", file=sys.stderr)
        if disk is not None:
            shutil.copytree(root, disk, dirs_exist_ok=True)
        verifiers = {s.name: s.key.verifier() for s in camp.roster().values()}
        parts = breakdown(maildir, docs, camp)
        # each round times the floor and then intake, one after the other, so both fastest
        # figures come from the same stretches of the machine's speed (it changes within minutes)
        floors, runs = [], []
        for i in range(max(1, args.rounds)):
            fresh = root.parent / f"{root.name}-round{i}"
            shutil.copytree(root, fresh)
            try:
                floors.append(floor(docs, verifiers))
                runs.append(run_intake(Campaign(fresh / "camp"), fresh / "maildir", args.n, args.profile if i == 0 else None)[0])
            finally:
                shutil.rmtree(fresh, ignore_errors=True)
        floor_s, intake_s = min(floors), min(runs)
        disk_s: float | None = None
        if disk is not None:
            disk_cpu, disk_s = run_intake(Campaign(disk / "camp"), disk / "maildir", args.n)
        print(f"documents:       {args.n}")
        print(f"floor:           {floor_s:.3f} s CPU  ({floor_s / args.n * 1e3:.3f} ms/document: C YAML parse + canonical form + Ed25519 verify)")
        print(f"intake:          {intake_s:.3f} s CPU  ({intake_s / args.n * 1e3:.3f} ms/document, campaign in {args.dir or tempfile.gettempdir()})")
        for label, seconds in parts.items():
            print(f"  {label + ':':<48} {seconds:.3f} s")
        if disk_s is not None:
            print(f"intake on disk:  {disk_s:.3f} s wall, {disk_cpu:.3f} s CPU  ({disk_s / args.n * 1e3:.3f} ms/document, campaign in {args.disk}, "
                  f"the files flushed to disk; ratio {disk_s / floor_s:.2f})")
        print(f"intake/floor ratio: {intake_s / floor_s:.2f}")
    finally:
        for folder in (root, disk):
            if folder is None:
                continue
            if args.keep:
                print(f"kept: {folder}", file=sys.stderr)
            else:
                shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
