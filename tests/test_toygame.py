"""A third game plugs in from outside pbem: the sealed-bid auction of ``tests/toygame/`` brings
its rules, order schema, templates and map through the registry, and is played from keys to
audit as any campaign is: real Ed25519 keys, signed order files mailed into the Maildir, the
GM's daily job (intake, resolve, reports in both languages, mails in the outbox), and
``pbem audit`` replaying it all. pbem has no line written for it."""

from __future__ import annotations

import email
import email.policy
import json
import re
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import cast

import pytest
import toygame
from conftest import NOW, make_keys, player_args, run_cli
from orders_util import signed

from pbem.core.campaign import Campaign
from pbem.games import get_game, known_games
from pbem.render import orderpage

TIMES = ["2026-12-01T13:00:00Z", "2026-12-01T14:00:00Z", "2026-12-01T15:00:00Z"]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A short auction (three lots) played to its end through the mail."""
    toygame.install()
    tmp = tmp_path_factory.mktemp("auction")
    keys = make_keys(tmp / "keys", ["ada", "bo"])
    root = tmp / "games"
    camp = root / "auction-1"
    run_cli("new", str(camp), "--game", toygame.NAME, "--scenario", "short", *player_args(keys),
            "--lang", "bo=zh-TW", "--deadline", "bid=24h", "--now", NOW)
    # nothing is dealt before both collectors commit, then reveal, a random value of their own
    for n, (phase, when) in enumerate((("deal/commit", "2026-12-01T12:20:00Z"), ("deal/reveal", "2026-12-01T12:40:00Z"))):
        for seat in keys:
            doc = signed(tmp, keys[seat], "auction-1", seat, phase, {seat: {}}, seq=1, name=f"{seat}-deal", nonce=Campaign(camp).nonce)
            _mail(camp, doc, f"{seat}@example.org", f"d{n}{seat}")
        out = run_cli("run", str(root), "--now", when, "--quiet").output
        assert f"{camp}: 1 phase(s) resolved" in out, out
    for n, when in enumerate(TIMES, start=1):
        state = Campaign(camp).current()[1]
        bids = {"ada": {"A": {"bid": min(3, state["coins"]["A"])}}, "bo": {"B": {"bid": min(2 * n, state["coins"]["B"])}}}
        mails = []
        if n == 1:  # first a bid the schema refuses, then one the rules refuse: each gets a refusal
            mails.append(("bo", {"B": {"bid": -1}}, 1))
            mails.append(("bo", {"B": {"bid": 11}}, 2))
        mails += [("ada", bids["ada"], None), ("bo", bids["bo"], 3 if n == 1 else None)]
        for i, (seat, orders, seq) in enumerate(mails):
            doc = signed(tmp, keys[seat], "auction-1", seat, f"lot-{n}", orders, seq=seq, name=f"{seat}-{i}", nonce=Campaign(camp).nonce)
            _mail(camp, doc, f"{seat}@example.org", f"{n}{i}")
        out = run_cli("run", str(root), "--now", when, "--quiet").output
        assert f"{camp}: 1 phase(s) resolved" in out, out
    yield camp


def _mail(camp: Path, doc: Path, sender: str, n: str) -> None:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "gm@example.org"
    msg["Subject"] = "my bid"
    msg.set_content("bid attached")
    msg.add_attachment(doc.read_bytes(), maintype="text", subtype="yaml", filename="bid.yaml")
    (camp / "inbox" / "new" / f"1764590400.M{n}P1.host").write_bytes(msg.as_bytes())


def test_the_game_is_found_through_the_registry(played: Path) -> None:
    assert toygame.NAME in known_games() and get_game(toygame.NAME) is toygame.GAME
    # pbem itself knows nothing of it: no module names the game or its package
    sources = [p for p in (Path(__file__).parent.parent / "pbem").rglob("*.py")
               if "auction" in p.read_text(encoding="utf-8") or "toygame" in p.read_text(encoding="utf-8")]
    assert sources == []
    records = Campaign(played).records()
    assert [r.get("phase", r["kind"]) for r in records] == ["create", "deal/commit", "deal/reveal", "lot-1", "lot-2", "lot-3", "end"]
    assert records[-1]["result"]["reason"] in ("most points", "a draw")


def _mails(camp: Path, prefix: str) -> list[EmailMessage]:
    return [cast(EmailMessage, email.message_from_bytes(p.read_bytes(), policy=email.policy.default))
            for p in sorted((camp / "outbox").glob(f"{prefix}-*.eml"))]


def _text(msg: EmailMessage) -> str:
    body = msg.get_body(("plain",))
    assert body is not None
    return str(body.get_content())


def test_intake_holds_orders_to_the_games_schema_and_rules(played: Path) -> None:
    """The order schema the game brings is held to at intake (a refusal naming the field), its
    rules after that (the receipt names the problem; the order would be void); each reply goes
    to the sender in the seat's language."""
    refusals = _mails(played, "refused")
    assert [m["To"] for m in refusals] == ["bo@example.org"]
    assert "orders.B.bid: 至少必須是 0" in _text(refusals[0])
    receipts = {m["Subject"]: _text(m) for m in _mails(played, "receipt") if m["To"] == "bo@example.org"}
    assert "11 is more than the 10 coins in your purse" in next(t for s, t in receipts.items() if "seq 2" in s)
    assert len(receipts) == 6  # one a deal round, seq 2 and 3 of the first lot, then one a lot


