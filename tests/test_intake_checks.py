"""Intake, check by check (DESIGN: the flow of one phase, intake; README: what a player is
promised when a file is accepted or refused). Each test hands ``pbem.core.intake.intake`` real
signed files and mails, as a campaign's inbox holds them, and asserts what the player or the GM
is promised: which refusal, in which language, which file is written and what stays untouched.

The campaigns are built once (a mini campaign waiting for round 1, one waiting for round 2 with
both seats' entropy commitments outstanding, one whose game is over, one whose deal waits for
entropy) and copied for each test, and intake runs in the test's own process, so each check
takes milliseconds: the mutation runner (``bench/mutate.py``) judges intake with these first.

The game is the mini test game with two deliberate bugs, as a buggy game would have them: its
check raises on an order that carries ``crash`` (a long message), and a ``stop`` order makes it
raise ``KeyboardInterrupt``, as the GM's Ctrl-C or a kill does in the middle of an intake run.
"""

from __future__ import annotations

import email.policy
import json
import re
import shutil
from dataclasses import dataclass
from datetime import timedelta
from email import message_from_bytes
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import NOW, make_keys, run_cli
from minigame import MiniGame

from pbem.common.canonical import sha256_hex
from pbem.core import intake as intake_module
from pbem.core.campaign import Campaign, parse_time
from pbem.core.envelope import format_document, parse_order_document, sign_data
from pbem.core.intake import IntakeReport, intake, internal_refusals, screen
from pbem.core.keys import load_private_key
from pbem.core.shape import ShapeError
from pbem.games import register
from pbem.games.base import OrderProblem

T0 = parse_time(NOW)
DEADLINE = T0 + timedelta(hours=48)  # the stage deadline the campaigns are made with
CRASH = "the check of this order fell over " * 10  # 340 characters: the refusal keeps 200


class CheckMini(MiniGame):
    """The mini game whose check raises on ``crash``, is interrupted by ``stop`` and reports a
    problem at the path ``ask`` names (relative to the power's orders unless it starts with
    ``orders.``)."""

    name = "checkmini"
    schemas = Path(__file__).parent / "checkmini"  # each power's orders are a mapping

    def validate(self, state: dict[str, Any], power: str, orders: Any) -> list[OrderProblem]:
        if isinstance(orders, dict) and orders.get("crash"):
            raise ValueError(CRASH)
        if isinstance(orders, dict) and orders.get("stop"):
            raise KeyboardInterrupt
        if isinstance(orders, dict) and "ask" in orders:  # a problem at a path of the game's choice
            return [OrderProblem(orders["ask"], "not now")]
        return super().validate(state, power, orders)


register("checkmini", CheckMini())


@pytest.fixture(autouse=True)
def _registered() -> None:
    register("checkmini", CheckMini())


def reveal(seat: str, n: int = 1) -> str:
    """A fixed entropy value of ``seat`` (64 hex digits), the ``n``-th it commits to."""
    return sha256_hex(f"{seat} {n}".encode())


def commit(seat: str, n: int = 1) -> str:
    return sha256_hex(bytes.fromhex(reveal(seat, n)))


@dataclass
class World:
    root: Path
    keys: dict[str, Path]
    hands: dict[str, list[int]]  # round-1 hands
    round1: Path  # waiting for round-1; north writes English, south Traditional Chinese

    def players(self) -> list[str]:
        return [a for seat in ("north", "south")
                for a in ("--player", f"{seat}={seat}@example.org:{self.keys[seat].with_suffix('.pub')}")]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("intake-checks")
    keys = make_keys(root / "keys", ("north", "south", "mallory"))
    w = World(root, keys, {}, root / "round1")
    run_cli("new", str(w.round1), "--deal-now", "--game", "checkmini", "--scenario", "short", "--id", "mini-1",
            "--lang", "south=zh-TW", *w.players(), "--deadline", "stage=48h", "--now", NOW)
    w.hands = json.loads((w.round1 / "states" / "000000.json").read_bytes())["hands"]
    return w


@pytest.fixture(scope="module")
def round2(world: World) -> Path:
    """Round-1 resolved from both seats' files: their commitments wait to be revealed."""
    camp = world.root / "round2"
    shutil.copytree(world.round1, camp)
    files = [sign(world.root, world.keys, "north", "n-r1", orders={"N": {"bid": world.hands["N"][0]}}),
             sign(world.root, world.keys, "south", "s-r1", orders={"S": {"bid": world.hands["S"][0]}})]
    run(camp, *files)
    assert "resolved round-1" in run_cli("resolve", str(camp), "--now", NOW).output
    return camp


