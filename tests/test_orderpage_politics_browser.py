"""The order page of Maria's political phase in a real headless Chromium (as
``test_orderpage_browser``: Debian's chromium and chromedriver, Selenium, the network blocked).

A sealed-mode politics round (M11.4, trusted GM): a bid per suit, a choice list and a card
instruction are signed, verified, taken in and resolved with that bid. A trustless campaign: the
commit round's page draws a salt, hashes the bid as ``bid_commitment`` does and keeps bid and
salt in the browser; the politics round's page fills them in again (or says it has none until
the exported file is imported) and the reveal matches the commitment. An illegal bid shows the
sentences of ``pbem check`` and is not signed. The pages are the ones the publisher wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import test_orderpage_browser as browser
from conftest import mailed_order_page, make_keys, player_args, run_cli
from test_orderpage_browser import (
    LATER,
    MAX_BYTES,
    NOW,
    SEATS,
    check_agrees_and_signing_is_refused,
    load_key,
    open_page,
    page_orders,
    problems,
    requests_made,
    select,
    sign,
)

from pbem.core.campaign import Campaign
from pbem.core.envelope import parse_order_document, verify_signature
from pbem.games.maria.rules.politics import bid_commitment
from pbem.render import orderpage
from pbem.render.reportpage import glossary

driver = browser.driver  # the same headless Chromium fixture, one browser for this module

LANGS = {"louis": "zh-TW"}
"""The campaigns' roster languages: louis reads Chinese, the others English."""
FILLED = "Your bid and salt are filled in from this browser's record of your commitment."
NO_RECORD = ("This browser has no record of the bid you committed this turn (it was made on another machine, or not "
             "imported). Import your exported file below, or type the bid and the salt you committed.")
MATCH = "The bid and salt match your published commitment."
NO_MATCH = "The bid and salt do not match your published commitment; the bid would count as a pass (M11.4)."


def words(seat: str) -> dict[str, str]:
    """The page's words in the seat's language."""
    return orderpage.message_table(LANGS.get(seat, "en"))


def settles(driver: Any, selector: str, read: Any, want: Any) -> None:
    """Wait until ``read(element)`` of the element at CSS ``selector`` is ``want``. The page redraws
    its form as it loads the store, so an element found a moment ago may be replaced: each try
    looks the element up again."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    seen: list[Any] = []

    def settled(d: Any) -> bool:
        seen[:] = [read(d.find_element(By.CSS_SELECTOR, selector))]
        return bool(seen[0] == want)

    try:
        WebDriverWait(driver, 10, ignored_exceptions=(StaleElementReferenceException,)).until(settled)
    except Exception as exc:
        raise AssertionError(f"{selector}: {seen[0] if seen else 'never found'!r}, not {want!r}") from exc


def make_campaign(root: Path, *options: str) -> dict[str, Any]:
    """An advanced Maria campaign resolved through its set-up: the political phase opens next."""
    keys = make_keys(root / "keys", SEATS)
    camp = root / "camp"
    run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", "advanced", "--id", "maria-p", "--now", NOW,
            "--outage-share", "0", "--lang", "louis=zh-TW", *[a for opt in options for a in ("--option", opt)],
            *player_args(keys))
    run_cli("resolve", str(camp), "--force", "--now", LATER)
    return {"dir": camp, "keys": keys}


def now(campaign: dict[str, Any]) -> tuple[Campaign, dict[str, Any], Any]:
    """The campaign, its state and the phase waiting in it."""
    camp = Campaign(campaign["dir"])
    _, state = camp.current()
    return camp, state, camp.game().current_phase(state)


def published_page(campaign: dict[str, Any], seat: str) -> Path:
    """The order page the publisher mailed with the seat's latest report."""
    folder = sorted((campaign["dir"] / "reports").glob("0*"))[-1]
    page = mailed_order_page(campaign["dir"], folder.name, seat)
    assert page is not None, f"no order page for {seat} in {folder.name}"
    assert page.stat().st_size < MAX_BYTES, f"the page weighs {page.stat().st_size} bytes"
    return page


