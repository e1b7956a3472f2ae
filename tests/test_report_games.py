"""Whole bot games played through the real core (sign, intake, resolve) and published, for the
report tests; plus the tests of publishing itself: files, idempotence, determinism, mails."""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from pbem.common.fair import Rng
from pbem.core import keys as keymod
from pbem.core.campaign import Campaign, Seat
from pbem.core.envelope import format_document, sign_data
from pbem.core.intake import intake
from pbem.core.phase import resolve
from pbem.core.signer import prepare
from pbem.demo import bot_orders_by_seat
from pbem.games import get_game

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def play_bot_game(root: Path, game_name: str, scenario: str, seed: int, *, langs: dict[str, str] | None = None,
                  options: dict[str, Any] | None = None, max_phases: int = 200, publish: bool = True) -> Campaign:
    """Create a campaign, then play it to the end with bot orders signed by each seat's key, run
    through intake and resolve as a GM's run would, publishing after each record."""
    from pbem.core.publish import publish_phase

    game = get_game(game_name)
    options = dict(options or {})
    seat_names = game.seats(scenario, options)
    private = {s: keymod.generate(s) for s in seat_names}
    seats = [Seat(s, f"{s}@example.org", private[s].public(), (langs or {}).get(s, "en")) for s in seat_names]
    camp = Campaign.create(
        root, campaign_id=f"{game_name}-{seed}", game=game, scenario=scenario, options=options, seats=seats,
        deadlines={"default": 86400}, grace=0, start=START, seed=hashlib.sha256(f"seed-{seed}".encode()).digest(),
    )
    if publish:
        publish_phase(camp, 0)
    rng = Rng(hashlib.sha256(f"bots-{seed}".encode()).digest())
    stores: dict[str, dict[str, Any]] = {s: {} for s in seat_names}
    now = START
    for _ in range(max_phases):
        _, state = camp.current()
        phase = game.current_phase(state)
        if phase is None:
            break
        now += timedelta(hours=1)
        number = camp.phase_number()
        docs = {seat: {"pbem": 1, "campaign": camp.id, "player": seat, "phase": phase.id, "seq": 1, "orders": orders}
                for seat, orders in bot_orders_by_seat(game, state, phase, rng).items()}
        paths = []
        for seat, doc in sorted(docs.items()):
            p = root.parent / f"{root.name}-orders" / f"{number:04d}-{seat}.yaml"
            p.parent.mkdir(parents=True, exist_ok=True)
            fresh = hashlib.sha256(f"entropy-{seed}-{number}-{seat}".encode()).digest()
            prepared, stores[seat] = prepare(doc, stores[seat], fresh)
            p.write_text(format_document(sign_data(prepared, private[seat])))
            paths.append(p)
        report = intake(camp, paths, now)
        assert report.refused == 0, [v.message for v in report.verdicts]
        outcome = resolve(camp, now)
        if publish:
            publish_phase(camp, outcome.record["index"])
    return camp


@pytest.fixture(scope="module")
def mini_game_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mini") / "camp"
    play_bot_game(root, "mini", "short", 1, langs={"south": "zh-TW"})
    return root


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_publish_writes_every_report_file(mini_game_dir: Path) -> None:
    camp = Campaign(mini_game_dir)
    keys = [p.name for p in sorted((mini_game_dir / "reports").iterdir()) if p.is_dir()]
    assert keys == ["0000-start", "0001-round-1", "0002-round-2", "0003-round-3"]
    for key in keys:
        folder = mini_game_dir / "reports" / key
        for name in ("public.html", "public.txt", "public.zh-TW.html", "public.zh-TW.txt",
                     "private/north.html", "private/north.txt", "private/south.html", "private/south.txt"):
            assert (folder / name).is_file(), f"{key}/{name} missing"
        # the mini game has no map
        assert not (folder / "map.svg").exists()
        # forms only while a phase follows
        assert (folder / "forms" / "north.yaml").is_file() == (key != "0003-round-3")
    assert camp.records()[-1]["kind"] == "end"


def test_publish_twice_writes_identical_bytes(mini_game_dir: Path) -> None:
    from pbem.core.publish import publish_all

    before = _tree(mini_game_dir / "reports") | {"outbox/" + k: v for k, v in _tree(mini_game_dir / "outbox").items()}
    publish_all(Campaign(mini_game_dir))
    after = _tree(mini_game_dir / "reports") | {"outbox/" + k: v for k, v in _tree(mini_game_dir / "outbox").items()}
    assert before == after