@pytest.fixture(scope="module")
def over(world: World) -> Path:
    """Every round resolved: the game is over."""
    camp = world.root / "over"
    shutil.copytree(world.round1, camp)
    for _ in range(3):
        run_cli("resolve", str(camp), "--force", "--now", NOW)
    return camp


@pytest.fixture(scope="module")
def first(world: World) -> Path:
    """The deal waits for entropy: every order file must carry the nonce."""
    camp = world.root / "first"
    run_cli("new", str(camp), "--game", "mini", "--scenario", "short", "--id", "mini-1", "--lang", "south=zh-TW",
            *world.players(), "--now", NOW)
    return camp


@pytest.fixture(scope="module")
def graced(world: World) -> Path:
    """Round 1 with two hours' grace after the deadline."""
    camp = world.root / "graced"
    run_cli("new", str(camp), "--deal-now", "--game", "checkmini", "--scenario", "short", "--id", "mini-1", *world.players(),
            "--deadline", "stage=48h", "--grace", "2h", "--now", NOW)
    return camp


def camp_copy(template: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "camp"
    shutil.copytree(template, dest)
    return dest


def sign(folder: Path, keys: dict[str, Path], seat: str, name: str, *, key: str | None = None, **fields: Any) -> Path:
    """A signed order file ``folder/name.yaml`` of ``seat`` for round-1 of mini-1, seq 1, with
    north's first commitment; ``fields`` change or (given None) leave out fields."""
    data: dict[str, Any] = {"pbem": 1, "campaign": "mini-1", "player": seat, "phase": "round-1", "seq": 1,
                            "entropy_commit": commit(seat)}
    data.update(fields)
    data = {k: v for k, v in data.items() if v is not None}
    if "request" in data:
        data.pop("orders", None)
    elif "orders" not in data:
        data["orders"] = {}
    out = folder / f"{name}.yaml"
    out.write_text(format_document(sign_data(data, load_private_key(keys[key or seat]))), encoding="utf-8")
    return out


def mail(folder: Path, name: str, sender: str, *files: Path) -> Path:
    """A mail ``folder/name.eml`` from ``sender`` with ``files`` attached."""
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["From"], msg["To"], msg["Subject"] = sender, "gm@example.org", f"orders {name}"
    msg["Message-ID"] = f"<{name}@example.org>"
    msg.set_content("my orders")
    for f in files:
        msg.add_attachment(f.read_bytes(), maintype="text", subtype="yaml", filename=f.name)
    out = folder / f"{name}.eml"
    out.write_bytes(msg.as_bytes())
    return out


def run(camp: Path, *sources: Path, now: str = NOW) -> IntakeReport:
    with Campaign(camp).locked() as c:
        return intake(c, list(sources), parse_time(now))


def texts(camp: Path, kind: str) -> list[str]:
    """The plain text (headers and decoded body) of the queued mails ``outbox/<kind>-*.eml``."""
    out = []
    for p in sorted((camp / "outbox").glob(f"{kind}-*.eml")):
        msg = message_from_bytes(p.read_bytes(), policy=email.policy.default)
        body = "".join(part.get_content() for part in msg.walk() if part.get_content_type() == "text/plain")
        out.append(f"To: {msg['To']}\nSubject: {msg['Subject']}\n\n{body}".replace("\r\n", "\n"))
    return out


def stored(camp: Path) -> dict[str, bytes]:
    """The files under orders/, by name."""
    return {p.name: p.read_bytes() for p in sorted((camp / "orders").rglob("*")) if p.is_file()}


def refusals(camp: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_bytes()) for p in sorted((camp / "refused").glob("*.json"))]


# -- accepted files: what is stored, what the receipt says ----------------------------------------


def test_an_accepted_file_is_stored_verbatim_with_its_verdict_and_a_receipt(world: World, tmp_path: Path) -> None:
    """DESIGN intake: accepted documents are stored verbatim with their verdict; the receipt
    echoes the orders as understood, their hash, the archive head they were accepted on."""
    camp = camp_copy(world.round1, tmp_path)
    bid = world.hands["N"][0]
    f = sign(tmp_path, world.keys, "north", "n1", orders={"N": {"note": "Für Maria Theresia", "bid": bid}})
    report = run(camp, mail(tmp_path, "m1", "north@example.org", f))
    assert [v.line() for v in report.verdicts] == ["accepted: m1.eml (n1.yaml): north seq 1"]
    assert (report.accepted, report.refused, report.internal) == (1, 0, [])
    folder = camp / "orders" / "0001-round-1"
    assert (folder / "north.000001.yaml").read_bytes() == f.read_bytes()
    verdict = json.loads((folder / "north.000001.yaml.verdict.json").read_bytes())
    doc = parse_order_document(f.read_bytes(), "n1.yaml")
    assert verdict == {"seat": "north", "seq": 1, "file": "north.000001.yaml", "source": "m1.eml (n1.yaml)",
                       "sender": "north@example.org", "received_at": NOW, "raw_sha256": sha256_hex(f.read_bytes()),
                       "body_sha256": doc.body_hash, "problems": [], "archive_head": Campaign(camp).pin()}
    (receipt,) = texts(camp, "receipt")
    assert "To: north@example.org" in receipt and "orders accepted: round-1 seq 1" in receipt
    assert doc.body_hash in receipt and sha256_hex(f.read_bytes()) in receipt and Campaign(camp).pin() in receipt
    assert f"The orders as understood:\n\nN:\n  bid: {bid}\n  note: Für Maria Theresia\n" in receipt
    assert not texts(camp, "refused") and not refusals(camp)


