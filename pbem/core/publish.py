"""Publishing a phase: the reports, maps and order forms on disk, and the mails in the outbox.

After a record is appended, :func:`publish_phase` writes into ``DIR/reports/<phase_key>/``::

    public.html  public.txt              the public report (English)
    public.zh-TW.html  public.zh-TW.txt  the same in Traditional Chinese
    map.svg  map.zh-TW.svg               the public map at the end of the phase (games with a map)
    private/<seat>.html  <seat>.txt      each seat's report (the public one plus its secrets), in
                                         the seat's language
    forms/<seat>.yaml                    the pre-filled order form of the seat's next phase
    forms/<kind>.schema.json             the JSON schema it names (a hard link to the one copy of
                                         that schema, ``reports/<kind>.schema.<hash>.json``)

and queues one mail per seat in ``DIR/outbox/``: ``multipart/mixed`` holding a
``multipart/alternative`` (text, HTML, the map as PNG images) with the seat's order form
attached, and its offline order page when it owes orders (else a page of the map to zoom). The
order page is kept in the mail only (``outbox/``, then ``sent/``), not a second time under
``reports/``; a player's signed ``resend`` request mails it again.

A game whose map has parts no phase changes stores them once per campaign and language, beside
the phase folders, each named by its content: Maria's ground (sectors, roads, cities) as
``DIR/reports/map-ground.<hash>.svg``, its names where the empty board places them as
``map-names.<hash>.svg``, and its legend (one per set of powers on the board) as
``map-layer.<hash>.svg``. Each phase's ``map.svg`` shows them as images, masks out the names its
pieces moved or hid, and draws only those names, the pieces, moves and battles: a phase's map
takes about 30 KB instead of 320 KB. The mails carry the whole drawing. The stored
HTML reports link one style sheet and one script, ``DIR/reports/report.<hash>.css`` and
``report.<hash>.js`` (the map's zoom), where a mail's HTML holds its own.

Encryption (decided here, M11.1): the private part of a seat's mail is sealed to the seat's
X25519 key (:func:`pbem.core.privacy.seal`) when record 0's options hold
``encrypt_private: true`` (every seat) or ``encrypt_private: [seat, ...]`` (those seats);
``report.encrypt_private`` is accepted as the same option. Such a mail carries the public report
in clear, and the seat's private HTML report (order form included) sealed in an attachment
``private-<seat>.html`` that opens in a browser with the seat's key file
(:mod:`pbem.render.sealedpage`) and that ``pbem decrypt`` opens too. The private files under ``reports/``
stay in clear: that folder is the GM's.

Everything is deterministic: no clock, sorted iteration, the MIME boundaries are hashes of the
content, the Message-ID is stable and no ``Date`` is set, and the sealing seed is derived from the
campaign's secret key. Every write goes through ``write_if_changed``, so calling this twice
writes the same bytes once.
"""

from __future__ import annotations

import gc
import hashlib
import hmac
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from pbem.common.canonical import content_name
from pbem.common.fair import H, Rng
from pbem.core import atomic, mailout, outbox
from pbem.core.atomic import link_or_copy, write_if_changed
from pbem.core.campaign import Campaign, derive_keys, format_time, parse_time, phase_key
from pbem.core.seal import derive_salt
from pbem.games import schema_path
from pbem.render import i18n, mappage, orderpage, report, reportmap, reportpage, sealedpage
from pbem.render.i18n import render
from pbem.render.reportmap import MapImage
from pbem.render.reportpage import report_html as _html
from pbem.render.reportpage import report_text as _text
from pbem.render.reportpage import sealed_html as _sealed_html

LANGS = tuple(i18n.LOCALES)
LOBBY_TEMPLATES = "pbem"  # templates/pbem/: the entropy rounds before a deal
YOUNG_OBJECTS = 10_000  # the cycle collector's first threshold while a phase is published


@dataclass
class Bundle:
    """Everything one record publishes, before anything is written: each file's bytes with the
    audience it is for (``public`` or a seat), and each seat's mail."""

    key: str
    files: dict[str, tuple[str, bytes]]
    mails: dict[str, tuple[str, bytes]]
    shared: dict[str, bytes] = field(default_factory=dict)  # public files of reports/ itself: a map's ground

    def for_audience(self, audience: str) -> dict[str, bytes]:
        """The files meant for ``audience`` (a seat also reads every public file)."""
        return {k: v for k, (who, v) in self.files.items() if who == audience}