def test_reports_use_the_games_own_presentation(played: Path) -> None:
    reports = played / "reports"
    first = reports / "0003-lot-1"
    html = (first / "public.html").read_text(encoding="utf-8")
    text = (first / "public.txt").read_text(encoding="utf-8")
    events = json.loads((played / "states" / "000003.events.json").read_bytes())
    won = next(e for e in events if e["type"] == "lot_won")
    kind, worth = won["lot"].split("-")
    # its event and situation templates, its names for the lots
    assert f"takes the {kind} ({worth}) for {won['price']} coins" in html
    assert f"takes the {kind} ({worth}) for {won['price']} coins" in text
    assert "Sealed bids opened" in text and "Next lot:" in text
    zh = (first / "public.zh-TW.html").read_text(encoding="utf-8")
    assert "枚金幣標得" in zh and {"vase": "花瓶", "clock": "時鐘", "map": "地圖"}[kind] in zh
    # its map, stored beside the report
    assert '<rect class="purse" data-power="A"' in (first / "map.svg").read_text(encoding="utf-8")
    # the private report opens the seat's own secret, and no other's
    favourites = Campaign(played).read_state(3)["favourite"]
    ada = (first / "private" / "ada.html").read_text(encoding="utf-8")
    opened = ada[ada.index('<section id="openings"'):]
    opened = opened[:opened.index("</section>")]
    assert "<code>favourite:A</code>" in opened and "favourite:B" not in opened
    assert f"Your favourite kind (worth double to you): {favourites['A']}" in ada
    # the order form points to the game's schema, which travels beside it
    form = (first / "forms" / "ada.yaml").read_text(encoding="utf-8")
    assert "bid.schema.json" in form and (first / "forms" / "bid.schema.json").is_file()


def test_report_mails_carry_the_map_and_the_form(played: Path) -> None:
    mails = _mails(played, "report-0003")
    assert [m["To"] for m in mails] == ["ada@example.org", "bo@example.org"]
    names = {part.get_filename() for part in mails[1].walk() if part.get_filename()}
    assert {"map-0003-lot-1.png", "orders-0003-lot-1-bo.yaml", "bid.schema.json"} <= names, names
    assert "枚金幣標得" in _text(mails[1])  # bo reads Chinese


def test_the_order_page_carries_the_games_own_form(played: Path) -> None:
    """The report mail asking for the next bid carries the offline order page, built with the
    script the game brings and the seat's legal range."""
    mail = _mails(played, "report-0003")[0]
    page = next(p.get_payload(decode=True) for p in mail.walk() if p.get_filename() == "orders-0003-lot-1-ada.html")
    assert isinstance(page, bytes)
    html = page.decode("ascii")
    assert "+ the game's own auction.js, then PBEM.boot()" in html
    packed = re.search(r'<script type="text/plain" id="pbem-pack">(.*?)</script>', html, re.S)
    code = re.search(r'<script type="text/plain" id="pbem-code">(.*?)</script>', html, re.S)
    assert packed and code
    data = json.loads(orderpage.unpack(packed.group(1)))
    state = Campaign(played).read_state(3)
    assert data["game"] == "auction" and data["phase"] == "lot-2" and data["legal"] == {"A": {"bid": {"min": 0, "max": state["coins"]["A"]}}}
    assert "coins in your purse" in orderpage.unpack(code.group(1)).decode("utf-8")


def test_audit_replays_the_whole_game(played: Path) -> None:
    result = run_cli("audit", str(played))
    assert "audit passed" in result.output
    pin = next(line for line in (played / "reports" / "0005-lot-3" / "public.txt").read_text(encoding="utf-8").splitlines()
               if "sha256:" in line)
    assert "record" in pin


def test_a_package_can_plug_the_game_in_by_an_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What an installed package declares (``[project.entry-points."pbem.games"]``) is found the
    same way: the game, and through it its schemas and presentation."""
    from pbem import games

    dist = tmp_path / "pbem_auction-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: pbem-auction\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[pbem.games]\nauction-ep = toygame.rules:GAME\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    games._entry_points.cache_clear()
    try:
        assert "auction-ep" in known_games()
        assert get_game("auction-ep") is toygame.GAME
        assert games.presentation("auction-ep").glossary("zh-TW")["lots"]["clock-5"] == "時鐘（5）"
        schema = games.schema_path("auction-ep", "bid")
        assert schema is not None and schema.parent.name == "schemas"
    finally:
        monkeypatch.undo()
        games._entry_points.cache_clear()
        games._registered.pop("auction-ep", None)
        games._presentations.pop("auction-ep", None)


def test_the_history_site_opens_every_secret_after_the_end(played: Path) -> None:
    """pbem report --all: the club's site of the finished auction, each lot's page in the
    game's own words, and every commitment opened (the pile, both favourites)."""
    run_cli("report", str(played), "--all")
    site = played / "site"
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="0003-lot-1/' in index and '<span class="ok">passed</span>' in index
    # the deal and three lots, each committing to the pile and both favourites
    assert "12 of 12 commitments opened and checked." in index
    phase = (site / "0003-lot-1" / "public.html").read_text(encoding="utf-8")
    assert "Sealed bids opened" in phase
    secrets = (site / "secrets.html").read_text(encoding="utf-8")
    for label in ("pile", "favourite:A", "favourite:B"):
        assert f"<code>{label}</code>" in secrets
    assert 'class="bad"' not in secrets


def test_pbem_map_render_draws_the_auction_through_its_presentation(played: Path, tmp_path: Path) -> None:
    """``pbem map render FOLDER`` asks the campaign's game for its map: the auction's purses."""
    out = tmp_path / "now.svg"
    run_cli("map", "render", str(played), "-o", str(out))
    drawn = out.read_text(encoding="utf-8")
    assert drawn.count('class="purse"') == 2
    assert drawn == sorted((played / "reports").glob("*/map.svg"))[-1].read_text(encoding="utf-8")