def bidder(state: dict[str, Any], game: Any, phase: Any) -> tuple[str, str, dict[str, str]]:
    """A seat, one of its bidding powers and a bid from that power's hand: the trump suit's card
    when it holds one (so the bid decides the choosing order), and one card of another suit."""
    trump = state["politics"]["trump"]
    best = None
    for power in phase.powers:
        hand = sorted(c for c in state["cards"]["hands"][power] if not c.startswith("R"))
        bid: dict[str, str] = {}
        for card in hand:
            bid.setdefault(card[0], card)
        bid = {s: c for s, c in bid.items() if s == trump} | {s: c for s, c in bid.items() if s != trump}
        bid = dict(list(bid.items())[:2])
        if bid and (best is None or (trump in bid and trump not in best[2])):
            best = (game.seat_of(state, power), power, bid)
    assert best is not None, "no bidding power holds a normal card"
    return best


def fill_bid(driver: Any, power: str, bid: dict[str, str]) -> None:
    from selenium.webdriver.common.by import By

    for suit, card in bid.items():
        box = driver.find_element(By.CSS_SELECTOR, f"#power-{power} input[name=bid-{suit}]")
        box.clear()
        box.send_keys(card)


def events(campaign: dict[str, Any]) -> list[dict[str, Any]]:
    """The events of the phase resolved last."""
    camp = Campaign(campaign["dir"])
    rec, _ = camp.current()
    return json.loads((campaign["dir"] / "states" / f"{rec['index']:06d}.events.json").read_text())  # type: ignore[no-any-return]


def take_in(campaign: dict[str, Any], seat: str, text: str, tmp_path: Path, name: str) -> None:
    """Verify, check and take in a signed file, then resolve the phase."""
    signed = tmp_path / name
    signed.write_text(text, encoding="utf-8")
    doc = parse_order_document(signed.read_bytes(), str(signed))
    verify_signature(doc, Campaign(campaign["dir"]).roster()[seat].key)
    run_cli("verify", str(signed), "--campaign", str(campaign["dir"]))
    run_cli("check", str(signed), "--campaign", str(campaign["dir"]))
    out = run_cli("intake", str(campaign["dir"]), str(signed), "--now", LATER).output
    assert f"accepted: {name}: {seat} seq" in out and "0 refused" in out, out
    run_cli("resolve", str(campaign["dir"]), "--force", "--now", LATER)


def no_network(driver: Any) -> None:
    urls = requests_made(driver)
    assert urls and all(u.startswith(("file:", "data:", "blob:")) for u in urls), urls