def test_the_receipt_lists_what_will_be_void_and_a_rerun_changes_nothing(world: World, tmp_path: Path) -> None:
    """DESIGN intake: the receipt names every order the resolver will void; the same file again
    is 'already accepted' with the same problems, and its receipt is the same mail."""
    camp = camp_copy(world.round1, tmp_path)
    f = sign(tmp_path, world.keys, "north", "n1", orders={"N": {"bid": 99}, "S": {}})
    first = run(camp, f)
    assert first.verdicts[0].line() == "accepted: n1.yaml: north seq 1 (2 problem(s) reported to the player)"
    problems = ["line 10: orders.N.bid: 99 is not a card in your hand",
                "orders.S: you do not command S now; these orders are ignored"]
    assert first.verdicts[0].problems == problems
    (receipt,) = texts(camp, "receipt")
    assert "2 will be VOID" in receipt and "99 is not a card in your hand" in receipt and "you do not command S" in receipt
    files, mails = stored(camp), sorted((camp / "outbox").iterdir())
    outbox = {p.name: p.read_bytes() for p in mails}
    for p in mails:  # as if sent: the rerun queues the receipt again, the same bytes
        p.unlink()
    again = run(camp, f)
    assert again.verdicts[0].line() == "already accepted: n1.yaml: north seq 1 (2 problem(s) reported to the player)"
    assert again.verdicts[0].duplicate and again.verdicts[0].problems == problems
    assert (again.accepted, again.refused) == (0, 0)
    assert stored(camp) == files
    assert {p.name: p.read_bytes() for p in (camp / "outbox").iterdir()} == outbox


def test_a_verdict_without_its_problems_counts_as_none(world: World, tmp_path: Path) -> None:
    """A stored verdict that lists no problems (an older pbem's, or one edited by hand) gives a
    duplicate none: the receipt sent again says the orders are accepted."""
    camp = camp_copy(world.round1, tmp_path)
    f = sign(tmp_path, world.keys, "north", "n1", orders={"N": {"bid": 99}})
    assert run(camp, f).verdicts[0].problems
    vpath = camp / "orders" / "0001-round-1" / "north.000001.yaml.verdict.json"
    vpath.write_text(json.dumps({k: v for k, v in json.loads(vpath.read_bytes()).items() if k != "problems"}))
    for p in (camp / "outbox").iterdir():
        p.unlink()
    assert run(camp, f).verdicts[0].line() == "already accepted: n1.yaml: north seq 1"
    (receipt,) = texts(camp, "receipt")
    assert "Your orders for round-1 (seq 1) are accepted." in receipt and "VOID" not in receipt


def test_a_problem_is_placed_at_its_line_or_named_by_its_path(world: World, tmp_path: Path) -> None:
    """DESIGN intake: the receipt names every order the resolver will void, at the line of the
    file that holds it (or its nearest enclosing field); a path relative to the power's orders
    is completed."""
    camp = camp_copy(world.round1, tmp_path)
    for seq, ask, problem in [(1, "", "line 9: orders.N: not now"), (2, "when", "line 9: orders.N.when: not now"),
                              (3, "orders.N.ask", "line 10: orders.N.ask: not now")]:
        f = sign(tmp_path, world.keys, "north", f"n{seq}", seq=seq, orders={"N": {"ask": ask}})
        (v,) = run(camp, f).verdicts
        assert v.problems == [problem]


def test_screen_checks_the_shape_then_the_games_checks(world: World, tmp_path: Path) -> None:
    """``pbem check`` and the order page screen files as intake does."""
    camp = Campaign(camp_copy(world.round1, tmp_path))
    game = camp.game()
    _, state = camp.current()
    phase = game.current_phase(state)
    f = sign(tmp_path, world.keys, "north", "n1", orders={"N": {"bid": 99}})
    assert screen(game, state, phase, parse_order_document(f.read_bytes(), "n1.yaml")) == [
        "line 10: orders.N.bid: 99 is not a card in your hand"]
    g = sign(tmp_path, world.keys, "north", "n2", orders={"N": {"bid": world.hands["N"][0]}})
    assert screen(game, state, phase, parse_order_document(g.read_bytes(), "n2.yaml")) == []
    h = sign(tmp_path, world.keys, "north", "n3", orders={"N": "pass"})
    with pytest.raises(ShapeError, match="must be a mapping"):
        screen(game, state, phase, parse_order_document(h.read_bytes(), "n3.yaml"))


