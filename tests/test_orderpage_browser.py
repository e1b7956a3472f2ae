"""The offline order page in a real headless Chromium (Debian's chromium + chromium-driver,
driven by Selenium, which is pointed at /usr/bin/chromedriver and never downloads a driver).

A player loads a key, fills a move and a battle plan and signs; the file passes ``pbem verify``
and ``pbem intake`` like one signed by ``pbem sign``. An illegal move shows the sentences of
``pbem check`` and is not signed. The page asks the network for nothing and weighs < 300 KB."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from conftest import make_keys, player_args, run_cli

from pbem.common.canonical import canonical
from pbem.common.safeyaml import load_document
from pbem.core.campaign import Campaign
from pbem.core.envelope import parse_order_document, verify_signature
from pbem.core.keys import load_private_key
from pbem.core.signer import prepare
from pbem.render import orderpage

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
INSTALL_HINT = "apt-get install -y chromium chromium-driver && pip install selenium"
NOW = "2026-12-01T12:00:00Z"
LATER = "2026-12-01T13:00:00Z"
SEATS = ("maria_theresa", "louis", "frederick")
MAX_BYTES = 300 * 1024


def check_agrees_and_signing_is_refused(driver: Any, tmp_path: Path, campaign_dir: Path, header: dict[str, str],
                                        orders: dict[str, Any], expected: list[str]) -> str:
    """``pbem check`` says the ``expected`` lines of the same orders, and the page will not sign
    them, even with its button forced on; returns the page's status line."""
    from selenium.webdriver.common.by import By

    unsigned = tmp_path / "unsigned.yaml"
    unsigned.write_text(json.dumps({"pbem": 1, **header, "seq": 1, "orders": orders}), encoding="utf-8")
    out = run_cli("check", str(unsigned), "--campaign", str(campaign_dir), ok=False)
    assert out.exit_code == 1
    for line in expected:
        assert line in out.output
    assert not driver.find_element(By.ID, "sign").is_enabled()
    driver.execute_script("document.getElementById('sign').disabled = false; document.getElementById('sign').click();")
    assert driver.find_element(By.ID, "signed").get_attribute("value") == ""
    return str(driver.find_element(By.ID, "sign-status").text)


def require_browser() -> None:
    """Fail (not skip) with the install hint when the browser, its driver or Selenium is missing."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            pytest.fail(f"{path} is missing; install it: {INSTALL_HINT}")
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.fail(f"selenium is missing; install it: {INSTALL_HINT}")


def chromium_flags(profile: Path) -> list[str]:
    """Headless, no network: every name resolves to nothing and every proxy request goes to a
    closed port, so anything the page tried to fetch would fail and show in the log."""
    return [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={profile}", '--host-resolver-rules=MAP * ~NOTFOUND', "--proxy-server=127.0.0.1:9",
        "--window-size=1280,1600",
    ]


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in chromium_flags(tmp_path_factory.mktemp("chromium-profile")):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    downloads = tmp_path_factory.mktemp("downloads")
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    drv = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    drv.downloads = downloads
    drv.set_script_timeout(30)
    try:
        yield drv
    finally:
        drv.quit()


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A Maria intro campaign resolved by default orders up to Prussia's first stage."""
    root = tmp_path_factory.mktemp("orderpage")
    keys = make_keys(root / "keys", SEATS)
    camp = root / "camp"
    run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", "intro", "--id", "maria-t", "--now", NOW,
            "--lang", "louis=zh-TW", *player_args(keys))
    for _ in range(3):  # set-up, hussars, France's stage: default orders
        run_cli("resolve", str(camp), "--force", "--now", LATER)
    c = Campaign(camp)
    _, state = c.current()
    phase = c.game().current_phase(state)
    assert phase is not None and phase.id == "1741-1/prussia"
    return {"dir": camp, "keys": keys, "state": state, "camp": c}


def write_page(campaign: dict[str, Any], tmp_path: Path, seat: str = "frederick", lang: str = "en") -> Path:
    camp = campaign["camp"]
    html = orderpage.order_page("maria", camp.game(), campaign["state"], seat, campaign=camp.id, lang=lang,
                                pubkey=camp.roster()[seat].key.line())
    assert html is not None
    path = tmp_path / f"orders-{seat}.html"
    path.write_text(html, encoding="utf-8")
    assert path.stat().st_size < MAX_BYTES, f"the page weighs {path.stat().st_size} bytes"
    return path