def test_same_game_gives_same_bytes_in_another_folder(tmp_path: Path, mini_game_dir: Path) -> None:
    other = tmp_path / "camp"
    play_bot_game(other, "mini", "short", 1, langs={"south": "zh-TW"})
    mine, theirs = _tree(mini_game_dir / "reports"), _tree(other / "reports")
    assert mine.keys() == theirs.keys()
    # the player keys differ between the two runs (fresh keys), so the entropy-free reports
    # must match except where a roster key is printed (none is) or a hash of what the keys
    # signed: the pins (record hashes) and the hashes of the order files used
    assert _masked(mini_game_dir, mine) == _masked(other, theirs)


def _masked(folder: Path, tree: dict[str, bytes]) -> dict[str, bytes]:
    camp = Campaign(folder)
    hashes = {hashlib.sha256(camp.record_path(r["index"]).read_bytes()).hexdigest() for r in camp.records()}
    hashes |= {u["sha256"] for r in camp.records() for u in r.get("orders", {}).values()}
    pattern = re.compile("|".join(sorted(hashes)).encode())
    return {k: pattern.sub(b"HASH", v) for k, v in tree.items()}


def test_public_report_tells_the_phase_in_order(mini_game_dir: Path) -> None:
    text = (mini_game_dir / "reports" / "0001-round-1" / "public.txt").read_text()
    assert "Phase round-1" in text
    assert text.index("What happened") < text.index("bid") < text.index("point")
    assert "Next phase: round-2." in text and "Deadline: 2026-12-02T13:00:00Z." in text
    assert "sha256" in text and "Key of this phase" in text
    last = (mini_game_dir / "reports" / "0003-round-3" / "public.txt").read_text()
    assert "The game is over" in last and "Winner:" in last


def test_chain_key_in_report_hashes_to_previous(mini_game_dir: Path) -> None:
    camp = Campaign(mini_game_dir)
    recs = camp.records()
    html = (mini_game_dir / "reports" / "0002-round-2" / "public.html").read_text()
    assert recs[2]["public_key"] in html and recs[1]["public_key"] in html
    assert hashlib.sha256(bytes.fromhex(recs[2]["public_key"])).hexdigest() == recs[1]["public_key"]


def test_private_report_opens_its_commitments(mini_game_dir: Path) -> None:
    from pbem.core.seal import opens

    camp = Campaign(mini_game_dir)
    rec = camp.records()[1]
    text = (mini_game_dir / "reports" / "0001-round-1" / "private" / "north.txt").read_text()
    state = camp.read_state(1)
    from pbem.core.campaign import derive_keys
    from pbem.core.seal import derive_salt

    salt = derive_salt(derive_keys(camp.seed())["secret"], "1|hand:N")
    assert salt in text and rec["commitments"]["hand:N"] in text
    assert opens(rec["commitments"]["hand:N"], "hand:N", state["hands"]["N"], salt)
    assert derive_salt(derive_keys(camp.seed())["secret"], "1|hand:S") not in text


def test_order_form_is_valid_yaml_with_schema_line_and_choices(mini_game_dir: Path) -> None:
    camp = Campaign(mini_game_dir)
    form = (mini_game_dir / "reports" / "0001-round-1" / "forms" / "north.yaml").read_text()
    first = form.splitlines()[0]
    assert first == "# yaml-language-server: $schema=bid.schema.json"
    data = yaml.safe_load(form)
    assert data["campaign"] == camp.id and data["player"] == "north" and data["phase"] == "round-2"
    hand = camp.read_state(1)["hands"]["N"]
    assert data["orders"]["N"] == {"bid": min(hand)}
    assert "Legal choices for N" in form
    assert f"    # bid: [{', '.join(str(c) for c in sorted(set(hand)))}]" in form
    south = (mini_game_dir / "reports" / "0001-round-1" / "forms" / "south.yaml").read_text()
    assert "合法" in south  # the south seat reads Chinese
    assert yaml.safe_load(south)["orders"]["S"]["bid"] in camp.read_state(1)["hands"]["S"]


def test_filled_form_signs_and_is_accepted(tmp_path: Path) -> None:
    """The pre-filled form of phase 1 is an order file intake accepts once signed."""
    root = tmp_path / "camp"
    camp = play_bot_game(root, "mini", "short", 3, max_phases=0)
    form = yaml.safe_load((root / "reports" / "0000-start" / "forms" / "north.yaml").read_text())
    key = keymod.generate("north")
    # the roster key differs; sign with a fresh key and check the form passes the envelope
    from pbem.core.envelope import parse_order_document

    doc = parse_order_document(format_document(sign_data(form, key)).encode(), "form.yaml")
    assert doc.phase == "round-1" and doc.orders == {"N": form["orders"]["N"]}
    assert camp.game().validate(camp.current()[1], "N", doc.orders["N"]) == []