def test_a_higher_seq_replaces_and_an_equal_or_lower_one_is_a_replay(world: World, tmp_path: Path) -> None:
    """DESIGN intake: higher seq replaces lower; equal or lower is a replay, also within one run."""
    camp = camp_copy(world.round1, tmp_path)
    n2 = sign(tmp_path, world.keys, "north", "n2", seq=2, orders={"N": {"bid": world.hands["N"][1]}})
    n1 = sign(tmp_path, world.keys, "north", "n1", seq=1, orders={"N": {"bid": world.hands["N"][0]}})
    # another file of seq 2 (its own commitment: a hand may hold the same card twice, and the
    # same orders signed again would be the same file, "already accepted")
    n2b = sign(tmp_path, world.keys, "north", "n2b", seq=2, orders={"N": {"bid": world.hands["N"][2]}}, entropy_commit="ab" * 32)
    n3 = sign(tmp_path, world.keys, "north", "n3", seq=3, orders={"N": {"bid": world.hands["N"][2]}})
    report = run(camp, mail(tmp_path, "a", "north@example.org", n2), mail(tmp_path, "b", "north@example.org", n1),
                 mail(tmp_path, "c", "north@example.org", n2b))
    assert [v.accepted for v in report.verdicts] == [True, False, False]
    assert "seq 1 is not above seq 2, which was already accepted for round-1; this looks like a replay. " \
           "To replace your orders, send them with seq 3 or more" in report.verdicts[1].message
    assert report.verdicts[1].message.startswith("b.eml (n1.yaml), line 5: seq: ")
    assert "seq 2 is not above seq 2" in report.verdicts[2].message
    assert sorted(stored(camp)) == ["north.000002.yaml", "north.000002.yaml.verdict.json"]
    refused = texts(camp, "refused")
    assert len(refused) == 2 and all("To: north@example.org" in t and "this looks like a replay" in t for t in refused)
    assert (report.accepted, report.refused) == (1, 2)
    assert run(camp, n3).verdicts[0].line() == "accepted: n3.yaml: north seq 3"
    assert sorted(stored(camp))[-2:] == ["north.000003.yaml", "north.000003.yaml.verdict.json"]


# -- refusals before a file is known to be the player's: a fixed text, or no reply -----------------


def test_a_file_of_no_seat_or_another_campaign_gets_a_fixed_text_that_quotes_nothing(world: World, tmp_path: Path) -> None:
    """Module promise: for anything not verified against the sender's own roster key one
    fixed-text reply per mail that quotes nothing from the mail; the refusal is logged in
    refused/ with its reason; nothing already accepted changes."""
    camp = camp_copy(world.round1, tmp_path)
    other = sign(tmp_path, world.keys, "north", "other", campaign="maria-7")
    stranger = sign(tmp_path, world.keys, "mallory", "stranger", key="north", orders={"N": {"bid": 1}})
    report = run(camp, mail(tmp_path, "m1", "north@example.org", other), mail(tmp_path, "m2", "north@example.org", stranger))
    assert [v.line() for v in report.verdicts] == [
        "refused: m1.eml (other.yaml), line 2: campaign: this file is for campaign 'maria-7', not 'mini-1'",
        "refused: m2.eml (stranger.yaml), line 3: player: 'mallory' is not a player of this campaign (players: north, south)"]
    assert not any(v.verified for v in report.verdicts) and all(v.reply for v in report.verdicts)
    replies = texts(camp, "refused")
    assert len(replies) == 2 and all("To: north@example.org" in t and "is not for your seat in this campaign" in t for t in replies)
    assert not any("maria-7" in t or "mallory" in t for t in replies)
    assert sorted(r["reason"] for r in refusals(camp)) == sorted(v.message for v in report.verdicts)
    assert {r["sender"] for r in refusals(camp)} == {"north@example.org"}
    # one record per refused file, named by the file (a rerun writes the same one again)
    assert all(re.fullmatch(r"[0-9a-f]{20}\.json", p.name) for p in (camp / "refused").iterdir())
    run(camp, mail(tmp_path, "m1", "north@example.org", other))
    assert len(refusals(camp)) == 2
    assert not stored(camp)