@dataclass
class Rendered:
    """One audience's rendered report."""

    html: str
    text: str
    svg: str | None


def publish_all(camp: Campaign) -> list[Path]:
    """Publish every record in force that a report covers (record 0 and every phase)."""
    written: list[Path] = []
    for rec in camp.effective_records():
        if rec["kind"] in ("create", "phase"):
            written += publish_phase(camp, rec["index"])
    return written


def report_key(record: Mapping[str, Any]) -> str:
    """The folder name of a record's reports (``0003-round-3``; record 0: ``0000-start``)."""
    if record["kind"] == "phase":
        return phase_key(record["phase_number"], record["phase"])
    return phase_key(0, "start")


def publish_reopened(camp: Campaign, rollback_index: int) -> list[Path]:
    """After ``pbem rollback``: the report the reopened phase starts from, mailed again under a new
    name, its order forms and pages naming the rollback record (``opened``), so ``pbem sign`` and
    the order page reveal a fresh value for the re-run and its new deadline is printed."""
    rollback = camp.records()[rollback_index]
    return publish_phase(camp, int(rollback["state_of"]), reopened=rollback)


def publish_phase(camp: Campaign, record_index: int, reopened: dict[str, Any] | None = None) -> list[Path]:
    """Render the reports of record ``record_index`` and queue their mails; return the paths
    written or queued. A record that no report covers (an extension, a roster change) writes
    nothing; for the end record the last phase is published again with the final result."""
    # What lives before (the archive, the templates, the board, the drawings' caches) is
    # frozen out of the cycle collector while the phase is rendered, as intake does: the many
    # objects a phase makes then trigger no collection that walks them all. The youngest
    # generation is collected every 10,000 new objects, not 700 (Python's default; most of a phase's
    # objects die young: fewer of them are walked). Both undone after.
    freeze = gc.get_freeze_count() == 0
    thresholds = gc.get_threshold()
    if freeze:
        gc.freeze()
        gc.set_threshold(YOUNG_OBJECTS, *thresholds[1:])
    try:
        return _publish(camp, record_index, reopened)
    finally:
        if freeze:
            gc.unfreeze()
            gc.set_threshold(*thresholds)


def _publish(camp: Campaign, record_index: int, reopened: dict[str, Any] | None) -> list[Path]:
    records = camp.records()
    rec = records[record_index]
    if rec["kind"] == "end":
        phases = [r for r in camp.effective_records() if r["kind"] == "phase" and r["index"] < record_index]
        return publish_phase(camp, phases[-1]["index"]) if phases else []
    if rec["kind"] not in ("create", "phase"):
        return []
    bundle = render_record(camp, record_index, reopened=reopened)
    out = camp.reports_dir / bundle.key
    written = []
    links = []
    # one flush of the phase's files and mails at the end (a group commit), not an fsync of each
    # file and of its folder: on a crash before it, publishing again writes them all again
    with atomic.group(camp.reports_dir, camp.outbox):
        for name, data in bundle.shared.items():  # first: a phase's map.svg shows its ground
            write_if_changed(camp.reports_dir / name, data)
            written.append(camp.reports_dir / name)
        for rel, (_who, data) in bundle.files.items():
            if rel.endswith(".schema.json"):  # the same shipped schema in many phases: one file, linked
                kept = camp.reports_dir / content_name(rel.rsplit("/", 1)[-1][:-len(".json")], data, "json")
                write_if_changed(kept, data)
                links.append((kept, out / rel))  # once the file is in place
            else:
                write_if_changed(out / rel, data)
            written.append(out / rel)
        for _seat, (name, msg) in sorted(bundle.mails.items()):
            written.append(outbox.queue(camp.outbox, name, msg))
    for kept, link in links:
        link_or_copy(kept, link)
    return written


def render_record(camp: Campaign, record_index: int, state: dict[str, Any] | None = None,
                  reopened: dict[str, Any] | None = None) -> Bundle:
    """Render the reports and mails of record ``record_index`` (``create`` or ``phase``) without
    writing anything. ``state`` replaces the record's state (the audience tests use it to show
    that one seat's secrets change no other audience's bytes); ``reopened`` is the rollback
    record that reopened the phase waiting after it (:func:`publish_reopened`)."""
    pub = _Publisher(camp, camp.records()[record_index], reopened)
    if state is not None:
        pub.state = state
    return pub.run()