def open_page(driver: Any, page: Path) -> None:
    driver.get(page.as_uri())
    driver.execute_script("window.localStorage.clear();")
    driver.get(page.as_uri())
    driver.get_log("performance")  # start the request log afresh for this page
    driver.refresh()


def requests_made(driver: Any) -> list[str]:
    urls = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    return urls


def load_key(driver: Any, key: Path) -> str:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.find_element(By.ID, "key-file").send_keys(str(key))
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "key-status").text)
    return str(driver.find_element(By.ID, "key-status").text)


def select(driver: Any, css: str, value: str, index: int = -1) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_elements(By.CSS_SELECTOR, css)[index]).select_by_value(value)


def problems(driver: Any) -> list[str]:
    """The problems the page lists, as pbem check words them (a zh-TW page shows them in
    Chinese and keeps pbem check's line in data-check)."""
    from selenium.webdriver.common.by import By

    return [li.get_attribute("data-check") for li in driver.find_elements(By.CSS_SELECTOR, "#problems li.problem")]


def sign(driver: Any) -> str:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    before = driver.find_element(By.ID, "signed").get_attribute("value")
    driver.find_element(By.ID, "sign").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "signed").get_attribute("value") not in ("", before))
    return str(driver.find_element(By.ID, "signed").get_attribute("value"))


def page_orders(driver: Any) -> dict[str, Any]:
    return driver.execute_script("return PBEM.current().orders;")  # type: ignore[no-any-return]


def test_missing_driver_fails_with_the_install_hint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(f"{__name__}.CHROMEDRIVER", str(tmp_path / "no-chromedriver"))
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y chromium chromium-driver"):
        require_browser()