def test_a_file_signed_by_another_key_than_the_senders_gets_no_reply(world: World, tmp_path: Path) -> None:
    """Module promise: a file signed by a key that is not the roster key of the address it came
    from gets no answer at all (the From may be forged); one signed by the sender's own key
    but for another seat gets the fixed text."""
    camp = camp_copy(world.round1, tmp_path)
    forged = sign(tmp_path, world.keys, "north", "forged", key="mallory")
    by_south = sign(tmp_path, world.keys, "north", "by-south", key="south")
    report = run(camp, mail(tmp_path, "m1", "North <NORTH@Example.org>", forged), mail(tmp_path, "m2", "south@example.org", by_south),
                 mail(tmp_path, "m3", "mallory@example.net", forged))
    assert all("signed with a key that is not the roster key of 'north'" in v.message for v in report.verdicts)
    assert [v.reply for v in report.verdicts] == [False, True, True]
    (reply,) = texts(camp, "refused")
    assert "To: south@example.org" in reply  # south's replies are in Traditional Chinese
    assert "其中的命令檔不是用你的金鑰簽署" in reply and "north" not in reply
    assert len(refusals(camp)) == 3


def test_a_verified_file_from_another_address_gets_only_the_fixed_text(world: World, tmp_path: Path) -> None:
    """Module promise: a full answer only for a file that verifies against the sender's own
    roster key; north's own file forwarded by south's address is refused to south in a fixed text."""
    camp = camp_copy(world.round1, tmp_path)
    late = sign(tmp_path, world.keys, "north", "late", phase="round-9")
    report = run(camp, mail(tmp_path, "m1", "south@example.org", late), late)
    assert [v.verified for v in report.verdicts] == [False, False]
    (reply,) = texts(camp, "refused")
    assert "To: south@example.org" in reply and "round-9" not in reply


def test_a_verified_refusal_says_why_in_the_seats_language(world: World, tmp_path: Path) -> None:
    """DESIGN intake: an error reply names the player's mail, the line and what to fix, in the
    seat's language."""
    camp = camp_copy(world.round1, tmp_path)
    n = sign(tmp_path, world.keys, "north", "n", phase="round-9")
    s = sign(tmp_path, world.keys, "south", "s", phase="round-9")
    report = run(camp, mail(tmp_path, "m1", "north@example.org", n), mail(tmp_path, "m2", "South <south@example.org>", s))
    assert all(v.verified and not v.accepted for v in report.verdicts)
    assert report.verdicts[0].message == \
        "m1.eml (n.yaml), line 4: phase: phase 'round-9' is not open; the current phase is 'round-1'"
    to_south, to_north = sorted(texts(camp, "refused"), key=lambda t: "To: north" in t)
    assert "Subject: [mini-1] orders refused: round-1" in to_north
    assert "phase 'round-9' is not open; the current phase is 'round-1'" in to_north
    assert "階段 round-9 尚未開放；目前的階段是 round-1" in to_south and "To: south@example.org" in to_south


def test_a_file_for_another_campaign_of_the_same_name_is_refused_by_its_nonce(world: World, tmp_path: Path) -> None:
    """L2: a file carrying another campaign's nonce does not count here, even with this id."""
    camp = camp_copy(world.round1, tmp_path)
    ours = Campaign(camp).nonce
    assert ours
    wrong = sign(tmp_path, world.keys, "north", "wrong", nonce="0" * 32)
    right = sign(tmp_path, world.keys, "north", "right", nonce=ours, seq=2)
    long = sign(tmp_path, world.keys, "north", "long", nonce="f" * 50, seq=3)
    report = run(camp, mail(tmp_path, "m1", "north@example.org", wrong), right, long)
    assert report.verdicts[0].message == (
        f"m1.eml (wrong.yaml), line 3: nonce: this file is for another campaign named 'mini-1' (its nonce is {'0' * 32}, "
        f"this campaign's is {ours}); use the order form or order page of this campaign's latest report")
    assert report.verdicts[1].line() == "accepted: right.yaml: north seq 2"
    assert f"(its nonce is {'f' * 40}, this campaign's is {ours})" in report.verdicts[2].message  # quoted, cut at 40
    (reply,) = texts(camp, "refused")
    assert "is not for your seat in this campaign" in reply and "0" * 32 not in reply