def test_mail_per_seat_is_multipart_and_stable(mini_game_dir: Path) -> None:
    mails = sorted((mini_game_dir / "outbox").glob("report-0001-round-1-*.eml"))
    assert [m.name for m in mails] == ["report-0001-round-1-north.eml", "report-0001-round-1-south.eml"]
    msg = email.message_from_bytes(mails[0].read_bytes(), policy=email.policy.SMTP)
    assert msg["To"] == "north@example.org" and msg["Date"] is None
    assert msg["Message-ID"] == "<report.0001-round-1.north@mini-1.pbem>"
    assert msg.get_content_type() == "multipart/mixed"
    alt = next(p for p in msg.iter_parts() if p.get_content_type() == "multipart/alternative")
    kinds = [p.get_content_type() for p in alt.iter_parts()]
    assert kinds == ["text/plain", "text/html"]
    files = [p.get_filename() for p in msg.iter_attachments()]
    assert files == ["orders-0001-round-1-north.yaml"]
    assert "=_pbem_" in msg.get_boundary()
    south = email.message_from_bytes(mails[1].read_bytes(), policy=email.policy.SMTP)
    assert "你的" in next(p for p in south.walk() if p.get_content_type() == "text/plain").get_content()


def test_encrypted_private_part_opens_with_the_seat_key(tmp_path: Path) -> None:
    from pbem.core.privacy import unseal
    from pbem.core.publish import publish_phase

    root = tmp_path / "camp"
    game = get_game("mini")
    private = {s: keymod.generate(s) for s in ("north", "south")}
    camp = Campaign.create(
        root, campaign_id="sealed", game=game, scenario="short", options={"encrypt_private": ["north"]},
        seats=[Seat(s, f"{s}@example.org", private[s].public()) for s in ("north", "south")],
        deadlines={"default": 3600}, grace=0, start=START, seed=b"\x01" * 32,
    )
    publish_phase(camp, 0)
    north = (root / "outbox" / "report-0000-start-north.eml").read_bytes()
    south = (root / "outbox" / "report-0000-start-south.eml").read_bytes()
    hand = camp.read_state(0)["hands"]["N"]
    msg = email.message_from_bytes(north, policy=email.policy.SMTP)
    assert [p.get_filename() for p in msg.iter_attachments()] == ["private-north.html"]
    plain = unseal(north.decode(), private["north"]).decode()
    assert "Your position (north)" in plain and "hand" in plain
    assert f"bid: {min(hand)}" in plain  # the order form travels inside the sealed part
    # the clear parts of north's mail hold only the public report
    clear = "".join(p.get_content() for p in msg.walk() if p.get_content_type() in ("text/plain", "text/html") and not p.get_filename())
    assert "Your position" not in clear
    assert b"private-south.html" not in south and b"Your position (south)" in south.replace(b"=\r\n", b"")
    publish_phase(camp, 0)
    assert (root / "outbox" / "report-0000-start-north.eml").read_bytes() == north


def test_map_highlights_follow_the_public_events() -> None:
    from pbem.render.report import map_highlights

    events = [
        {"type": "move", "path": ["a", "b", "c"]},
        {"type": "move", "path": ["d"]},
        {"type": "battle", "attacker": {"city": "c"}, "defender": {"city": "e"}},
        {"type": "battle", "city": "e"},
        {"type": "supply", "city": "f"},
    ]
    assert map_highlights(events) == {"paths": [["a", "b", "c"]], "battles": ["e"]}


def test_every_maria_event_type_has_its_own_template(tmp_path: Path) -> None:
    """A Maria event never falls back to the generic line: each type a whole bot game emits has
    an HTML and a text template (a new event type is one addition under templates/maria/events)."""
    import json

    from pbem.data import templates_dir

    camp = play_bot_game(tmp_path / "camp", "maria", "intro", 105, publish=False)
    types = {e["type"] for p in camp.states_dir.glob("*.events.json") for e in json.loads(p.read_bytes())}
    assert {"move", "supply", "battle", "conquest", "recruit"} <= types
    missing = sorted(
        f"{t}.{ext}" for t in types for ext in ("html", "txt")
        if not (templates_dir() / "maria" / "events" / f"{t}.{ext}").is_file() and not (templates_dir() / "base" / "events" / f"{t}.{ext}").is_file()
    )
    assert not missing, f"event types without a template: {missing}"