def test_sealed_politics_round_bid_choice_and_card_instruction(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    campaign = make_campaign(tmp_path)
    camp, state, phase = now(campaign)
    game = camp.game()
    assert phase.kind == "politics", "trusted-GM mode has no commit round"
    seat, power, bid = bidder(state, game, phase)
    revealed = state["politics"]["revealed"]
    assert revealed, "two political cards are revealed at turn 1"
    page = published_page(campaign, seat)
    open_page(driver, page)
    # the revealed cards are shown with their names and what they do
    shown = driver.find_element(By.CSS_SELECTOR, "#own .politics").text
    titles = glossary("maria", LANGS.get(seat, "en"))["titles"]  # Chinese titles for a zh-TW seat
    for card in revealed:
        name = state["politics"]["cards"][card]["name"]
        assert f"{card} «{titles.get(name, name)}»" in shown
        effects = driver.find_elements(By.CSS_SELECTOR, f"#card-{power}-{card} ol.effects > li")
        assert len(effects) == len(state["politics"]["cards"][card]["effects"])
    load_key(driver, campaign["keys"][seat])
    fill_bid(driver, power, bid)
    driver.find_element(By.CSS_SELECTOR, f"#power-{power} input[name=choice][value={revealed[0]}]").click()
    driver.find_element(By.CSS_SELECTOR, f"#power-{power} input[name=choice][value=keep]").click()
    select(driver, f"#power-{power} select[name=execute-{revealed[0]}]", "no")
    assert problems(driver) == []
    orders = page_orders(driver)
    full = {s: bid.get(s, "pass") for s in ("C", "D", "H", "S")}
    assert orders[power] == {"bid": full, "choices": [revealed[0], "keep"], "cards": {revealed[0]: {"execute": False}}}
    assert game.validate(state, power, orders[power]) == []
    text = sign(driver)
    doc = parse_order_document(text.encode("utf-8"), "page")
    assert doc.orders[power] == orders[power] and "salt" not in doc.orders[power]
    take_in(campaign, seat, text, tmp_path, "politics.yaml")

    happened = events(campaign)
    trump = state["politics"]["trump"]
    reveal = next(e for e in happened if e["type"] == "bid_reveal")
    assert reveal["bids"][power] == bid.get(trump, "pass")
    assert not [e for e in happened if e["type"] in ("void", "bid_refused") and e.get("power") == power]
    _, after = Campaign(campaign["dir"]).current()
    logged = [b for b in after["bid_log"] if b["power"] == power and b["turn"] == state["turn"]]
    assert logged and logged[-1]["bid"] == full
    if trump in bid:  # the only bid in the trump suit: this power chooses first and takes the card
        assert {"type": "choice", "power": power, "choice": "take", "card": revealed[0]}.items() <= next(
            e for e in happened if e["type"] == "choice").items()
        assert any(e["type"] == "political_card" and e["card"] == revealed[0] and e["executed"] is False for e in happened)
    no_network(driver)


def test_illegal_bid_shows_pbem_checks_words_and_is_not_signed(driver: Any, tmp_path: Path) -> None:

    campaign = make_campaign(tmp_path)
    camp, state, phase = now(campaign)
    game = camp.game()
    seat, power, _ = bidder(state, game, phase)
    hand = state["cards"]["hands"][power]
    absent = next(f"D{v}.{i}" for v in range(2, 11) for i in range(1, 5) if f"D{v}.{i}" not in hand)
    open_page(driver, published_page(campaign, seat))
    load_key(driver, campaign["keys"][seat])
    fill_bid(driver, power, {"S": "S11", "H": "R.2b", "D": absent})
    orders = page_orders(driver)
    expected = [f"{p.path}: {p.message}" for p in game.validate(state, power, orders[power])]
    assert expected == [f"orders.{power}.bid.D: {absent} is not in your hand",
                        f"orders.{power}.bid.H: a reserve may not be bid (M9.4)",
                        f"orders.{power}.bid.S: 'S11' is not a full card id or pass (M11.4)"]
    assert problems(driver) == expected
    status = check_agrees_and_signing_is_refused(
        driver, tmp_path, campaign["dir"], {"campaign": "maria-p", "player": seat, "phase": phase.id}, orders, expected)
    assert status == words(seat)["Fix the problems above before signing."]


def test_trustless_commit_then_reveal_matches_the_commitment(driver: Any, tmp_path: Path) -> None:
    """M11.4, trustless mode: the commit round's page sends only the commitment and keeps the
    bid and its salt; the politics round's page fills them in (from this browser, or from the
    exported file on another one) and the reveal opens the commitment."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    campaign = make_campaign(tmp_path, "pbem.commitments=trustless")
    camp, state, phase = now(campaign)
    game = camp.game()
    assert phase.kind == "commit"
    seat, power, bid = bidder(state, game, phase)
    turn = state["turn"]
    open_page(driver, published_page(campaign, seat))
    load_key(driver, campaign["keys"][seat])
    fill_bid(driver, power, bid)
    assert problems(driver) == []
    # a bid kept from an earlier turn, and another campaign's: only the first is spent
    driver.execute_script(
        "var s = PBEM.loadStore(); s[arguments[0]] = {bid: {}, salt: 'old'}; s[arguments[1]] = {bid: {}, salt: 'other'};"
        " PBEM.saveStore(s);", f"bid:maria-p/{seat}/{turn - 1}/{power}", f"bid:another/{seat}/{turn - 1}/{power}")
    text = sign(driver)
    doc = parse_order_document(text.encode("utf-8"), "page")
    store = driver.execute_script("return PBEM.loadStore();")
    assert f"bid:maria-p/{seat}/{turn - 1}/{power}" not in store and f"bid:another/{seat}/{turn - 1}/{power}" in store
    kept = store[f"bid:maria-p/{seat}/{turn}/{power}"]
    full = {s: bid.get(s, "pass") for s in ("C", "D", "H", "S")}
    assert kept["bid"] == full and len(kept["salt"]) == 32 and int(kept["salt"], 16) >= 0
    commitment = bid_commitment(turn, power, full, kept["salt"])
    assert doc.orders[power] == {"commitment": commitment} and kept["commitment"] == commitment
    assert "bid" not in text and kept["salt"] not in text  # only the commitment leaves the page
    # the store, bid included, moves with Export like the entropy value
    driver.find_element(By.ID, "export").click()
    exported = driver.downloads / f"{seat}.key.state.json"
    WebDriverWait(driver, 10).until(lambda d: exported.is_file() and exported.stat().st_size > 0)
    assert json.loads(exported.read_text())[f"bid:maria-p/{seat}/{turn}/{power}"] == kept
    take_in(campaign, seat, text, tmp_path, "commit.yaml")
    published = next(e for e in events(campaign) if e["type"] == "bid_commitments")
    assert published["mode"] == "trustless" and published["commitments"][power] == commitment

    camp, state, phase = now(campaign)
    assert phase.kind == "politics"
    page = published_page(campaign, seat)
    # the same browser: bid and salt are filled in and match the published commitment
    said = words(seat)
    driver.get(page.as_uri())
    settles(driver, f"#record-{power}", lambda e: (e.text, "good" in str(e.get_attribute("class"))), (said[FILLED], True))
    for suit, card in bid.items():
        settles(driver, f"#power-{power} input[name=bid-{suit}]", lambda e: e.get_attribute("value"), card)
    settles(driver, f"#power-{power} input[name=salt]", lambda e: e.get_attribute("value"), kept["salt"])
    match = f"#commitment-{power}"
    settles(driver, match, lambda e: e.text, said[MATCH])
    # another browser (nothing kept): the page says so, and the exported file fills them in
    open_page(driver, page)
    settles(driver, f"#record-{power}", lambda e: (e.text, "bad" in str(e.get_attribute("class"))), (said[NO_RECORD], True))
    settles(driver, f"#power-{power} input[name=salt]", lambda e: e.get_attribute("value"), "")
    settles(driver, match, lambda e: e.text, said[NO_MATCH])
    driver.find_element(By.ID, "import-file").send_keys(str(exported))
    settles(driver, f"#record-{power}", lambda e: e.text, said[FILLED])
    settles(driver, match, lambda e: e.text, said[MATCH])
    load_key(driver, campaign["keys"][seat])
    orders = page_orders(driver)
    assert orders[power] == {"bid": full, "salt": kept["salt"]}
    assert problems(driver) == [] and game.validate(state, power, orders[power]) == []
    text = sign(driver)
    doc = parse_order_document(text.encode("utf-8"), "page")
    assert doc.orders[power] == orders[power]
    assert doc.entropy_reveal is not None  # the commit round's entropy value came with the import
    take_in(campaign, seat, text, tmp_path, "reveal.yaml")

    happened = events(campaign)
    assert not [e for e in happened if e["type"] in ("void", "bid_refused") and e.get("power") == power], happened
    reveal = next(e for e in happened if e["type"] == "bid_reveal")
    assert reveal["bids"][power] == bid.get(state["politics"]["trump"], "pass")
    _, after = Campaign(campaign["dir"]).current()
    logged = [b for b in after["bid_log"] if b["power"] == power and b["turn"] == turn][-1]
    assert logged == {"turn": turn, "power": power, "bid": full, "salt": kept["salt"], "commitment": commitment}
    no_network(driver)


def test_chinese_politics_page_has_no_english_words(driver: Any, tmp_path: Path) -> None:
    """A zh-TW seat's political form reads in Chinese: headings, help, options, and the title
    and every effect of each card of the default deck; only ids, rule numbers and suit signs
    stay as they are."""
    import re

    from pbem.common.fair import PhaseRng, Rng
    from pbem.games.maria import GAME

    state = GAME.new_game("advanced", {}, PhaseRng(Rng(b"zh-public"), Rng(b"zh-secret")))
    phase = GAME.current_phase(state)
    orders = {p: GAME.bot_orders(state, p, Rng(f"setup-{p}".encode())) for p in phase.powers}  # type: ignore[union-attr]
    state = GAME.resolve(state, orders, PhaseRng(Rng(b"p0"), Rng(b"s0"))).state
    state["politics"]["revealed"] = sorted(state["politics"]["cards"])  # every card at once
    html = orderpage.order_page("maria", GAME, state, "louis", campaign="maria-zh", lang="zh-TW")
    assert html is not None
    page = tmp_path / "zh.html"
    page.write_text(html, encoding="utf-8")
    open_page(driver, page)
    texts = driver.execute_script("""
        var out = [];
        document.querySelectorAll('#orders h2, #orders h3, #orders p, #orders label, #orders option, #orders li, #own .politics *')
          .forEach(function (n) { if (n.children.length === 0 || n.tagName === 'LABEL') out.push(n.textContent.trim()); });
        return out.filter(function (s) { return s; });""")
    assert len(texts) > 100
    english = [s for s in texts if not re.search(r"[\u4e00-\u9fff]", s)
               and not re.fullmatch(r"[\sA-Z0-9.()«»♠♥♦♣:,+\-–—]*", s)]
    assert english == [], english
    ascii_words = [w for s in texts for w in re.findall(r"[a-z]{3,}", s)]
    assert ascii_words == [], ascii_words
    titles = glossary("maria", "zh-TW")["titles"]
    for card, spec in state["politics"]["cards"].items():
        assert any(s == f"{card} «{titles[spec['name']]}»" for s in texts), card


def test_card_instructions_have_the_shapes_the_rules_read(driver: Any, tmp_path: Path) -> None:
    """M9.19: each revealed card offers only what its effects can use, and the form writes it
    as effects._instruction reads it: skip and steps for an optional effect, toward for a
    taker_choice, the taker's pieces for a block (at most as many as blocked), a site for E14.
    The engine then blocks the very generals the form picked."""
    from selenium.webdriver.common.by import By

    from pbem.common.fair import PhaseRng, Rng
    from pbem.games.maria import GAME, model
    from pbem.games.maria.rules.effects import _instruction

    state = GAME.new_game("advanced", {}, PhaseRng(Rng(b"pol-public"), Rng(b"pol-secret")))
    phase = GAME.current_phase(state)
    orders = {p: GAME.bot_orders(state, p, Rng(f"setup-{p}".encode())) for p in phase.powers}  # type: ignore[union-attr]
    state = GAME.resolve(state, orders, PhaseRng(Rng(b"p0"), Rng(b"s0"))).state
    assert GAME.current_phase(state).kind == "politics"  # type: ignore[union-attr]
    pol = state["politics"]
    # a made-up card for the effects the default deck's revealed pair lacks (as rules cases do)
    pol["cards"]["PC99"] = {"group": "A", "name": "Test Card", "effects": [
        {"effect": "restore_train", "args": ["taker"]},
        {"effect": "withdraw_general", "args": ["AU", 2, "taker"]},
        {"effect": "restore_train", "args": ["PR"]}]}
    pol["revealed"] = ["PC23", "PC05", "PC99"]
    hand = sorted(c for c in state["cards"]["hands"]["FR"] if not c.startswith("R"))
    pol["trump"], pol["namer"] = hand[0][0], None  # FR bids the only card of the trump suit
    html = orderpage.order_page("maria", GAME, state, "louis", campaign="maria-i")
    assert html is not None and len(html.encode("utf-8")) < MAX_BYTES
    page = tmp_path / "instructions.html"
    page.write_text(html, encoding="utf-8")
    open_page(driver, page)
    card = "#card-FR-{} ".format
    # PC23: block 2 PA generals chosen by the taker; a third tick drops the first
    pa = sorted(g for g, v in state["generals"].items() if v["power"] == "PA" and v["city"])
    assert len(pa) >= 3
    boxes = {b.get_attribute("value"): b for b in driver.find_elements(By.CSS_SELECTOR, card("PC23") + "input[name='pieces-PC23-1']")}
    assert sorted(boxes) == pa
    for g in pa[:3]:
        boxes[g].click()
    assert [b.get_attribute("value") for b in boxes.values() if b.is_selected()] == pa[1:3]
    assert not driver.find_elements(By.CSS_SELECTOR, card("PC23") + "[name='skip-PC23-2']")  # draw is not optional
    # PC05: effect 1 is fixed; effect 2 is optional with a direction for the taker to choose
    assert not driver.find_elements(By.CSS_SELECTOR, card("PC05") + "[name='toward-PC05-1']")
    select(driver, card("PC05") + "select[name='toward-PC05-2']", "up")
    select(driver, card("PC05") + "select[name='steps-PC05-2']", "0")
    driver.find_element(By.CSS_SELECTOR, card("PC05") + "input[name='skip-PC05-2']").click()
    # PC99: E14's site among the taker's re-entry sites, E9's general among Austria's
    options = driver.find_elements(By.CSS_SELECTOR, card("PC99") + "select[name='site-PC99-1'] option")
    sites = [o.get_attribute("value") for o in options][1:]  # after the default
    assert sites and sites == list(model.reentry_sites(state, model.board_of(state), "FR"))
    select(driver, card("PC99") + "select[name='site-PC99-1']", sites[-1])
    # Prussia's train comes back where Prussia's standing orders say (E14): France is not asked
    assert not driver.find_elements(By.CSS_SELECTOR, card("PC99") + "[name='site-PC99-3']")
    au = next(g for g, v in sorted(state["generals"].items()) if v["power"] == "AU" and v["city"])
    driver.find_element(By.CSS_SELECTOR, card("PC99") + f"input[name='pieces-PC99-2'][value={au}]").click()
    fill_bid(driver, "FR", {hand[0][0]: hand[0]})
    driver.find_element(By.CSS_SELECTOR, "#power-FR input[name=choice][value=PC23]").click()
    got = page_orders(driver)["FR"]
    assert got["cards"] == {
        "PC23": {"effects": {"1": {"pieces": pa[1:3]}}},
        "PC05": {"effects": {"2": {"skip": True, "steps": 0, "toward": "up"}}},
        "PC99": {"effects": {"1": {"site": sites[-1]}, "2": {"pieces": [au]}}},
    }
    for instr in got["cards"].values():
        for raw in instr["effects"].values():
            assert _instruction(raw) == raw
    assert problems(driver) == [] and GAME.validate(state, "FR", got) == []
    resolved = GAME.resolve(state, {"FR": got}, PhaseRng(Rng(b"p1"), Rng(b"s1")))
    blocked = next(e for e in resolved.events if e["type"] == "blocked")
    assert blocked["power"] == "PA" and blocked["pieces"] == pa[1:3]


def test_merged_hussars_and_subsidies_ride_with_austrias_political_orders(driver: Any, tmp_path: Path) -> None:
    """M12.1 (pbem.rounds: merge_hussars_into_politics): Austria ticks its hussar cities in the
    politics round's form; a subsidy (M9.9) goes to a power that is not its enemy; peace is
    accepted or refused (M9.15). All pass pbem check's rules."""
    from selenium.webdriver.common.by import By

    from pbem.common.fair import PhaseRng, Rng
    from pbem.games.maria import GAME

    opts = {"pbem.rounds": "merge_hussars_into_politics"}
    state = GAME.new_game("advanced", opts, PhaseRng(Rng(b"mh-public"), Rng(b"mh-secret")))
    phase = GAME.current_phase(state)
    orders = {p: GAME.bot_orders(state, p, Rng(f"setup-{p}".encode())) for p in phase.powers}  # type: ignore[union-attr]
    state = GAME.resolve(state, orders, PhaseRng(Rng(b"p0"), Rng(b"s0"))).state
    legal = GAME.legal_orders(state, "AU")
    assert legal["kind"] == "politics" and legal["hussar_cities"] and legal["subsidy_to"]
    html = orderpage.order_page("maria", GAME, state, "maria_theresa", campaign="maria-m")
    assert html is not None
    page = tmp_path / "merged.html"
    page.write_text(html, encoding="utf-8")
    open_page(driver, page)
    wanted = legal["hussar_cities"][-2:][::-1]
    for city in wanted:
        driver.find_element(By.CSS_SELECTOR, f"#power-AU input[name=hussar][value={city}]").click()
    driver.find_element(By.ID, "add-subsidy-AU").click()
    select(driver, "#power-AU select[name=subsidy-to]", legal["subsidy_to"][0])
    select(driver, "#power-AU select[name=subsidy-card]", legal["hand"][0])
    select(driver, "#power-AU select[name=accept_peace]", "yes")
    got = page_orders(driver)["AU"]
    assert got == {"accept_peace": True, "subsidies": [{"to": legal["subsidy_to"][0], "card": legal["hand"][0]}],
                   "hussars": wanted}
    assert problems(driver) == [] and GAME.validate(state, "AU", got) == []
    assert not driver.find_elements(By.CSS_SELECTOR, "#power-PA select[name=accept_peace]")  # Austria's alone


def test_standing_answers_to_card_choices_in_the_order_ticked(driver: Any, tmp_path: Path) -> None:
    """M9.19, M12.3: in the advanced game the standing orders take the owner's answers to the
    choices cards leave to it, in the order ticked; pbem check finds nothing to object to, and
    the round stores them as the power's standing orders."""
    from selenium.webdriver.common.by import By

    from pbem.common.fair import PhaseRng, Rng
    from pbem.games.maria import GAME, model

    state = GAME.new_game("advanced", {}, PhaseRng(Rng(b"st-public"), Rng(b"st-secret")))
    phase = GAME.current_phase(state)
    orders = {p: GAME.bot_orders(state, p, Rng(f"setup-{p}".encode())) for p in phase.powers}  # type: ignore[union-attr]
    state = GAME.resolve(state, orders, PhaseRng(Rng(b"p0"), Rng(b"s0"))).state
    html = orderpage.order_page("maria", GAME, state, "frederick", campaign="maria-st")
    assert html is not None
    page = tmp_path / "standing.html"
    page.write_text(html, encoding="utf-8")
    open_page(driver, page)
    driver.find_element(By.CSS_SELECTOR, "#power-PR details.standing summary").click()
    own = sorted((g for g, v in state["generals"].items() if v["power"] == "PR"), key=lambda g: state["generals"][g]["rank"])
    gain = own[::-1][:2]  # the most junior first
    for g in gain:
        driver.find_element(By.CSS_SELECTOR, f"input[name=troop_gain_preference-PR][value={g}]").click()
    sites = list(model.reentry_sites(state, model.board_of(state), "PR"))
    driver.find_element(By.CSS_SELECTOR, f"input[name=train_site_preference-PR][value={sites[-1]}]").click()
    card = state["cards"]["hands"]["PR"][0]
    driver.find_element(By.CSS_SELECTOR, f"input[name=discard_preference-PR][value='{card}']").click()
    sent = page_orders(driver)["PR"]
    assert sent["standing"] == {"troop_gain_preference": gain, "train_site_preference": [sites[-1]],
                                "discard_preference": [card]}
    assert GAME.validate(state, "PR", sent) == []
    assert problems(driver) == []
    after = GAME.resolve(state, {"PR": sent}, PhaseRng(Rng(b"p1"), Rng(b"s1"))).state
    assert after["standing"]["PR"]["troop_gain_preference"] == gain
    assert after["standing"]["PR"]["train_site_preference"] == [sites[-1]]
