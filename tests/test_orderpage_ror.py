"""The Republic of Rome's order page as text and as mail: every report mail of ``pbem demo --game
ror`` that asks for orders carries the page; a page holds only its seat's secrets; every sentence
the form says exists in Chinese. Its behaviour in a browser is in test_orderpage_ror_browser.py."""

from __future__ import annotations

import email
import email.policy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from pbem.common.fair import PhaseRng, Rng
from pbem.core.campaign import Campaign
from pbem.core.publish import report_key
from pbem.data import templates_dir
from pbem.games.ror import GAME
from pbem.render import orderpage
from pbem.render.ror import orderpage as orderpage_ror

MAX_BYTES = 300 * 1024


def _parts(mail: Path) -> dict[str, bytes]:
    msg = email.message_from_bytes(mail.read_bytes(), policy=email.policy.default)
    return {str(part.get_filename()): part.get_payload(decode=True) for part in msg.walk() if part.get_filename()}


def _data(html: str) -> dict[str, Any]:
    m = re.search(r'<script type="text/plain" id="pbem-pack">(.*?)</script>', html, re.S)
    assert m
    return json.loads(orderpage.unpack(m.group(1)))  # type: ignore[no-any-return]


def test_every_demo_mail_that_asks_for_orders_carries_the_order_page(tmp_path: Path) -> None:
    """Who must send after each report comes from the campaign's own records (the state each
    report was published from), not from the mail, so a mail that forgot to ask fails too."""
    run_cli("demo", str(tmp_path / "d"), "--game", "ror", "--quiet")
    camp = Campaign(tmp_path / "d" / "campaign")
    game = camp.game()
    asking = 0
    for rec in camp.effective_records():
        if rec["kind"] not in ("create", "phase"):
            continue
        state = camp.read_state(rec["index"])
        phase = game.current_phase(state)
        senders = {game.seat_of(state, p) for p in phase.powers} if phase else set()
        key = report_key(rec)
        for seat in camp.roster():
            files = _parts(camp.root / "outbox" / f"report-{key}-{seat}.eml")
            page = f"orders-{key}-{seat}.html"
            if seat not in senders:
                assert page not in files, f"{key}: {seat} owes no orders"
                continue
            asking += 1
            assert page in files, f"the report mail {key} asks {seat} for orders without the order page"
            assert len(files[page]) < MAX_BYTES
            html = files[page].decode("utf-8")
            data = _data(html)
            # the rounds before the deal are pbem's own (templates/orderpage/pbem.js)
            game_of_page = "pbem" if phase.id.startswith("deal/") else "ror"  # type: ignore[union-attr]
            assert data["game"] == game_of_page and data["seat"] == seat and data["phase"] == phase.id  # type: ignore[union-attr]
            assert "connect-src 'none'" in html
    assert asking >= 4  # T4/revolution: every seat; T5/senate: the dispatcher


@pytest.fixture(scope="module")
def revolution() -> dict[str, Any]:
    return GAME.new_game("early", {}, PhaseRng(Rng(b"ror-page-public"), Rng(b"ror-page-secret")))


def test_a_page_holds_only_its_seats_secrets(revolution: dict[str, Any]) -> None:
    st = revolution
    phase = GAME.current_phase(st)
    assert phase is not None and phase.kind == "revolution"
    for power in phase.powers:
        seat = GAME.seat_of(st, power)
        assert seat is not None
        html = orderpage.order_page("ror", GAME, st, seat, campaign="ror-p")
        assert html is not None and len(html.encode("utf-8")) < MAX_BYTES
        data = _data(html)
        assert data["powers"] == [power] and list(data["legal"]) == [power] and list(data["own"]) == [power]
        assert data["own"][power]["hand"] == st["factions"][power]["hand"]
        assert data["own"][power]["treasury"] == st["factions"][power]["faction_treasury"]
        text = json.dumps({k: v for k, v in data.items() if k != "own"})
        for other in st["factions"]:  # no other faction's treasury or standing orders
            if other != power:
                assert "faction_treasury" not in text and "standing\": {" not in json.dumps(data["own"].get(other))
        assert orderpage.order_page("ror", GAME, st, seat, campaign="ror-p") == html  # deterministic


def test_every_sentence_of_the_form_reads_in_chinese() -> None:
    """Each sentence ror.js says (its problems and its words) has a Traditional Chinese text."""
    script = orderpage.form_source("ror")
    said = set(re.findall(r'c\.bad\([^,]+,\s*"((?:[^"\\]|\\.)+)"', script)) | set(re.findall(r'\bt\("((?:[^"\\]|\\.)+)"\)', script))
    said |= set(re.findall(r'heading\("h\d", "((?:[^"\\]|\\.)+)"', script))
    assert len(said) > 60
    zh = orderpage_ror.message_table("zh-TW") | orderpage.message_table("zh-TW")
    missing = sorted(s for s in said if s not in zh or not re.search(r"[\u4e00-\u9fff]", zh[s]))
    assert missing == []


@pytest.mark.parametrize("why", [
    "faction B controls family card 1 (R2.4)", "Statesman 1A of the same number is in play (R2.4)",
    "family senator 4 is a rebel (R2.9)", "senator 99 is not in your faction", "senator 5 is a rebel (R2.9)",
    "the Manilian Law is not in play", "there is no war 'W9'", "war W3 is defeated", "war W3 needs 2 fleets",
])
def test_the_rules_reasons_read_in_chinese_with_their_names(why: str) -> None:
    english, shown = orderpage_ror.say(why, "zh-TW")
    assert english == why and re.search(r"[\u4e00-\u9fff]", shown)
    for name in re.findall(r"\b(?:[A-Z]?\d+[A-Z]?|W\d+)\b", why):
        assert name in shown
    assert orderpage_ror.say(why, "en") == [why, why]


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_every_rule_the_form_cites_reads_from_the_rules_reference(lang: str) -> None:
    """Each rule id ror.js links (R2.11 -> docs/rules/ror.md#r2-11) has its anchor in the reference
    of the reader's language, and the page carries that rule's text."""
    script = orderpage.form_source("ror")
    cited = set(re.findall(r'"(R\d+\.\d+[a-e]?)"', script))
    assert {"R2.2", "R2.11", "R4.2", "R8.2", "R9.9"} <= cited
    texts = orderpage_ror.rule_texts(lang)
    assert set(texts) == cited
    for rule, text in texts.items():
        assert text.startswith(rule + " ") and len(text) > len(rule) + 10, text
        if lang == "zh-TW":
            assert re.search(r"[\u4e00-\u9fff]", text), text


def test_the_pages_shape_check_knows_every_keyword_of_the_order_schemas() -> None:
    """shape.js judges a schema only if it knows each of its keywords; every order schema pbem
    ships (both games, every round) uses only those, so the page never skips the shape check."""
    from pbem.data import orders_dir

    script = (templates_dir() / "orderpage" / "shape.js").read_text(encoding="utf-8")
    known = set(re.findall(r'case "([$\w]+)":', script))
    used: set[str] = set()

    def walk(node: Any, names: bool = False) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if not names:
                    used.add(key)
                walk(value, not names and key in ("properties", "$defs"))
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path in sorted(orders_dir().rglob("*.schema.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    assert len(used) > 15 and used <= known, sorted(used - known)