def test_move_and_battle_plan_signed_verified_and_accepted(driver: Any, campaign: dict[str, Any], tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    page = write_page(campaign, tmp_path)
    open_page(driver, page)
    status = load_key(driver, campaign["keys"]["frederick"])
    assert "ed25519:" in status and "roster" not in status
    state, game = campaign["state"], campaign["camp"].game()
    legal = game.legal_orders(state, "PR")
    dest = sorted(legal["moves"]["friedrich"]["paths"])[0]
    # a move: Friedrich to the first destination the form offers
    driver.find_element(By.ID, "add-move-PR").click()
    select(driver, "#power-PR select[name=piece]", "friedrich")
    select(driver, "#power-PR select[name=destination]", "n:" + dest)
    # a battle with its plan, against a general that will not stand next to him (no battle can be
    # fought in Prussia's first stage): the page says what pbem check says, and will not sign
    driver.find_element(By.ID, "add-battle-PR").click()
    select(driver, "#power-PR select[name=attacker]", "friedrich")
    defender = driver.find_elements(By.CSS_SELECTOR, "#power-PR select[name=defender] option")[1].get_attribute("value")
    select(driver, "#power-PR select[name=defender]", defender)
    battle = driver.find_element(By.CSS_SELECTOR, "#power-PR .row.battle")
    battle.find_element(By.NAME, "max_cards").send_keys("3")
    battle.find_element(By.NAME, "use_reserve").click()
    driver.find_element(By.CSS_SELECTOR, "#power-PR .plan.stage-plan").find_element(By.NAME, "concede_if_behind_by").send_keys("9")
    battle_name = f"friedrich>{defender}"
    move = {"piece": "friedrich", "path": legal["moves"]["friedrich"]["paths"][dest]}
    far = page_orders(driver)
    assert far["PR"] == {"moves": [move], "battles": [battle_name],
                         "plans": {battle_name: {"max_cards": 3, "use_reserve": True}, "stage": {"concede_if_behind_by": 9}}}
    (line,) = problems(driver)
    assert "do not stand on adjacent cities, so there is no battle " + battle_name + " (M5.1)" in line
    check_agrees_and_signing_is_refused(driver, tmp_path, campaign["dir"],
                                        {"campaign": "maria-t", "player": "frederick", "phase": "1741-1/prussia"},
                                        far, [line.split(": ", 1)[-1] if ": " in line else line])
    battle.find_element(By.XPATH, ".//button[@type='button']").click()  # Remove
    assert problems(driver) == []
    # the planned move is drawn over the map
    drawn = "return [document.querySelectorAll('svg.overlay .planned-move').length, document.querySelectorAll('svg.overlay .planned-battle').length];"
    WebDriverWait(driver, 10).until(lambda d: d.execute_script(drawn) == [1, 0])
    text = sign(driver)

    assert text.startswith("pbem: 1\n")
    signed = tmp_path / "signed.yaml"
    signed.write_text(text, encoding="utf-8")
    doc = parse_order_document(signed.read_bytes(), str(signed))
    verify_signature(doc, campaign["camp"].roster()["frederick"].key)
    assert doc.orders["PR"] == {"moves": [move], "plans": {"stage": {"concede_if_behind_by": 9}}}
    assert doc.orders["SX"] == {}
    # seq and entropy as pbem sign fills them: the first file of this seat, nothing to reveal
    store = driver.execute_script("return PBEM.loadStore();")
    slot = store["maria-t/frederick"]
    assert doc.seq == 1 and doc.entropy_reveal is None
    assert doc.entropy_commit == hashlib.sha256(bytes.fromhex(slot["value"])).hexdigest()
    expected, expected_store = prepare({k: v for k, v in doc.data.items() if k not in ("signature", "seq", "entropy_commit")},
                                       {}, bytes.fromhex(slot["value"]))
    assert {k: v for k, v in doc.data.items() if k != "signature"} == expected
    assert store == expected_store

    run_cli("verify", str(signed), "--campaign", str(campaign["dir"]))
    run_cli("check", str(signed), "--campaign", str(campaign["dir"]))
    out = run_cli("intake", str(campaign["dir"]), str(signed), "--now", LATER).output
    assert "accepted: signed.yaml: frederick seq 1\n" in out and "0 refused" in out

    # a correction in the same phase: same commitment, higher seq, accepted in its place
    driver.find_element(By.ID, "power-SX").find_element(By.ID, "add-move-SX").click()
    select(driver, "#power-SX select[name=piece]", "rutowski")
    rut = sorted(game.legal_orders(state, "SX")["moves"]["rutowski"]["paths"])[0]
    select(driver, "#power-SX select[name=destination]", "n:" + rut)
    text2 = sign(driver)
    # "Save as file" downloads exactly the text shown
    driver.find_element(By.ID, "save").click()
    saved = driver.downloads / "orders-1741-1_prussia-frederick-seq2.yaml"
    WebDriverWait(driver, 10).until(lambda d: saved.is_file() and saved.read_text(encoding="utf-8") == text2)
    doc2 = parse_order_document(saved.read_bytes(), str(saved))
    assert doc2.seq == 2 and doc2.entropy_commit == doc.entropy_commit and doc2.entropy_reveal is None
    assert doc2.orders["SX"]["moves"][0]["piece"] == "rutowski"
    # pasted into the body of a mail, it is found there and accepted in place of seq 1
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "frederick@example.org", "gm@example.org", "orders"
    mail.set_content("Here are my orders.\n\n" + text2)
    eml = tmp_path / "orders.eml"
    eml.write_bytes(mail.as_bytes())
    out = run_cli("intake", str(campaign["dir"]), str(eml), "--now", LATER).output
    assert "frederick seq 2" in out and "1 accepted, 0 refused" in out, out

    urls = requests_made(driver)
    assert urls and all(u.startswith(("file:", "data:", "blob:")) for u in urls), urls


def fill_illegal_moves(driver: Any, legal: dict[str, Any]) -> None:
    """Friedrich marches to Vienna through a town that does not exist, and moves a second time
    by force march off the main roads."""
    from selenium.webdriver.common.by import By

    far = "wien"  # nowhere near Silesia: not a road neighbour, and too far
    driver.find_element(By.ID, "add-move-PR").click()
    select(driver, "#power-PR select[name=piece]", "friedrich")
    path = driver.find_element(By.CSS_SELECTOR, "#power-PR input[name=path]")
    first = legal["moves"]["friedrich"]["paths"][sorted(legal["moves"]["friedrich"]["paths"])[0]][0]
    path.send_keys(f"{first} {far} nowhere_town {far} {far}")
    driver.find_element(By.ID, "add-move-PR").click()
    select(driver, "#power-PR select[name=piece]", "friedrich")
    path2 = driver.find_elements(By.CSS_SELECTOR, "#power-PR input[name=path]")[-1]
    path2.send_keys(first)
    driver.find_elements(By.CSS_SELECTOR, "#power-PR input[name=force_march]")[-1].click()


def test_illegal_move_shows_pbem_checks_words_and_is_not_signed(driver: Any, campaign: dict[str, Any], tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    page = write_page(campaign, tmp_path)
    open_page(driver, page)
    load_key(driver, campaign["keys"]["frederick"])
    state, game = campaign["state"], campaign["camp"].game()
    fill_illegal_moves(driver, game.legal_orders(state, "PR"))
    orders = page_orders(driver)
    shown = problems(driver)
    expected = [f"{p.path}: {p.message}" for p in game.validate(state, "PR", orders["PR"])]
    assert len(expected) >= 3
    assert shown == expected
    status = check_agrees_and_signing_is_refused(
        driver, tmp_path, campaign["dir"], {"campaign": "maria-t", "player": "frederick", "phase": "1741-1/prussia"},
        orders, expected)
    assert "Fix the problems" in status
    # an edited path the engine did not offer is flagged as something only the adjudicator can judge
    notes = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#notes li")]
    assert any("orders.PR.moves[0].path" in n and "adjudicator" in n for n in notes)


def test_a_chinese_page_says_pbem_checks_sentences_in_chinese(driver: Any, campaign: dict[str, Any],
                                                              tmp_path: Path) -> None:
    """A zh-TW player reads each problem in Chinese, with the city and general names of the
    Chinese map; pbem check's own English line stays with it (data-check, and the tooltip)."""
    from selenium.webdriver.common.by import By

    open_page(driver, write_page(campaign, tmp_path, lang="zh-TW"))
    state, game = campaign["state"], campaign["camp"].game()
    fill_illegal_moves(driver, game.legal_orders(state, "PR"))
    orders = page_orders(driver)
    expected = [f"{p.path}: {p.message}" for p in game.validate(state, "PR", orders["PR"])]
    assert problems(driver) == expected
    items = driver.find_elements(By.CSS_SELECTOR, "#problems li.problem")
    for li, check in zip(items, expected, strict=True):
        text = li.text
        assert re.search(r"[\u4e00-\u9fff]", text) and text != check, text
        assert li.get_attribute("title") == check
        assert text.split(": ", 1)[0] == check.split(": ", 1)[0]  # the same path into the file
    shown = " ".join(li.text for li in items)
    assert "維也納" in shown and "Wien" not in shown  # the city as the Chinese map names it
    assert "「nowhere_town」" in shown  # what the player typed stays as typed


def test_a_foreign_key_is_named_and_signing_still_verifies_against_it(driver: Any, campaign: dict[str, Any], tmp_path: Path) -> None:
    page = write_page(campaign, tmp_path)
    open_page(driver, page)
    status = load_key(driver, campaign["keys"]["louis"])
    assert "not the roster key" in status
    pub = load_private_key(campaign["keys"]["louis"]).public().sign_id
    assert pub[:24] in status


def test_canonical_json_and_yaml_match_python(driver: Any, campaign: dict[str, Any], tmp_path: Path) -> None:
    open_page(driver, write_page(campaign, tmp_path))
    values: list[Any] = [
        {"b": 1, "a": [1, -2, 0, 10**15], "ä": "Brünn", "中": "維也納", "": None, "t": True, "f": False},
        {"q": 'say "hi"\\ \n\t\r\b\f \x01 \x1f \x7f \x85 \u2028 \u2029 \ufeff \U0001F600', "\ue000": 1, "\U0001F600": 2, "z": {}},
        {"plans": {"friedrich>neipperg": {"prefer": ["H7.2", "R.3a"], "retreat": []}}, "yes": "no", "on": "null"},
        [{"stack": ["a", "b"], "path": ["c"]}, [], [[1, 2], {"x": [{"y": "z"}]}]],
        # long values: no line over 72 characters, so a mail client has nothing to wrap
        {"entropy_commit": "9b" * 32, "signature": {"key": "ed25519:" + "ab" * 32, "value": "Qk+/" * 22},
         "orders": {"N": {"note": "Für Maria Theresia — " + "lange  Zeile " * 12 + "\"x\" \u2028 \\ end",
                          "zh": "維也納" * 40, "path": ["neumarkt_in_schlesien"] * 9, "bids": list(range(10**6, 10**6 + 30)),
                          "mixed": ["a, b", "c,  d", 1, None, "x" * 80]}}},
    ]
    for value in values:
        got = driver.execute_script("return PBEM.canonical(arguments[0]);", value)
        assert got.encode("utf-8") == canonical(value), value
        yaml_text = driver.execute_script("return PBEM.toYaml(arguments[0]);", value if isinstance(value, dict) else {"v": value})
        back = load_document(yaml_text.encode("utf-8"), "page").data
        assert max(len(line) for line in yaml_text.splitlines()) <= 72, yaml_text
        assert back == (value if isinstance(value, dict) else {"v": value}), yaml_text


def test_entropy_imported_from_pbem_sign_is_revealed(driver: Any, campaign: dict[str, Any], tmp_path: Path) -> None:
    """A player who signed the last phase with ``pbem sign`` imports KEY.state.json; the page then
    reveals the value committed there, as ``pbem sign`` would, and commits a fresh one."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    open_page(driver, write_page(campaign, tmp_path))
    value = "5a" * 32
    state_file = tmp_path / "frederick.key.state.json"
    state_file.write_text(json.dumps({"maria-t/frederick": {"phase": "1741-1/hussars", "reveal": None, "value": value, "seq": 1}}))
    driver.find_element(By.ID, "import-file").send_keys(str(state_file))
    WebDriverWait(driver, 10).until(lambda d: "1" in d.find_element(By.ID, "entropy-status").text)
    load_key(driver, campaign["keys"]["frederick"])
    signed = tmp_path / "signed.yaml"
    signed.write_text(sign(driver), encoding="utf-8")
    doc = parse_order_document(signed.read_bytes(), str(signed))
    assert doc.entropy_reveal == value and doc.seq == 1
    slot = driver.execute_script("return PBEM.loadStore();")["maria-t/frederick"]
    assert slot["reveal"] == value and slot["value"] != value and slot["phase"] == "1741-1/prussia"
    assert doc.entropy_commit == hashlib.sha256(bytes.fromhex(slot["value"])).hexdigest()
    verify_signature(doc, campaign["camp"].roster()["frederick"].key)


def test_chinese_page_draws_its_map(driver: Any, campaign: dict[str, Any], tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    open_page(driver, write_page(campaign, tmp_path, lang="zh-TW"))
    WebDriverWait(driver, 10).until(lambda d: d.execute_script(
        "var i = document.getElementById('map-image'); return i && i.complete && i.naturalWidth > 0;"))
    assert driver.find_element(By.ID, "sign").text == "簽署"
    assert driver.find_element(By.ID, "h-orders").text == "命令"
    urls = requests_made(driver)
    assert all(u.startswith(("file:", "data:", "blob:")) for u in urls), urls



def test_setup_split_shows_pbem_checks_words(driver: Any, tmp_path: Path) -> None:
    """The set-up round: the troop split form starts at the minimums; a split that does not add
    up shows split_problem's sentence, and one that does can be signed."""
    from selenium.webdriver.common.by import By

    from pbem.common.fair import PhaseRng, Rng
    from pbem.games.maria import GAME

    state = GAME.new_game("intro", {}, PhaseRng(Rng(b"setup-public"), Rng(b"setup-secret")))
    html = orderpage.order_page("maria", GAME, state, "louis", campaign="maria-s")
    assert html is not None
    page = tmp_path / "setup.html"
    page.write_text(html, encoding="utf-8")
    open_page(driver, page)
    def same_as_python() -> list[str]:
        orders = page_orders(driver)
        expected = [f"{p.path}: {p.message}" for power in ("FR", "BA") for p in GAME.validate(state, power, orders[power])]
        assert problems(driver) == expected
        return expected

    legal = GAME.legal_orders(state, "FR")
    first = min(legal["generals"], key=lambda g: state["generals"][g]["rank"])
    box = driver.find_element(By.NAME, f"troops-{first}")
    for value, words in [(str(legal["generals"][first]["min"] + 1), "the split adds up to"), ("99", "troops, not 99"),
                         ("", "needs a number of troops")]:
        box.clear()
        if value:
            box.send_keys(value)
        shown = same_as_python()
        assert len(shown) == 1 and words in shown[0], shown
        assert not driver.find_element(By.ID, "sign").is_enabled()
    box.send_keys(str(legal["generals"][first]["min"]))  # the minimums add up to the total here
    assert same_as_python() == []
    assert driver.find_element(By.ID, "sign").is_enabled() is False  # no key loaded yet
    assert "Load your key" in driver.find_element(By.ID, "sign-status").text


def test_hussar_cities_go_in_the_order_ticked(driver: Any, tmp_path: Path) -> None:
    """M7.1: the first valid cities of Austria's list are used, so the page keeps the order in
    which the player ticks them, and says that cities past the number in force stand by."""
    from selenium.webdriver.common.by import By

    from pbem.common.fair import PhaseRng, Rng
    from pbem.games.maria import GAME

    state = GAME.new_game("intro", {}, PhaseRng(Rng(b"hussar-public"), Rng(b"hussar-secret")))
    for n in range(3):
        phase = GAME.current_phase(state)
        assert phase is not None
        if phase.kind == "hussars":
            break
        orders = {p: GAME.bot_orders(state, p, Rng(f"bot-{n}-{p}".encode())) for p in phase.powers}
        state = GAME.resolve(state, orders, PhaseRng(Rng(f"p{n}".encode()), Rng(f"s{n}".encode()))).state
    assert GAME.current_phase(state).kind == "hussars"  # type: ignore[union-attr]
    html = orderpage.order_page("maria", GAME, state, "maria_theresa", campaign="maria-h")
    assert html is not None
    page = tmp_path / "hussars.html"
    page.write_text(html, encoding="utf-8")
    open_page(driver, page)
    legal = GAME.legal_orders(state, "AU")
    wanted = list(reversed(legal["cities"]))[: legal["count"] + 1]
    for city in wanted:
        driver.find_element(By.CSS_SELECTOR, f"input[name=hussar][value={city}]").click()
    orders = page_orders(driver)
    assert orders["AU"]["hussars"] == wanted
    assert problems(driver) == [] and GAME.validate(state, "AU", orders["AU"]) == []
    notes = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#notes li")]
    assert any("orders.AU.hussars" in n and "(M7.1)" in n for n in notes)
    driver.find_element(By.CSS_SELECTOR, f"input[name=hussar][value={wanted[0]}]").click()  # untick the first
    assert page_orders(driver)["AU"]["hussars"] == wanted[1:]


def test_standing_orders_checked_like_pbem_check(driver: Any, campaign: dict[str, Any], tmp_path: Path) -> None:
    """M12.3: standing orders ride along with any round's orders; the page checks them with the
    same sentences, and a valid set is signed and accepted."""
    from selenium.webdriver.common.by import By

    open_page(driver, write_page(campaign, tmp_path))
    state, game = campaign["state"], campaign["camp"].game()
    box = driver.find_element(By.ID, "power-SX")
    box.find_element(By.CSS_SELECTOR, "details.standing summary").click()
    select(driver, "#power-SX select[name=hussar_policy]", "pay_up_to")
    amount = box.find_element(By.NAME, "pay_up_to")
    amount.send_keys("-1")
    box.find_element(By.CSS_SELECTOR, "details.standing input[name=max_points]").send_keys("-2")
    orders = page_orders(driver)
    expected = [f"{p.path}: {p.message}" for p in game.validate(state, "SX", orders["SX"])]
    assert problems(driver) == expected and len(expected) == 2
    assert "orders.SX.standing.hussar_policy: must be pay, refuse or {pay_up_to: N} (M12.3)" in expected
    amount.clear()
    amount.send_keys("3")
    points = box.find_element(By.CSS_SELECTOR, "details.standing input[name=max_points]")
    points.clear()
    points.send_keys("6")
    orders = page_orders(driver)
    assert orders["SX"] == {"standing": {"default_plan": {"max_points": 6}, "hussar_policy": {"pay_up_to": 3}}}
    assert problems(driver) == [] and game.validate(state, "SX", orders["SX"]) == []
    load_key(driver, campaign["keys"]["frederick"])
    signed = tmp_path / "standing.yaml"
    signed.write_text(sign(driver), encoding="utf-8")
    run_cli("check", str(signed), "--campaign", str(campaign["dir"]))
    verify_signature(parse_order_document(signed.read_bytes(), str(signed)), campaign["camp"].roster()["frederick"].key)


def test_the_form_survives_a_reload(driver: Any, campaign: dict[str, Any], tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    page = write_page(campaign, tmp_path)
    open_page(driver, page)
    driver.find_element(By.ID, "add-move-PR").click()
    select(driver, "#power-PR select[name=piece]", "leopold")
    driver.find_element(By.CSS_SELECTOR, "#power-PR input[name=path]").send_keys("sagan")
    before = page_orders(driver)
    assert before["PR"]["moves"] == [{"piece": "leopold", "path": ["sagan"]}]
    driver.refresh()
    assert page_orders(driver) == before
    assert driver.find_element(By.CSS_SELECTOR, "#power-PR input[name=path]").get_attribute("value") == "sagan"