def test_without_its_nonce_a_file_is_refused_where_the_campaign_requires_it(world: World, first: Path, tmp_path: Path) -> None:
    """L2: in a campaign whose deal waits for entropy every order file carries the nonce; the
    refusal says which line to add, in the seat's language. A request needs none."""
    camp = camp_copy(first, tmp_path)
    nonce = Campaign(camp).nonce
    bare = sign(tmp_path, world.keys, "south", "bare", phase="deal/commit", orders={"south": {}})
    ask = sign(tmp_path, world.keys, "north", "ask", phase="deal/commit", request={"kind": "pause"})
    report = run(camp, mail(tmp_path, "m1", "south@example.org", bare), ask)
    assert report.verdicts[0].message == (
        "m1.eml (bare.yaml), line 2: nonce: the field 'nonce' is missing: every order file of this campaign carries its nonce. "
        f"Add the line 'nonce: {nonce}' below 'campaign:' (your order form and the start report give it), then sign the file again")
    (reply,) = texts(camp, "refused")
    assert "缺少欄位 'nonce'" in reply and f"'nonce: {nonce}'" in reply
    assert report.verdicts[1].line() == "accepted: ask.yaml: north seq 1"
    good = sign(tmp_path, world.keys, "south", "good", phase="deal/commit", orders={"south": {}}, nonce=nonce)
    assert run(camp, good).verdicts[0].line() == "accepted: good.yaml: south seq 1"


def test_refusals_of_the_opening_the_entropy_commitment_and_the_shape(world: World, tmp_path: Path) -> None:
    """DESIGN intake checks the envelope's and the orders' shape (a request's kind too), the
    opening a file was signed for (rollback) and the player's entropy commitment, each refusal
    naming the line and what to do; a mail's refusals come in one reply."""
    camp = camp_copy(world.round1, tmp_path)
    cases = {
        "opened": (dict(opened=3), "line 5: opened: this file was written for phase 'round-1' as reopened by record 3, "
                   "but the phase now waits as opened by record 0; sign the order form of the latest report or notice"),
        "commit": (dict(entropy_commit=None), "entropy_commit: 'entropy_commit' is missing; sign the file with 'pbem sign', which fills it"),
        "shape": (dict(orders={"N": "pass"}), "line 9: orders.N: must be a mapping"),
        "kind": (dict(request={"kind": "stop"}), "line 9: request.kind: must be one of: pause, resume, resend"),
    }
    files = [sign(tmp_path, world.keys, "north", name, **fields) for name, (fields, _) in cases.items()]
    report = run(camp, mail(tmp_path, "m1", "north@example.org", *files))
    for v, (name, (_, message)) in zip(report.verdicts, cases.items(), strict=True):
        assert not v.accepted and v.message.startswith(f"m1.eml ({name}.yaml)") and message in v.message, v.message
    assert not stored(camp)
    (reply,) = texts(camp, "refused")  # one mail, one reply naming each reason
    assert "record 3" in reply and "'entropy_commit' is missing" in reply and "must be one of: pause, resume, resend" in reply


def test_a_resolved_phase_and_a_finished_game_take_no_orders(world: World, round2: Path, over: Path, tmp_path: Path) -> None:
    """DESIGN intake: files for a phase already resolved are refused saying which phase waits;
    once the game is over nothing is taken."""
    camp = camp_copy(round2, tmp_path)
    old = sign(tmp_path, world.keys, "north", "old", seq=5)
    assert run(camp, old).verdicts[0].message == \
        "old.yaml, line 4: phase: phase 'round-1' is already resolved; the current phase is 'round-2'"
    ended = camp_copy(over, tmp_path / "o")
    late = sign(tmp_path, world.keys, "south", "late", phase="round-4")
    report = run(ended, mail(tmp_path, "m1", "south@example.org", late))
    assert report.verdicts[0].message == "m1.eml (late.yaml): phase: the game is over; no more orders are taken"
    (reply,) = texts(ended, "refused")
    assert "遊戲已結束；不再受理命令" in reply and "Subject: [mini-1] " in reply and "round-4" not in reply.split("\n\n")[0]


# -- deadlines ------------------------------------------------------------------------------------


def test_the_deadline_counts_the_arrival_and_the_grace(world: World, graced: Path, tmp_path: Path) -> None:
    """DESIGN intake: a file arriving after the deadline (plus the campaign's grace) is refused;
    a Maildir mail's arrival is its delivery time, whenever intake runs."""
    camp = camp_copy(world.round1, tmp_path)
    f = sign(tmp_path, world.keys, "north", "n1", orders={"N": {"bid": world.hands["N"][0]}})
    assert run(camp, f, now="2026-12-03T12:00:00Z").verdicts[0].accepted  # at the deadline itself
    g = sign(tmp_path, world.keys, "north", "n2", seq=2, orders={"N": {"bid": world.hands["N"][0]}})
    late = run(camp, g, now="2026-12-03T12:00:01Z")
    assert late.verdicts[0].message == \
        "n2.yaml: phase: the orders arrived at 2026-12-03T12:00:01Z, after the deadline 2026-12-03T12:00:00Z of phase 'round-1'"
    delivered = int(parse_time("2026-12-03T11:00:00Z").timestamp())
    shutil.copy(mail(tmp_path, "m3", "north@example.org", g), camp / "inbox" / "new" / f"{delivered}.M1P1.host")
    report = run(camp, camp / "inbox", now="2026-12-05T00:00:00Z")
    assert report.verdicts[0].line() == f"accepted: inbox/new/{delivered}.M1P1.host (n2.yaml): north seq 2"
    verdict = json.loads((camp / "orders" / "0001-round-1" / "north.000002.yaml.verdict.json").read_bytes())
    assert verdict["received_at"] == "2026-12-03T11:00:00Z"
    graced = camp_copy(graced, tmp_path / "g")
    assert run(graced, f, now="2026-12-03T14:00:00Z").verdicts[0].accepted
    assert "after the deadline 2026-12-03T14:00:00Z" in run(graced, g, now="2026-12-03T14:00:01Z").verdicts[0].message