class _Publisher:
    """The work of one publish_phase call."""

    def __init__(self, camp: Campaign, rec: dict[str, Any], reopened: dict[str, Any] | None = None) -> None:
        self.camp = camp
        self.rec = rec
        self.reopened = reopened
        # after a rollback each seat's files must have a seq above those it set aside
        self.seq_floor: dict[str, int] = {}
        if reopened is not None:
            from pbem.core.accepted import set_aside

            then = camp.as_of(reopened["index"])
            self.seq_floor = {seat: acc.seq + 1 for seat, acc in set_aside(then, then.phase_number(), reopened["reopens"]).items()}
        self.create = camp.create_record()
        self.game = camp.game()
        self.game_name = str(self.create["game"])
        self.key = report_key(rec)
        self.state = camp.read_state(rec.get("state_of", rec["index"]))
        events_path = camp.states_dir / f"{rec['index']:06d}.events.json"
        self.events: list[dict[str, Any]] = json.loads(events_path.read_bytes()) if rec["kind"] == "phase" and events_path.is_file() else []
        self.roster = camp.roster()
        self.secret_key = derive_keys(camp.seed())["secret"]
        self.files: dict[str, tuple[str, bytes]] = {}
        self.shared: dict[str, bytes] = {}
        self.mails: dict[str, tuple[str, bytes]] = {}
        self.images: dict[str, list[MapImage]] = {}
        self.public_events: list[dict[str, Any]] = []
        self.public_view: Mapping[str, Any] = {}
        self.suggestions: dict[str, Any] = {}  # power -> the autopilot's orders, worked out once
        self.legal: dict[str, Any] = {}  # power -> its legal orders, worked out once
        self.secrets: list[Any] | None = None  # the state's secrets, by label

    # -- the pieces ---------------------------------------------------------------------------

    def _write(self, rel: str, audience: str, text: str) -> None:
        self.files[rel] = (audience, text.encode("utf-8"))

    def _chain(self) -> dict[str, str] | None:
        if self.rec["kind"] != "phase":
            return None
        number = self.rec["phase_number"]
        if "chain_index" in self.rec:  # every phase record, superseded or not, takes the next key
            previous = [r for r in self.camp.records() if r["kind"] == "phase" and r["index"] < self.rec["index"]]
            if previous:
                return report.chain_check(self.rec, previous[-1]["public_key"], f"record {previous[-1]['index']}")
            return report.chain_check(self.rec, self.create["public_anchor"], "anchor")
        previous = [r for r in self.camp.effective_records() if r["kind"] == "phase" and r["phase_number"] == number - 1 and r["index"] < self.rec["index"]]
        if previous:
            return report.chain_check(self.rec, previous[-1]["public_key"], f"phase {number - 1}")
        return report.chain_check(self.rec, self.create["public_anchor"], "anchor")

    def _pin(self, with_result: bool) -> str:
        """The archive head the report is made from: its own record, or the end record that the
        final report's result comes from."""
        ends = [r for r in self.camp.effective_records() if r["kind"] == "end" and r["index"] > self.rec["index"]]
        return self.camp.pin(ends[0]["index"] if ends and with_result else self.rec["index"])

    def _roster_changes(self) -> list[dict[str, Any]]:
        """The roster records since the previous report's record, up to this one."""
        records = self.camp.effective_records()
        earlier = [r["index"] for r in records if r["kind"] in ("create", "phase") and r["index"] < self.rec["index"]]
        since = earlier[-1] if earlier else -1
        return [r for r in records if r["kind"] == "roster" and since < r["index"] < self.rec["index"]]

    def _deadline(self, phase: Any) -> str | None:
        if phase is None:
            return None
        opened = parse_time((self.reopened or self.rec).get("resolved_at") or self.create["opened_at"])
        table = self.create["deadlines"]
        when = opened + timedelta(seconds=table.get(phase.deadline_kind, table.get("default", 172800)))
        number = self.rec.get("phase_number", 0) + 1
        for r in self.camp.effective_records():
            if r["kind"] == "extend" and r.get("phase_number") == number and r["index"] > (self.reopened or self.rec)["index"]:
                when += timedelta(seconds=r["seconds"])
        return format_time(when)

    def _result(self, phase: Any) -> dict[str, Any] | None:
        if phase is not None:  # the game goes on after this record
            return None
        for r in self.camp.effective_records():
            if r["kind"] == "end" and r["index"] > self.rec["index"]:
                return dict(r.get("result") or {}) or {"reason": "over"}
        return None

    def _openings(self, seat: str) -> list[dict[str, Any]]:
        if self.rec["kind"] != "phase":
            return []
        commitments = self.rec.get("commitments", {})
        number = self.rec["phase_number"]
        if self.secrets is None:  # every seat's, listed once per phase
            self.secrets = sorted(self.game.secrets(self.state), key=lambda s: s.label)
        out = []
        for s in self.secrets:
            if s.owner == seat:
                salt = derive_salt(self.secret_key, f"{number}|{s.label}")
                out.append(report.opening(s.label, commitments.get(s.label), s.value, salt))
        return out

    def _schema_ref(self, kind: str) -> str:
        base = self._option("report.schema_base") or self._option("schema_base")
        if base:
            return f"{str(base).rstrip('/')}/{self.game_name}/{kind}.schema.json"
        return f"{kind}.schema.json"

    def _option(self, name: str) -> Any:
        """A campaign setting: from the rule options, or from record 0 itself (``pbem new
        --encrypt-private`` puts ``encrypt_private`` there)."""
        value = (self.create.get("options") or {}).get(name)
        return self.create.get(name) if value is None else value

    def _encrypts(self, seat: str) -> bool:
        flag = self._option("encrypt_private")
        if flag is None:
            flag = self._option("report.encrypt_private")
        if isinstance(flag, list):
            wanted = seat in flag
        else:
            wanted = flag is True
        return wanted and self.roster[seat].key.x25519 is not None

    def _map(self, view: Mapping[str, Any], public_events: list[dict[str, Any]], lang: str) -> str | None:
        return reportmap.map_svg(self.game_name, view, public_events, lang)

    def _suggested(self, powers: Sequence[str]) -> dict[str, Any]:
        """The autopilot's orders for ``powers``, from what their seat knows, when the GM lets it
        suggest (``pbem new --autopilot-suggest``): the form and the order page start from them."""
        return _remembered(self.suggestions, powers,
                           lambda p: self.game.autopilot_orders(self.state, p, Rng(H(f"pbem|suggest|{self.key}|{p}".encode()))))

    def _legal(self, powers: Sequence[str]) -> dict[str, Any]:
        """The legal orders of ``powers`` (for the form and the order page alike)."""
        return _remembered(self.legal, powers, lambda p: self.game.legal_orders(self.state, p))

    def _form(self, upcoming: report.NextPhase | None, seat: str, lang: str) -> tuple[str | None, Path | None]:
        if upcoming is None:
            return None, None
        powers = dict(upcoming.senders).get(seat)
        if not powers:
            return None, None
        legal = self._legal(powers)
        suggest = bool(self.create.get("autopilot_suggest"))
        prefill = self._suggested(powers) if suggest else {p: self.game.default_orders(self.state, p) for p in powers}
        ctx = report.form_context(
            campaign=self.camp.id, game=self.game_name, seat=seat, phase=upcoming, powers=powers,
            legal=legal, defaults=prefill, schema=self._schema_ref(upcoming.kind), nonce=self.camp.nonce,
        )
        ctx["opened"] = self.reopened["index"] if self.reopened else None
        ctx["seq"] = self.seq_floor.get(seat, 1)
        ctx["suggested"] = suggest
        ctx["tz"] = self.roster[seat].tz  # the deadline in the seat's time zone, beside UTC
        ctx["dump"] = _dump_yaml
        ctx["flow"] = _flow_yaml
        text = render(lang, [f"{self.game_name}/form.yaml", "base/form.yaml"], ctx)
        return text, schema_path(self.game_name, upcoming.kind)

    # -- the run ------------------------------------------------------------------------------

    def run(self) -> Bundle:
        game = self.game
        public_view = self.public_view = game.view(self.state, report.PUBLIC)
        if "entropy_round" in public_view:  # the rounds before the deal (pbem.core.deal): no board to show
            self.game_name = LOBBY_TEMPLATES
        header = report.phase_header(self.camp.id, self.game_name, self.rec, self.key, played=str(self.create["game"]))
        phase = game.current_phase(self.state)
        seat_of = {p: game.seat_of(self.state, p) for p in (phase.powers if phase else ())}
        upcoming = report.next_phase(phase, seat_of, self._deadline(phase))
        public_events = self.public_events = report.visible_events(self.events, report.PUBLIC)
        chain, result = self._chain(), self._result(phase)
        archive = report.archive_section(self.rec, self._pin(result is not None), self.create, self._roster_changes())
        public: dict[str, Rendered] = {}
        public_ctx: dict[str, dict[str, Any]] = {}
        for lang in LANGS:
            svg = self._map(public_view, public_events, lang)
            ctx = report.public_context(header=header, view=public_view, events=public_events, record=self.rec, chain=chain,
                                        upcoming=upcoming, map_svg=svg, result=result, archive=archive)
            public_ctx[lang] = ctx
            suffix = "" if lang == "en" else f".{lang}"
            public[lang] = Rendered(_html(lang, "public", _linked(ctx, f"map{suffix}.svg")), _text(lang, "public", ctx), svg)
            self._write(f"public{suffix}.html", report.PUBLIC, self._styled(public[lang].html, "../"))
            self._write(f"public{suffix}.txt", report.PUBLIC, public[lang].text)
            if svg is not None:
                self._store_map(f"map{suffix}.svg", svg)
        for seat_name, seat in self.roster.items():
            lang = i18n.check_lang(seat.lang)
            view = game.view(self.state, seat_name)
            own_events = report.visible_events(self.events, seat_name)
            form, schema = self._form(upcoming, seat_name, lang)
            svg = public[lang].svg  # one map per language: the seat's troops are in its tables
            ctx = report.private_context(
                public_ctx[lang], seat=seat_name, view=view, own_events=own_events,
                openings=self._openings(seat_name), form=form, map_svg=svg,
            )
            ctx["events"] = report.story(own_events, self.game_name)
            ctx["tz"] = seat.tz  # deadlines in the seat's time zone, beside UTC
            suffix = "" if lang == "en" else f".{lang}"
            body = reportpage.slotted(lang, "private", ctx)  # the stored copy and the mail say the rest alike
            mine = Rendered(reportpage.filled(lang, body[0], _linked(ctx, f"../map{suffix}.svg"), "html"),
                            reportpage.filled(lang, body[1], ctx, "txt"), svg)
            self._write(f"private/{seat_name}.html", seat_name, self._styled(mine.html, "../../"))
            self._write(f"private/{seat_name}.txt", seat_name, mine.text)
            if form is not None:
                self._write(f"forms/{seat_name}.yaml", seat_name, form)
                if schema is not None:
                    self.files[f"forms/{schema.name}"] = (report.PUBLIC, _schema_bytes(schema))
            # the offline order page: write, check and sign the next orders in a browser (issue 9);
            # the seat's mail carries it and reports/ keeps no second copy (about 115 KB a page)
            owed = dict(upcoming.senders).get(seat_name) if upcoming else None
            page = orderpage.order_page(
                self.game_name, game, self.state, seat_name, campaign=self.camp.id, nonce=self.camp.nonce, lang=lang,
                opened=self.reopened["index"] if self.reopened else None, seq=self.seq_floor.get(seat_name),
                deadline=upcoming.deadline if upcoming else None, tz=seat.tz, pubkey=seat.key.line(), map_svg=svg,
                suggested=self._suggested(owed) if owed and self.create.get("autopilot_suggest") else None,
                legal=self._legal(owed) if owed else None, view=view,
            )
            self.mails[seat_name] = self._queue(seat_name, lang, ctx, public_ctx[lang], public[lang], form, schema, page, body)
        return Bundle(self.key, self.files, self.mails, self.shared)

    def _styled(self, html: str, up: str) -> str:
        """A report as ``reports/`` keeps it: its style sheet and its script, the same for every
        report, stored once beside the phase folders (``up`` leads there) and linked."""
        page, files = reportpage.linked_assets(html, up)
        for name, text in files.items():
            self.shared[name] = text.encode("utf-8")
        return page

    def _store_map(self, name: str, svg: str) -> None:
        """The phase's map as ``reports/`` keeps it: what every phase shows the same (the
        board's ground, the names where the empty board has them) once per campaign, beside the
        phase folders, when the game's map has such parts (:func:`reportmap.stored_map`)."""
        stored = reportmap.stored_map(self.game_name, svg)
        if stored is None:
            self._write(name, report.PUBLIC, svg)
            return
        shared, linked = stored
        for file_name, text in shared.items():
            self.shared[file_name] = text.encode("utf-8")
        self._write(name, report.PUBLIC, linked)

    def _map_images(self, lang: str, svg: str | None) -> list[MapImage]:
        if svg is None:
            return []
        if lang not in self.images:
            self.images[lang] = reportmap.map_images(self.game_name, svg, self.public_events, lang, self.key, self.public_view)
        return self.images[lang]

    def _queue(self, seat: str, lang: str, ctx: dict[str, Any], public_ctx: dict[str, Any], public: Rendered,
               form: str | None, schema: Path | None, page: str | None = None,
               body: tuple[str, str] | None = None) -> tuple[str, bytes]:
        """The seat's report mail. Its HTML shows the map as PNG images cited by ``cid:`` (webmail
        shows no inline SVG); the SVG travels once, for zooming: in the order page, else in a
        small map page, or (encrypted mails) inside the sealed report."""
        entry = self.roster[seat]
        subject = " ".join(render(lang, "base/mail_subject.txt", ctx).split())
        images = self._map_images(lang, public.svg)
        sealed = self._encrypts(seat)
        page_name = f"orders-{self.key}-{seat}.html" if page is not None else None
        map_name = f"map-{self.key}.html" if public.svg is not None and page_name is None and not sealed else None
        in_mail = {"map_images": images, "map_svg": None, "order_page": page_name, "map_page": map_name,
                   "order_form": f"orders-{self.key}-{seat}.yaml" if form is not None else None}
        attachments: list[tuple[bytes, str, str, str]] = []  # (data, maintype, subtype, filename)
        if sealed:
            from pbem.core.privacy import seal

            sealing_seed = hmac.new(self.secret_key, f"report-seal|{self.key}|{seat}".encode(), hashlib.sha256).digest()
            private_html = _html(lang, "private", ctx)  # the map inline: the sealed page stands alone
            armoured = seal(private_html.encode("utf-8"), entry.key, sealing_seed, compress=True)
            note = render(lang, "base/mail_sealed_note.txt", dict(ctx, order_page=page_name))
            mail_public = dict(public_ctx, tz=entry.tz, **in_mail)  # the deadline in the seat's time zone
            text = note + "\n" + _text(lang, "public", mail_public)
            html = _sealed_html(note, _html(lang, "public", mail_public))
            # a page that opens in a browser with the key file (and that pbem decrypt reads)
            attachments.append((sealedpage.sealed_page(armoured, seat, lang).encode("ascii"), "text", "html", f"private-{seat}.html"))
            if page is not None and page_name is not None:  # its data sealed too: the key that signs opens it
                page_seed = hmac.new(self.secret_key, f"orderpage-seal|{self.key}|{seat}".encode(), hashlib.sha256).digest()
                page = sealedpage.seal_order_page(page, lambda data: seal(data, entry.key, page_seed), lang)
                attachments.append((page.encode("utf-8"), "text", "html", page_name))
        else:
            mail_ctx = dict(ctx, **in_mail)
            html_body, text_body = body or reportpage.slotted(lang, "private", ctx)
            text, html = reportpage.filled(lang, text_body, mail_ctx, "txt"), reportpage.filled(lang, html_body, mail_ctx, "html")
            if form is not None:
                attachments.append((form.encode("utf-8"), "text", "yaml", str(in_mail["order_form"])))
            if page is not None and page_name is not None:  # it shows the seat's hand: only in a mail whose private part is in clear
                attachments.append((page.encode("utf-8"), "text", "html", page_name))
            if map_name is not None and public.svg is not None:
                attachments.append((mappage.map_page(public.svg, subject, lang).encode("utf-8"), "text", "html", map_name))
        if schema is not None and form is not None and not sealed:
            attachments.append((_compact_json(schema), "application", "schema+json", schema.name))
        msg = build_mail(
            sender=str(self.create.get("gm_email", "pbem@localhost")), to=entry.email, subject=subject,
            mid=outbox.message_id("report", f"{self._mail_key()}.{seat}", self.camp.id),
            text=text, html=html, attachments=attachments,
            related=[(img.png, "image", "png", img.filename, img.cid) for img in images],
        )
        return f"report-{self._mail_key()}-{seat}", msg

    def _mail_key(self) -> str:
        """The report folder's name, and for a phase resolved again after a rollback the record
        too (``0006-1741-2_hussars.r000014``): a corrected report is a new mail, not one that
        ``outbox.queue`` skips because the first report of that phase was sent."""
        if self.reopened is not None:  # the report a reopened phase starts from, mailed again
            return f"{self.key}.r{self.reopened['index']:06d}"
        again = any(r["kind"] == "phase" and r["phase_number"] == self.rec.get("phase_number") and r["index"] < self.rec["index"]
                    for r in self.camp.records())
        return f"{self.key}.r{self.rec['index']:06d}" if again else self.key


