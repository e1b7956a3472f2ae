"""A campaign is a folder. This module owns its layout and is the only core module, besides the
CLI, that touches the file system.

::

    DIR/
      archive/000000.json ...  the hash-chained record (the commit point of every command)
      states/000000.json ...   full state after each record (holds secrets: the GM's copy)
      states/idle.json         what the last run found waiting (derived: pbem.core.idle)
      secret/seed              the campaign's secret seed (0600; revealed in the end record)
      orders/<phase>/          accepted order files, verbatim, with their verdicts
      refused/                 what intake refused and why
      inbox/                   Maildir that intake reads (pbem fetch fills it)
      outbox/  sent/           mails to deliver, and delivered
      reports/<phase>/         rendered reports
      lock                     the exclusive lock

Record 0 (``create``) holds everything fixed at creation: game, scenario, options, roster,
deadlines, the public hash-chain anchor and the commitment to the secret key.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pbem import __version__
from pbem.common.canonical import canonical, digest, sha256_hex
from pbem.common.fair import H, hash_chain
from pbem.core import atomic, lock
from pbem.core.keys import PublicKey, parse_public_key
from pbem.errors import CampaignError

RECORD_DIGITS = 6
CHAIN_LENGTH = 2048
LANGUAGES = ("en", "zh-TW")
DEFAULT_TZ = "UTC"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_DURATION = re.compile(r"^(\d+)([mhd])$")


def parse_time(text: str) -> datetime:
    """An ISO 8601 time (``2026-11-30T18:00Z``); a time without zone is UTC."""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise CampaignError(f"'{text}' is not an ISO time such as 2026-11-30T18:00Z") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


_TWO_DIGITS = tuple(f"{i:02d}" for i in range(100))


def format_time(when: datetime) -> str:
    """UTC ISO text, seconds precision, with a Z (``2026-11-30T18:00:00Z``)."""
    u = when.astimezone(UTC)  # (the fields written out from a table: intake writes one per file it takes)
    if u.year < 1000:
        return f"{u.year:04d}-{u.month:02d}-{u.day:02d}T{u.hour:02d}:{u.minute:02d}:{u.second:02d}Z"
    d = _TWO_DIGITS
    return f"{u.year}-{d[u.month]}-{d[u.day]}T{d[u.hour]}:{d[u.minute]}:{d[u.second]}Z"


def parse_duration(text: str) -> int:
    """``90m``, ``48h`` or ``7d`` as seconds."""
    m = _DURATION.match(text.strip())
    if not m:
        raise CampaignError(f"'{text}' is not a duration such as 90m, 48h or 7d")
    return int(m.group(1)) * {"m": 60, "h": 3600, "d": 86400}[m.group(2)]


def phase_key(number: int, phase_id: str) -> str:
    """A file-system name for phase ``number`` (``0007-1741-1_prussia``)."""
    return f"{number:04d}-" + re.sub(r"[^A-Za-z0-9._-]", "_", phase_id)


@dataclass(frozen=True)
class Seat:
    """A player on the roster."""

    name: str
    email: str
    key: PublicKey
    lang: str = "en"
    tz: str = DEFAULT_TZ  # the IANA time zone deadlines are shown in (beside UTC)

    def to_record(self) -> dict[str, str]:
        record = {"email": self.email, "key": self.key.line(), "lang": self.lang}
        if self.tz != DEFAULT_TZ:  # a roster written before time zones reads the same
            record["tz"] = self.tz
        return record


def check_tz(name: str, seat: str = "") -> str:
    """``name`` if it is an IANA time zone this machine knows (``Asia/Taipei``, ``UTC``)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        whose = f" for {seat}" if seat else ""
        raise CampaignError(f"time zone '{name}'{whose} is not an IANA time zone name such as Europe/Berlin, Asia/Taipei or UTC") from None
    return name