# -- the safety net: a file whose check raises, a run that is interrupted --------------------------------


def test_a_file_whose_check_raises_is_refused_alone_and_the_gm_is_told(world: World, tmp_path: Path) -> None:
    """DESIGN safety net: a file whose checking raises is refused as an internal error (the
    player gets a fixed text, the GM the error in refused/ and in pbem status); the other files
    of the same mail are judged as usual."""
    camp = camp_copy(world.round1, tmp_path)
    assert internal_refusals(Campaign(camp)) == []
    bad = sign(tmp_path, world.keys, "north", "bad", orders={"N": {"crash": True}})
    good = sign(tmp_path, world.keys, "south", "good", orders={"S": {"bid": world.hands["S"][0]}})
    report = run(camp, mail(tmp_path, "m1", "north@example.org", bad, good))
    assert [v.accepted for v in report.verdicts] == [False, True] and report.internal == [report.verdicts[0]]
    (v,) = report.internal
    detail = f"ValueError: {CRASH}"[:200]
    assert v.message.startswith(f"m1.eml (bad.yaml): the file could not be checked (an internal error); the GM has been told "
                                f"[internal error {detail} (test_intake_checks.py line ")
    assert v.message.endswith(")]") and v.message.split(" line ")[-1][:-2].isdigit()
    (record,) = [r for r in refusals(camp) if r.get("internal")]
    assert record == {"source": "m1.eml (bad.yaml)", "sender": "north@example.org", "reason": v.message, "internal": True}
    (name,) = [p.name for p in (camp / "refused").glob("*.json")]
    assert re.fullmatch(r"[0-9a-f]{20}\.json", name)
    (camp / "refused" / "0-unreadable.json").write_text("{")
    (camp / "refused" / "1-list.json").write_text("[1]")
    (camp / "refused" / "2-player.json").write_text(json.dumps({"reason": "a player's mistake"}))
    assert internal_refusals(Campaign(camp)) == [f"refused/{name}: {v.message}"]
    (reply,) = texts(camp, "refused")
    assert "an order file in it could not be checked (an internal error of pbem)" in reply and "ValueError" not in reply
    assert sorted(stored(camp)) == ["south.000001.yaml", "south.000001.yaml.verdict.json"]


def test_a_mail_without_a_readable_file_gets_the_fixed_text_naming_the_line(world: World, tmp_path: Path) -> None:
    """Module promise: one fixed-text reply per mail that quotes nothing; it names the line of
    a file that cannot be read, and says when the mail holds no file at all."""
    camp = camp_copy(world.round1, tmp_path)
    broken = tmp_path / "broken.yaml"
    broken.write_text("pbem: 1\ncampaign: mini-1\nplayer: [north\n")
    empty = mail(tmp_path, "m1", "north@example.org")
    report = run(camp, empty, mail(tmp_path, "m2", "north@example.org", broken))
    assert report.verdicts[0].message == "m1.eml: no order file found in the mail; attach the signed .yaml file made by 'pbem sign'"
    assert report.verdicts[1].message.startswith("m2.eml (broken.yaml), line 4: not valid YAML")
    replies = texts(camp, "refused")
    assert any("it holds no order file" in t for t in replies)
    assert any("an order file in it cannot be read; look at line 4 of the file" in t for t in replies)


def _maildir_mail(inbox: Path, n: int, sender: str, *files: Path) -> None:
    shutil.copy(mail(inbox.parent, f"mail-{n}", sender, *files), inbox / "new" / f"{1796126400 + n}.M{n}P1.host")