def _remembered(table: dict[str, Any], powers: Sequence[str], work: Callable[[str], Any]) -> dict[str, Any]:
    """``work`` of each of ``powers``, each worked out once per publish and kept in ``table``."""
    for p in powers:
        if p not in table:
            table[p] = work(p)
    return {p: table[p] for p in powers}


def _linked(ctx: dict[str, Any], map_file: str) -> dict[str, Any]:
    """The context of a report stored under ``reports/``: it shows the phase's ``map.svg`` stored
    beside it (``map_file``, relative to the report) instead of a copy of the drawing."""
    if not ctx.get("map_svg"):
        return ctx
    return dict(ctx, map_svg=None, map_file=map_file)


# libyaml's dumper writes the same text as PyYAML's pure-Python SafeDumper (what yaml.safe_dump
# uses) several times faster; the pure-Python one only where PyYAML was built without libyaml
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _dump_yaml(value: Any) -> str:
    return str(yaml.dump(value, Dumper=_DUMPER, sort_keys=True, allow_unicode=True, default_flow_style=False,
                         width=100)).rstrip("\n")


def _flow_yaml(value: Any) -> str:
    quick = _flow(value)
    if quick is not None:
        return quick
    text = str(yaml.dump(value, Dumper=_DUMPER, sort_keys=True, allow_unicode=True, default_flow_style=True,
                         width=10**6)).strip()
    # a bare scalar is dumped as a document with an end marker ("16\n...")
    return text[:-3].strip() if text.endswith("\n...") else text


