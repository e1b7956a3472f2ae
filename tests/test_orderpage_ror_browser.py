"""The Republic of Rome's order page in a real headless Chromium (as ``test_orderpage_browser``:
Debian's chromium and chromedriver, Selenium, the network blocked), one browser for the module.

For every round kind (R8.5: revolution, declare, revolution-2, senate, endgame) a demo campaign
is played by the bots up to that round; the page the publisher wrote for the seat that must send
is opened, filled through its form, signed, and the file passes ``pbem verify``, ``pbem check``
and ``pbem intake``. An illegal order shows exactly the lines ``pbem check`` prints for it (in
English, and in Chinese on a zh-TW seat's page) and the page will not sign it."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import test_orderpage_browser as browser
from conftest import mailed_order_page, run_cli
from test_orderpage_browser import (
    MAX_BYTES,
    check_agrees_and_signing_is_refused,
    load_key,
    open_page,
    page_orders,
    problems,
    requests_made,
    select,
    sign,
)

from pbem.core import shape
from pbem.core.campaign import Campaign, format_time
from pbem.core.envelope import parse_order_document, verify_signature
from pbem.demo import run_demo

driver = browser.driver  # the same headless Chromium fixture, one browser for this module

# where a bot-played demo campaign first reaches each round kind (scenario, options, demo seed)
ROUNDS: dict[str, tuple[str, dict[str, Any], int]] = {
    "revolution": ("early", {}, 1741),
    "senate": ("early", {}, 1741),
    "revolution-2": ("early", {"ror.pbem_loyalty_test": "two_round"}, 1741),
    "declare": ("early", {"ror.pbem_declarations": "sequential"}, 1741),
    "endgame": ("late", {}, 2),
}


class Round:
    """A campaign waiting for orders in a round of ``kind``, and the seat that must send."""

    def __init__(self, folder: Path, kind: str) -> None:
        scenario, options, seed = ROUNDS[kind]
        result = run_demo(folder, "ror", scenario, seed, options=options, stop_at=lambda ph: ph.kind == kind)
        self.dir = result.campaign
        self.keys = folder / "keys"
        self.camp = Campaign(self.dir)
        self.game = self.camp.game()
        _, self.state = self.camp.current()
        phase = self.game.current_phase(self.state)
        assert phase is not None and phase.kind == kind, phase
        self.phase = phase
        self.power = phase.powers[0]
        self.seat = str(self.game.seat_of(self.state, self.power))
        self.legal = self.game.legal_orders(self.state, self.power)
        self.now = format_time(self.camp.opened_at() + timedelta(minutes=10))
        folder_ = sorted(self.dir.glob("reports/0*"))[-1]
        page = mailed_order_page(self.dir, folder_.name, self.seat)  # the page the publisher mailed
        assert page is not None and page.stat().st_size < MAX_BYTES, folder_
        self.page = page

    def expected(self, orders: dict[str, Any]) -> list[str]:
        """pbem check's lines for ``orders``: the first problem of their shape if there is one
        (pbem check stops there), else the rules' (paths relative to the faction's orders)."""
        found = shape.problem("ror", self.phase.kind, orders, "orders")
        if found is not None:
            return [f"{found.path}: {found.sentence()}"]
        return [f"{f'orders.{self.power}.{p.path}'.rstrip('.')}: {p.message}"
                for p in self.game.validate(self.state, self.power, orders[self.power])]

    def header(self) -> dict[str, str]:
        return {"campaign": self.camp.id, "player": self.seat, "phase": self.phase.id}


@pytest.fixture(scope="module")
def rounds(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Round]:
    made: dict[str, Round] = {}

    def get(kind: str) -> Round:
        if kind not in made:
            made[kind] = Round(tmp_path_factory.mktemp(f"ror-{kind}"), kind)
        return made[kind]

    return get


def click(driver: Any, css: str, index: int = -1) -> None:
    from selenium.webdriver.common.by import By

    driver.find_elements(By.CSS_SELECTOR, css)[index].click()


def tick(driver: Any, scope: str, name: str, value: str) -> None:
    click(driver, f"{scope} input[name={name}][value='{value}']")


def type_in(driver: Any, css: str, text: str, index: int = -1) -> None:
    from selenium.webdriver.common.by import By

    box = driver.find_elements(By.CSS_SELECTOR, css)[index]
    box.clear()
    box.send_keys(text)


def open_standing(driver: Any, power: str) -> None:
    from selenium.webdriver.common.by import By

    details = driver.find_element(By.CSS_SELECTOR, f"#power-{power} details.standing")
    if not details.get_attribute("open"):
        details.find_element(By.TAG_NAME, "summary").click()


# --- a legal order of each round kind, made through the form ---------------------------------------

def fill_revolution(driver: Any, r: Round) -> dict[str, Any]:
    p, legal = r.power, r.legal
    scope = f"#power-{p}"
    want: dict[str, Any] = {}
    plays = []
    if legal["statesmen"]:
        click(driver, f"#add-statesman-{p}")
        select(driver, f"{scope} select[name=play-card]", legal["statesmen"][0])
        plays.append({"statesman": legal["statesmen"][0]})
    card, senators = next(iter(legal["concessions"].items()))
    click(driver, f"#add-concession-{p}")
    select(driver, f"{scope} select[name=play-card]", card)
    select(driver, f"{scope} select[name=play-senator]", senators[-1])
    plays.append({"concession": card, "senator": senators[-1]})
    want["plays"] = plays
    sid, info = next(iter(legal["commanders"].items()))
    decl = f"#declaration-{sid}"
    select(driver, f"{decl} select[name=decision]", "revolt")
    tick(driver, decl, "bribe", info["legions"][0])
    other = next(s for s in legal["secondaries"] if s != sid)
    tick(driver, decl, "secondary", other)
    type_in(driver, f"{decl} input[name=min_strength]", "3")
    want["declarations"] = [{"commander": sid, "decision": "revolt", "bribes": [int(info["legions"][0])],
                             "min_strength": 3, "secondaries": [other]}]
    open_standing(driver, p)
    click(driver, f"#add-transfer-{p}")
    select(driver, f"{scope} .redistribute select[name=from]", other)
    select(driver, f"{scope} .redistribute select[name=to]", "treasury")
    type_in(driver, f"{scope} .redistribute input[name=amount]", "1")
    want["standing"] = {"redistribute": [{"from": other, "to": "treasury", "amount": 1}]}
    return want


def fill_senate(driver: Any, r: Round) -> dict[str, Any]:
    p, legal = r.power, r.legal
    # the default army (R8.4) is there already; one legion is kept back and a consent is given
    kept = legal["default"][0]["legions"][-1]
    tick(driver, f"#power-{p} .row.dispatch", "legion", str(kept))
    open_standing(driver, p)
    sid = legal["standing"]["consent"][0]
    select(driver, f"#power-{p} select[name=consent-{sid}]", "yes")
    army = dict(legal["default"][0], legions=legal["default"][0]["legions"][:-1])
    if not army["raise"]:
        del army["raise"]
    return {"dispatch": [army], "standing": {"consent": {sid: True}}}


def fill_declaration(driver: Any, r: Round) -> dict[str, Any]:
    sid = next(iter(r.legal["commanders"]))
    select(driver, f"#declaration-{sid} select[name=decision]", "lay_down")
    return {"declarations": [{"commander": sid, "decision": "lay_down"}]}


def fill_second_round(driver: Any, r: Round) -> dict[str, Any]:
    sid = next(iter(r.legal["commanders"]))
    decl = f"#declaration-{sid}"
    select(driver, f"{decl} select[name=decision]", "revolt")
    other = next(s for s in r.legal["secondaries"] if s != sid)
    tick(driver, decl, "secondary", other)
    return {"declarations": [{"commander": sid, "decision": "revolt", "secondaries": [other]}]}


def fill_endgame(driver: Any, r: Round) -> dict[str, Any]:
    wars = list(r.legal["wars"])
    first = wars[0]
    tick(driver, f"#power-{r.power}", "attack-" + r.power, first)  # untick the first, tick it again: now last
    tick(driver, f"#power-{r.power}", "attack-" + r.power, first)
    return {"attack": wars[1:] + [first]}


FILL: dict[str, Callable[[Any, Round], dict[str, Any]]] = {
    "revolution": fill_revolution, "senate": fill_senate, "declare": fill_declaration,
    "revolution-2": fill_second_round, "endgame": fill_endgame,
}


@pytest.mark.parametrize("kind", list(ROUNDS))
def test_a_legal_order_is_signed_verified_and_taken_in(driver: Any, rounds: Callable[[str], Round], kind: str,
                                                       tmp_path: Path) -> None:
    r = rounds(kind)
    open_page(driver, r.page)
    assert "ed25519:" in load_key(driver, r.keys / f"{r.seat}.key")
    want = FILL[kind](driver, r)
    orders = page_orders(driver)
    assert orders[r.power] == want
    assert problems(driver) == [] and r.expected(orders) == []
    signed = tmp_path / "signed.yaml"
    signed.write_text(sign(driver), encoding="utf-8")
    doc = parse_order_document(signed.read_bytes(), str(signed))
    verify_signature(doc, r.camp.roster()[r.seat].key)
    assert doc.orders == {r.power: want} and doc.phase == r.phase.id
    run_cli("verify", str(signed), "--campaign", str(r.dir))
    run_cli("check", str(signed), "--campaign", str(r.dir))
    out = run_cli("intake", str(r.dir), str(signed), "--now", r.now).output
    assert f"accepted: signed.yaml: {r.seat} seq " in out and "0 refused" in out, out
    urls = requests_made(driver)
    assert all(u.startswith(("file:", "data:", "blob:")) for u in urls), urls


# --- an illegal order of each round kind: pbem check's lines, and no signature -------------------

def spoil_revolution(driver: Any, r: Round) -> None:
    p, legal = r.power, r.legal
    click(driver, f"#add-trade-{p}")  # no partner, and a card that is no Faction card
    type_in(driver, f"#power-{p} input[name=get]", "denarius")
    click(driver, f"#add-gift-{p}")  # no card given
    select(driver, f"#power-{p} .row.trade select[name=partner]", legal["trade_partners"][0])


def spoil_declaration(driver: Any, r: Round) -> None:
    sid = next(iter(r.legal["commanders"]))
    decl = f"#declaration-{sid}"
    select(driver, f"{decl} select[name=decision]", "revolt")
    if r.phase.kind != "revolution-2":
        type_in(driver, f"{decl} input[name=min_strength]", "-1")  # below the schema's minimum
    else:
        spoil_endgame(driver, r)  # a standing transfer from nobody, of 0 talents


def spoil_senate(driver: Any, r: Round) -> None:
    p, legal = r.power, r.legal
    click(driver, f"#add-dispatch-{p}")  # a second army under a legal commander, with a legion already sent
    select(driver, f"#power-{p} .row.dispatch select[name=commander]", legal["commanders"][-1])
    tick(driver, f"#power-{p} .row.dispatch", "legion", str(legal["default"][0]["legions"][0]))


def spoil_endgame(driver: Any, r: Round) -> None:
    p = r.power
    open_standing(driver, p)
    click(driver, f"#add-transfer-{p}")  # from nobody, an amount of 0
    select(driver, f"#power-{p} .redistribute select[name=to]", "treasury")
    type_in(driver, f"#power-{p} .redistribute input[name=amount]", "0")


# revolution and senate break the rules (validate_orders' lines); the others break the round's
# schema, where pbem check stops at the first problem
SPOIL: dict[str, Callable[[Any, Round], None]] = {
    "revolution": spoil_revolution, "senate": spoil_senate, "declare": spoil_declaration,
    "revolution-2": spoil_declaration, "endgame": spoil_endgame,
}


@pytest.mark.parametrize("kind", list(ROUNDS))
def test_an_illegal_order_shows_pbem_checks_lines_and_is_not_signed(driver: Any, rounds: Callable[[str], Round],
                                                                    kind: str, tmp_path: Path) -> None:
    r = rounds(kind)
    open_page(driver, r.page)
    load_key(driver, r.keys / f"{r.seat}.key")
    SPOIL[kind](driver, r)
    orders = page_orders(driver)
    expected = r.expected(orders)
    assert expected and (shape.problem("ror", kind, orders, "orders") is None) == (kind in ("revolution", "senate"))
    assert problems(driver) == expected
    status = check_agrees_and_signing_is_refused(driver, tmp_path, r.dir, r.header(), orders, expected)
    assert status


def test_a_chinese_page_says_pbem_checks_lines_in_chinese(driver: Any, rounds: Callable[[str], Round]) -> None:
    """brutus reads Chinese (the demo's second seat): his Senate round page says each problem in
    Chinese with the seed's words, and keeps pbem check's own line in data-check and the tooltip."""
    from selenium.webdriver.common.by import By

    r = rounds("senate")
    assert r.camp.roster()[r.seat].lang == "zh-TW"
    open_page(driver, r.page)
    assert driver.find_element(By.ID, "sign").text == "簽署"
    spoil_senate(driver, r)
    expected = r.expected(page_orders(driver))
    assert problems(driver) == expected
    items = driver.find_elements(By.CSS_SELECTOR, "#problems li.problem")
    for li, line in zip(items, expected, strict=True):
        assert re.search(r"[\u4e00-\u9fff]", li.text) and li.text != line, li.text
        assert li.get_attribute("title") == line
        assert li.text.split(": ", 1)[0] == line.split(": ", 1)[0]
    assert "軍團" in " ".join(li.text for li in items)


def test_rule_ids_link_to_the_rules_reference(driver: Any, rounds: Callable[[str], Round]) -> None:
    from selenium.webdriver.common.by import By

    r = rounds("revolution")
    open_page(driver, r.page)
    links = {a.text: a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "a.rule")}
    assert {"R2.2", "R2.11", "R3.2", "R8.2"} <= set(links)
    assert links["R2.11"].endswith("docs/rules/ror.md#r2-11")
    # the rule's own text, from the reference pbem ships, opens on the page (no network)
    driver.find_element(By.CSS_SELECTOR, "a.rule[href$='#r2-11']").click()
    shown = driver.find_element(By.CSS_SELECTOR, ".rule-text[data-rule='R2.11']").text
    assert shown.startswith("R2.11 Hand limit.") and "docs/rules/ror.md#r2-11" in shown
    driver.find_element(By.CSS_SELECTOR, "a.rule[href$='#r2-11']").click()
    assert not driver.find_elements(By.CSS_SELECTOR, ".rule-text")
    assert not [u for u in requests_made(driver) if "docs/rules" in u]


def random_orders(r: Round, rng: random.Random) -> dict[str, Any]:
    """Orders of the shapes the form makes, with values legal and not: ids of the state and ids
    that do not exist, empty picks, negative and missing numbers."""
    st, legal, p = r.state, r.legal, r.power
    senators = sorted(st["senators"])[:12] + ["99", "", "4B"]
    legions = sorted(st["legions"])[:10] + ["26", "0"]
    wars = sorted(st["wars"]) + ["W99"]
    cards = list(legal.get("hand", [])) + ["1A", "25A", "harbor_fees", "mining", "denarius", ""]
    factions = list(st["factions"]) + ["Z", ""]
    number = lambda: rng.choice([-1, 0, 1, 2, 5, ""])  # noqa: E731
    some = lambda pool, n=3: [rng.choice(pool) for _ in range(rng.randint(0, n))]  # noqa: E731
    o: dict[str, Any] = {}
    kind = legal["kind"]
    if kind == "revolution":
        o["trades"] = [{"give": some(cards), "to": rng.choice(factions)} if rng.random() < .5 else
                       {"give": some(cards), "get": some(cards), "with": rng.choice(factions)} for _ in range(rng.randint(0, 2))]
        o["plays"] = [{"statesman": rng.choice(cards)} if rng.random() < .5 else
                      {"concession": rng.choice(cards), "senator": rng.choice(senators)} for _ in range(rng.randint(0, 3))]
        o["discards"] = some(cards)
    if kind in ("revolution", "declare", "revolution-2"):
        commanders = list(legal["commanders"]) + ["99", rng.choice(senators)]
        decls = []
        for _ in range(rng.randint(0, 2)):
            d: dict[str, Any] = {"commander": rng.choice(commanders), "decision": rng.choice(["revolt", "lay_down", "manilian", "roll"])}
            if d["decision"] == "manilian":
                d["war"] = rng.choice(wars)
            if rng.random() < .6:
                d["bribes"] = some(legions)
            for key in ("moh_pays", "min_strength"):
                if rng.random() < .4:
                    d[key] = number()
            for key in ("moh_joins", "only_if_primary", "roll"):
                if rng.random() < .2:
                    d[key] = rng.random() < .5
            if rng.random() < .6:
                d["secondaries"] = some(senators)
            decls.append(d)
        o["declarations"] = decls
        if kind != "revolution-2" and rng.random() < .5:
            o["consent_pay"] = [{"moh": rng.choice(senators), "n": number()}]
    if kind == "senate":
        for key, who in (("dispatch", "commander"), ("reinforce", "proconsul")):
            o[key] = [{who: rng.choice(senators), "legions": some(legions, 5), **({"raise": number()} if rng.random() < .5 else {})}
                      for _ in range(rng.randint(0, 2))]
    if kind == "endgame":
        o["attack"] = some(wars, 5)
    standing: dict[str, Any] = {}
    if rng.random() < .5:
        standing["desert"] = [{"legion": rng.choice(legions), "to": rng.choice(["senate_army", "active_forces"])}]
    if rng.random() < .5:
        standing["consent"] = {rng.choice(senators): rng.random() < .5 for _ in range(2)}
    if rng.random() < .4:
        standing["release"] = some(legions)
    if rng.random() < .4:
        standing["accept"] = "all" if rng.random() < .5 else some(legions)
    if rng.random() < .4:
        standing["attack"] = some(wars)
    if rng.random() < .5:
        standing["redistribute"] = [{"from": rng.choice(senators + ["treasury"]),
                                     "to": rng.choice(senators + ["treasury"] + [f"faction:{f}" for f in factions]),
                                     "amount": number()}]
    if standing:
        o["standing"] = standing
    return {p: {k: v for k, v in o.items() if v != [] or rng.random() < .3}}


@pytest.mark.parametrize("kind", list(ROUNDS))
def test_the_form_and_pbem_check_agree_on_random_orders(driver: Any, rounds: Callable[[str], Round], kind: str) -> None:
    """Two hundred orders of the form's shapes per round kind, legal and not: the page's checker
    says exactly pbem check's lines, in the same order."""
    r = rounds(kind)
    open_page(driver, r.page)
    rng = random.Random(f"ror-{kind}")
    batch = [random_orders(r, rng) for _ in range(200)]
    # each orders as the page holds them (a signed file keeps that key order) and what it says of them
    said = driver.execute_script(
        "return arguments[0].map(function (o) { return [JSON.stringify(o), PBEM.checkOrders(o).problems.map(function (p) { return p.path + ': ' + p.message; })]; });",
        batch)
    flagged = 0
    for text, lines in said:
        orders = json.loads(text)
        assert lines == r.expected(orders), orders
        flagged += bool(lines)
    assert 20 < flagged < 200  # both legal and illegal orders were among them