def test_an_interrupted_run_leaves_every_mail_of_its_group_to_be_read_again(world: World, tmp_path: Path) -> None:
    """Group commit: the files of a group of mails reach the disk together and only then are
    those mails moved to cur/; a run stopped in the middle (Ctrl-C, a kill) leaves them in new/
    and writes nothing, and the next run takes them as if the first had not happened."""
    camp = camp_copy(world.round1, tmp_path)
    inbox = camp / "inbox"
    _maildir_mail(inbox, 1, "north@example.org", sign(tmp_path, world.keys, "north", "n1", orders={"N": {"bid": world.hands["N"][0]}}))
    _maildir_mail(inbox, 2, "stranger@example.net")
    stop = sign(tmp_path, world.keys, "south", "stop", orders={"S": {"stop": True}})
    _maildir_mail(inbox, 3, "south@example.org", stop)
    before = {p.name for p in (inbox / "new").iterdir()}
    with pytest.raises(KeyboardInterrupt):
        run(camp, inbox)
    assert {p.name for p in (inbox / "new").iterdir()} == before and not list((inbox / "cur").iterdir())
    assert not stored(camp) and not refusals(camp) and not list((camp / "outbox").iterdir())
    (inbox / "new" / f"{1796126400 + 3}.M3P1.host").unlink()
    report = run(camp, inbox)
    assert [v.accepted for v in report.verdicts] == [True, False]
    assert not list((inbox / "new").iterdir()) and len(list((inbox / "cur").iterdir())) == 2


def test_the_mails_of_a_full_group_are_committed_before_the_next_is_read(world: World, tmp_path: Path) -> None:
    """Group commit: every 500 mails (GROUP_MAILS) the group's files reach the disk and its mails
    move to cur/; a run interrupted at mail 502 keeps the first 500 and reads 501 and 502 again."""
    assert intake_module.GROUP_MAILS == 500
    camp = camp_copy(world.round1, tmp_path)
    inbox = camp / "inbox"
    junk = mail(tmp_path, "junk", "stranger@example.net")  # no file in it, from no seat: logged, no reply
    for n in range(1, 501):
        shutil.copy(junk, inbox / "new" / f"{1796126400 + n}.M{n}P1.host")
    _maildir_mail(inbox, 501, "north@example.org", sign(tmp_path, world.keys, "north", "n1", orders={"N": {"bid": world.hands["N"][0]}}))
    _maildir_mail(inbox, 502, "south@example.org", sign(tmp_path, world.keys, "south", "stop", orders={"S": {"stop": True}}))
    with pytest.raises(KeyboardInterrupt):
        run(camp, inbox)
    assert sorted(p.name for p in (inbox / "new").iterdir()) == [f"{1796126400 + n}.M{n}P1.host" for n in (501, 502)]
    assert len(list((inbox / "cur").iterdir())) == 500 and len(refusals(camp)) == 500
    assert not stored(camp)


# -- limits -----------------------------------------------------------------------------------------


def _file_of_size(folder: Path, world: World, name: str, size: int, seq: int) -> Path:
    """North's signed file of exactly ``size`` bytes, a long note on one line filling it (YAML
    that pbem sign would fold; any layout of the same meaning verifies)."""
    note = 1000
    for _ in range(3):
        data = {"pbem": 1, "campaign": "mini-1", "player": "north", "phase": "round-1", "seq": seq,
                "entropy_commit": commit("north"), "orders": {"N": {"bid": world.hands["N"][0], "note": "x" * note}}}
        text = yaml.dump(sign_data(data, load_private_key(world.keys["north"])), Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
                         sort_keys=False, width=10**9)
        if len(text) == size:
            out = folder / f"{name}.yaml"
            out.write_text(text, encoding="ascii")
            return out
        note += size - len(text)
    raise AssertionError(f"no file of {size} bytes")


def test_a_file_larger_than_the_campaigns_limit_is_refused(world: World, tmp_path: Path) -> None:
    """Security: intake reads at most 64 KiB of an order file (the campaign's limits.max_bytes)."""
    camp = camp_copy(world.round1, tmp_path)
    at = _file_of_size(tmp_path, world, "at", 64 * 1024, 1)
    over = _file_of_size(tmp_path, world, "over", 64 * 1024 + 1, 2)
    report = run(camp, at, over)
    assert report.verdicts[0].line() == "accepted: at.yaml: north seq 1"
    assert report.verdicts[1].message.endswith("the file is 65,537 bytes; the limit is 65,536 bytes"), report.verdicts[1].message


def test_a_long_source_name_is_cut_in_the_verdict_line(world: World, tmp_path: Path) -> None:
    """The verdict lines pbem intake prints quote a file's name cut to 160 characters."""
    camp = camp_copy(world.round1, tmp_path)
    f = sign(tmp_path, world.keys, "north", "n" * 200, orders={"N": {"bid": world.hands["N"][0]}})
    assert run(camp, f).verdicts[0].line() == "accepted: " + "n" * 160 + "…: north seq 1"