def parse_player(spec: str, langs: dict[str, str] | None = None, tzs: dict[str, str] | None = None) -> Seat:
    """``SEAT=EMAIL:PUBKEY`` where PUBKEY is a ``.pub`` file or the key text."""
    from pbem.core.keys import load_public_key

    seat, sep, rest = spec.partition("=")
    email, sep2, key = rest.partition(":")
    if not sep or not sep2 or not seat or "@" not in email or not key:
        raise CampaignError(f"'{spec}' is not SEAT=EMAIL:PUBKEY (e.g. frederick=fritz@example.org:fritz.pub)")
    lang = (langs or {}).get(seat, "en")
    if lang not in LANGUAGES:
        raise CampaignError(f"language '{lang}' for {seat}: choose one of {', '.join(LANGUAGES)}")
    return Seat(seat, email, load_public_key(key), lang, check_tz((tzs or {}).get(seat, DEFAULT_TZ), seat))


def effective(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records in force among ``records``: a ``rollback`` supersedes those after its target."""
    live: list[dict[str, Any]] = []
    for rec in records:
        if rec["kind"] == "rollback":
            live = [r for r in live if r["index"] <= rec["to"]]
        live.append(rec)
    return live


def orders_folder_name(live: list[dict[str, Any]], number: int, phase_id: str) -> str:
    """The folder name (under ``orders/``) of phase ``number``'s orders, given the records in
    force ``live``: ``0007-1741-1_prussia``, or after a rollback that reopened this phase or an
    earlier one ``0007-1741-1_prussia.r000042`` (42: the rollback record). Orders accepted before
    the rollback stay where they were, set aside: they no longer count as orders in."""
    epoch, phases = 0, 0
    for rec in live:
        if rec["kind"] == "phase":
            phases += 1
        elif rec["kind"] == "rollback" and phases + 1 <= number:
            epoch = rec["index"]
    return phase_key(number, phase_id) + (f".r{epoch:06d}" if epoch else "")


def _record_bytes(record: dict[str, Any]) -> bytes:
    return canonical(record) + b"\n"


class Campaign:
    """A campaign folder."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.archive_dir = self.root / "archive"
        self.states_dir = self.root / "states"
        self.orders_dir = self.root / "orders"
        self.refused_dir = self.root / "refused"
        self.inbox = self.root / "inbox"
        self.outbox = self.root / "outbox"
        self.sent = self.root / "sent"
        self.reports_dir = self.root / "reports"
        self.secret_dir = self.root / "secret"
        self._records: list[dict[str, Any]] | None = None
        self._pins: dict[int, str] = {}
        self._roster: tuple[list[dict[str, Any]], int, dict[str, Seat]] | None = None

    # -- creation ---------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        root: str | Path,
        *,
        campaign_id: str,
        game: Any,
        scenario: str,
        options: dict[str, Any],
        seats: list[Seat],
        deadlines: dict[str, int],
        grace: int,
        start: datetime,
        seed: bytes | None = None,
        settings: dict[str, Any] | None = None,
        entropy_first: bool = False,
    ) -> Campaign:
        """Create a campaign folder with its record 0 and initial state.

        ``settings`` are the campaign's procedural settings (``gm_email``, ``outage_share``,
        ``autopilot_after``, ``autopilot_suggest``, ``encrypt_private``), kept in record 0 beside the
        rule options.

        ``entropy_first``: draw nothing now; the deal waits for every seat's entropy, committed
        and then revealed in two rounds (:mod:`pbem.core.deal`)."""
        from pbem.common.fair import PhaseRng, Rng
        from pbem.core.deal import lobby_state

        camp = cls(root)
        if camp.archive_dir.exists():
            raise CampaignError(f"{camp.root} already holds a campaign")
        if not _ID.match(campaign_id):
            raise CampaignError(f"'{campaign_id}' is not a usable campaign id (letters, digits, '.', '_', '-')")
        if scenario not in game.scenarios():
            raise CampaignError(f"unknown scenario '{scenario}' for {game.name}; choose one of {', '.join(game.scenarios())}")
        wanted = set(game.seats(scenario, options))
        given = {s.name for s in seats}
        if given != wanted:
            missing, extra = sorted(wanted - given), sorted(given - wanted)
            parts = []
            if missing:
                parts.append("missing seats: " + ", ".join(missing))
            if extra:
                parts.append("unknown seats: " + ", ".join(extra))
            raise CampaignError(f"the roster does not fit {game.name}/{scenario} ({'; '.join(parts)}); seats are {', '.join(sorted(wanted))}")
        seed = seed if seed is not None else os.urandom(32)
        keys = derive_keys(seed)
        chain = hash_chain(keys["public"], CHAIN_LENGTH)
        if entropy_first:
            state = lobby_state(scenario, options, sorted(given))
        else:
            rng = PhaseRng(public=Rng(H(chain[0] + b"|create")), secret=Rng(H(keys["secret"] + b"|create")))
            state = game.new_game(scenario, options, rng)
        camp.root.mkdir(parents=True, exist_ok=True)
        for d in (camp.secret_dir,):
            d.mkdir(mode=0o700, exist_ok=True)
        atomic.write_bytes(camp.secret_dir / "seed", seed.hex().encode() + b"\n", mode=0o600)
        for d in (camp.inbox / "new", camp.inbox / "cur", camp.inbox / "tmp", camp.outbox, camp.sent):
            d.mkdir(parents=True, exist_ok=True)
        record = {
            "kind": "create",
            "campaign": campaign_id,
            "game": game.name,
            "scenario": scenario,
            "options": options,
            "roster": {s.name: s.to_record() for s in sorted(seats, key=lambda s: s.name)},
            "deadlines": deadlines,
            "grace": grace,
            "opened_at": format_time(start),
            "chain_length": CHAIN_LENGTH,
            "public_anchor": chain[0].hex(),
            "secret_commitment": sha256_hex(keys["secret"]),
            # a random value that every order form and order page puts in the files it signs,
            # so a file cannot count in another campaign that has the same id (L2)
            "nonce": campaign_nonce(seed),
            "state_hash": digest(state),
            # the version that made the archive: another version's rules may replay it otherwise,
            # and the audit then says so rather than name a hash
            "pbem_version": __version__,
        }
        if entropy_first:  # the deal is made from every seat's entropy, in the second round
            record["entropy_first"] = True
            # and an order file without the nonce is refused (campaigns made with --deal-now,
            # as before, still take one bound to the id alone)
            record["nonce_required"] = True
        record.update(settings or {})
        camp.write_state(0, state)
        camp.append_record(record)
        return camp

    # -- records ----------------------------------------------------------------------------

    def exists(self) -> bool:
        return (self.archive_dir / f"{0:0{RECORD_DIGITS}d}.json").is_file()

    def require(self) -> Campaign:
        if not self.exists():
            raise CampaignError(f"{self.root} is not a campaign folder (no archive/000000.json); create one with 'pbem new'")
        return self

    def record_path(self, index: int) -> Path:
        return self.archive_dir / f"{index:0{RECORD_DIGITS}d}.json"

    def records(self) -> list[dict[str, Any]]:
        """Every record, in order (parsed; the audit checks their bytes and chain)."""
        if self._records is None:
            self.require()
            folder = str(self.archive_dir)
            # one listing instead of a stat per record: a long campaign's idle run reads them all
            with os.scandir(folder) as entries:
                names = {e.name for e in entries if e.is_file()}
            out = []
            i = 0
            while (name := f"{i:0{RECORD_DIGITS}d}.json") in names:
                with open(os.path.join(folder, name), "rb") as fh:
                    data = fh.read()
                try:
                    out.append(json.loads(data))
                except ValueError:
                    raise CampaignError(f"{self.record_path(i)}: the record is not valid JSON; run 'pbem audit'") from None
                i += 1
            self._records = out
        return self._records

    def append_record(self, record: dict[str, Any]) -> dict[str, Any]:
        """Append ``record`` chained to the last one. This write is the commit point."""
        records = self.records() if self.exists() else []
        index = len(records)
        full = {"index": index, "prev": record_hash(self.record_path(index - 1).read_bytes()) if index else None}
        full.update(record)
        atomic.write_bytes(self.record_path(index), _record_bytes(full))
        if self._records is not None or index == 0:
            self._records = records + [full]
        return full

    def create_record(self) -> dict[str, Any]:
        return self.records()[0]

    def pin(self, index: int | None = None) -> str:
        """The pin of record ``index`` (default: the newest record), as reports and receipts
        print it: ``record N sha256:HASH``. A player who keeps it can have ``pbem audit --pin``
        check that the archive still holds that record, unchanged, with everything before it."""
        if index is None:
            index = len(self.records()) - 1
        found = self._pins.get(index)
        if found is None:  # a record never changes once written: intake asks for each file it accepts
            found = self._pins[index] = format_pin(index, record_hash(self.record_path(index).read_bytes()))
        return found

    @property
    def id(self) -> str:
        return str(self.create_record()["campaign"])

    @property
    def nonce(self) -> str | None:
        """The campaign nonce order files carry (``None`` for a campaign made before nonces)."""
        value = self.create_record().get("nonce")
        return None if value is None else str(value)

    def game(self) -> Any:
        """The campaign's game (with the entropy rounds before its deal, for a campaign made
        with them: :mod:`pbem.core.deal`)."""
        from pbem.games import get_game

        create = self.create_record()
        game = get_game(create["game"])
        if create.get("entropy_first"):
            from pbem.core.deal import EntropyFirst

            return EntropyFirst(game)
        return game

    def roster(self) -> dict[str, Seat]:
        """The seats as they stand after every roster change (read once per state of the
        records: each key is checked as it is parsed, and commands ask for the roster often)."""
        records = self.records()
        memo = self._roster
        if memo is None or memo[0] is not records or memo[1] != len(records):
            roster = dict(self.create_record()["roster"])
            for rec in self.effective_records():
                if rec["kind"] == "roster":
                    roster[rec["seat"]] = rec["entry"]
            seats = {
                name: Seat(name, e["email"], parse_public_key(e["key"], f"roster seat {name}"), e.get("lang", "en"), e.get("tz", DEFAULT_TZ))
                for name, e in sorted(roster.items())
            }
            memo = self._roster = (records, len(records), seats)  # (the list itself kept: its id stays its own)
        return dict(memo[2])

    def effective_records(self) -> list[dict[str, Any]]:
        """The records in force: a ``rollback`` record supersedes the records after its target."""
        return effective(self.records())

    def as_of(self, index: int) -> Campaign:
        """This campaign as it stood when record ``index`` was written (records after it unseen):
        what a mail about that record says does not depend on when it is queued."""
        then = Campaign(self.root)
        then._records = self.records()[: index + 1]
        return then

    def orders_folder(self, number: int, phase_id: str) -> Path:
        """Where the orders of phase ``number`` (now, or once it waits) are kept: see
        :func:`orders_folder_name`."""
        return self.orders_dir / orders_folder_name(self.effective_records(), number, phase_id)

    def state_records(self) -> list[dict[str, Any]]:
        """Effective records that set a state (create, phase, rollback)."""
        return [r for r in self.effective_records() if "state_hash" in r]

    # -- states -----------------------------------------------------------------------------

    def state_path(self, index: int) -> Path:
        return self.states_dir / f"{index:0{RECORD_DIGITS}d}.json"

    def write_state(self, index: int, state: dict[str, Any]) -> None:
        atomic.write_bytes(self.state_path(index), canonical(state) + b"\n", mode=0o600)

    def read_state(self, index: int) -> dict[str, Any]:
        return json.loads(self._state_bytes(index))  # type: ignore[no-any-return]

    def _state_bytes(self, index: int) -> bytes:
        p = self.state_path(index)
        try:
            return p.read_bytes()
        except FileNotFoundError:
            raise CampaignError(f"{p} is missing; run 'pbem audit' to rebuild it from the archive") from None

    def current(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The last state-setting record and its state (checked against the record's hash)."""
        rec = self.state_records()[-1]
        source = rec.get("state_of", rec["index"])
        data = self._state_bytes(source)
        state = json.loads(data)
        # write_state stores the canonical bytes and a newline: hashing those bytes checks the
        # state without encoding it again (a file written otherwise is checked the long way)
        if (not data.endswith(b"\n") or sha256_hex(data[:-1]) != rec["state_hash"]) and digest(state) != rec["state_hash"]:
            raise CampaignError(f"{self.state_path(source)} does not match record {rec['index']}; run 'pbem audit'")
        return rec, state

    # -- secrets and chance -----------------------------------------------------------------

    def seed(self) -> bytes:
        """The secret seed: from secret/seed, or from the end record once revealed."""
        for rec in self.records():
            if rec["kind"] == "end" and rec.get("seed"):
                return bytes.fromhex(rec["seed"])
        p = self.secret_dir / "seed"
        try:
            return bytes.fromhex(p.read_text().strip())
        except FileNotFoundError:
            raise CampaignError("the secret seed is not here (only the GM's copy has it before the game ends)") from None

    def phase_number(self) -> int:
        """1-based number of the phase now waiting (phase records in force + 1)."""
        return sum(1 for r in self.effective_records() if r["kind"] == "phase") + 1

    # -- time -------------------------------------------------------------------------------

    def opened_at(self) -> datetime:
        """When the phase now waiting opened (the last state change, or an extension)."""
        opened = parse_time(self.create_record()["opened_at"])
        for rec in self.effective_records():
            if rec["kind"] in ("phase", "rollback"):
                opened = parse_time(rec["resolved_at"])
        return opened

    def deadline(self, deadline_kind: str) -> datetime:
        """The deadline of the phase now waiting, with every extension in force."""
        create = self.create_record()
        seconds = create["deadlines"].get(deadline_kind, create["deadlines"].get("default", 172800))
        when = self.opened_at() + timedelta(seconds=seconds)
        number = self.phase_number()
        for rec in self.effective_records():
            if rec["kind"] in ("extend", "resume") and rec.get("phase_number") == number:
                when += timedelta(seconds=rec["seconds"])
        return when

    def closing(self, deadline_kind: str) -> datetime:
        """When the phase now waiting stops taking orders: its deadline and the campaign's grace."""
        return self.deadline(deadline_kind) + timedelta(seconds=int(self.create_record()["grace"]))

    # -- lock -------------------------------------------------------------------------------

    @contextmanager
    def locked(self, wait: float = 30.0) -> Iterator[Campaign]:
        """Hold the campaign's exclusive lock; reload records once held."""
        self.require()
        with lock.exclusive(self.root / "lock", wait), atomic.scratch(self.root):
            self._records = None
            self._pins = {}
            # what a killed writer left: one folder to list, however long the campaign
            atomic.sweep(self.root)
            yield self


def record_hash(data: bytes) -> str:
    """The hash that chains records: SHA-256 of the record file's bytes."""
    return sha256_hex(data)


_PIN = re.compile(r"^\s*(?:record\s+)?(\d+)(?::|\s+)(?:sha256:)?([0-9a-f]{64})\s*$")


def format_pin(index: int, sha256: str) -> str:
    """``record N sha256:HASH``: one line that names a record and the hash of its file."""
    return f"record {index} sha256:{sha256}"


def parse_pin(text: str) -> tuple[int, str]:
    """A pin as ``N:HASH`` or as printed (``record N sha256:HASH``)."""
    m = _PIN.match(text)
    if not m:
        raise CampaignError(f"'{text}' is not a pin such as 12:3f2a… or 'record 12 sha256:3f2a…' (copy it from a report or receipt)")
    return int(m.group(1)), m.group(2)


def campaign_nonce(seed: bytes) -> str:
    """The campaign nonce: 16 bytes derived from the secret seed (as unpredictable as the seed,
    and no help in guessing it), in hex."""
    return hmac.new(seed, b"pbem|campaign-nonce", hashlib.sha256).digest()[:16].hex()


def derive_keys(seed: bytes) -> dict[str, bytes]:
    """The public-chain seed and the secret-stream key, both derived from the campaign seed."""
    return {
        "public": hmac.new(seed, b"pbem|public-chain", hashlib.sha256).digest(),
        "secret": hmac.new(seed, b"pbem|secret-key", hashlib.sha256).digest(),
    }