# A form's legal choices are mostly ids, numbers and lists and mappings of them, which YAML's
# flow style writes as they are: ``[arnau, baden]``, ``{karl: {max: 8, min: 1}}``. Those are
# written here (the dumper's representer, in Python, took half of a form's time); anything
# else, down to an id YAML would read as a boolean or null, goes to the dumper.
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_.]{0,100}")
_NOT_PLAIN = frozenset("yes Yes YES no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL".split())


def _flow(value: Any) -> str | None:
    """``value`` in YAML's flow style as the dumper writes it, or None when it is not a
    mapping, list, id or integer of that simple kind."""
    kind = type(value)
    if kind is str:
        return value if _PLAIN.fullmatch(value) and value not in _NOT_PLAIN else None
    if kind is int:
        return str(value)
    if kind is list:
        items = []
        for v in value:
            item = _flow(v)
            if item is None:
                return None
            items.append(item)
        return "[" + ", ".join(items) + "]"
    if kind is dict:
        pairs = []
        for k, v in sorted(value.items()) if all(type(k) is str for k in value) else ():
            key, item = _flow(k), _flow(v)
            if key is None or item is None:
                return None
            pairs.append(f"{key}: {item}")
        return "{" + ", ".join(pairs) + "}" if len(pairs) == len(value) else None
    return None


def build_mail(*, sender: str, to: str, subject: str, mid: str, text: str, html: str,
               attachments: list[tuple[bytes, str, str, str]],
               related: Sequence[tuple[bytes, str, str, str, str]] = ()) -> bytes:
    """A report mail's bytes, written directly (:mod:`pbem.core.mailout`)."""
    return mailout.report_mail(sender=sender, to=to, subject=subject, mid=mid, text=text, html=html,
                               attachments=attachments, related=related)


@lru_cache(maxsize=16)
def _schema_bytes(path: Path) -> bytes:
    """A shipped schema file's text as UTF-8, read once per process (each seat's form names one)."""
    return path.read_text(encoding="utf-8").encode("utf-8")


@lru_cache(maxsize=16)
def _compact_json(path: Path) -> bytes:
    """A schema file's JSON without its indentation, one item a line (short lines: a mail
    carries it as it is)."""
    return json.dumps(json.loads(_schema_bytes(path)), indent=0, ensure_ascii=False).encode("utf-8") + b"\n"
