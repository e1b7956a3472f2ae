"""The order page shows the autopilot's suggestion (``pbem new --autopilot-suggest``) in its form,
in a real headless Chromium as ``test_orderpage_browser``: the form's own inputs and tick boxes
start from the autopilot's orders for the seat, the same the YAML form carries, a note says they
are only a suggestion, and the player changes them as any other entry. Without the option the
form starts empty and says nothing of an autopilot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import test_orderpage_browser as browser
from conftest import mailed_order_page, make_keys, player_args, run_cli
from test_orderpage_browser import load_key, open_page, page_orders, problems, select

from pbem.common.fair import Rng
from pbem.common.safeyaml import load_document
from pbem.core.campaign import Campaign
from pbem.games.ror import GAME as ROR
from pbem.render import orderpage

driver = browser.driver  # the same headless Chromium fixture, one browser for this module
NOW, LATER = browser.NOW, browser.LATER


def _campaign(root: Path, *extra: str) -> Path:
    keys = make_keys(root / "keys", browser.SEATS)
    camp = root / "camp"
    run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", "intro", "--id", "maria-s", "--now", NOW,
            *player_args(keys), *extra)
    return camp


def _latest(camp: Path, seat: str) -> tuple[Path, dict[str, Any]]:
    """The order page the publisher wrote for ``seat`` in the latest report, and the orders of
    the seat's YAML form there."""
    folder = sorted(camp.glob("reports/0*"))[-1]
    form = load_document((folder / "forms" / f"{seat}.yaml").read_text(encoding="utf-8"), "form").data
    page = mailed_order_page(camp, folder.name, seat)
    assert page is not None, f"no order page for {seat} in {folder.name}"
    return page, form["orders"]


def _note(drv: Any) -> str:
    from selenium.webdriver.common.by import By

    node = drv.find_element(By.ID, "suggested")
    return str(node.text) if node.is_displayed() else ""


def test_the_stage_form_starts_from_the_autopilots_moves(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    camp = _campaign(tmp_path, "--autopilot-suggest")
    for _ in range(3):  # set-up, hussars, France's stage: default orders
        run_cli("resolve", str(camp), "--force", "--now", LATER)
    page, suggested = _latest(camp, "frederick")
    assert suggested["PR"]["moves"], "the autopilot moves Prussia's generals"
    open_page(driver, page)
    assert "autopilot's suggestion" in _note(driver) and "only a suggestion" in _note(driver)
    # the form's own fields hold the moves: piece chosen, path written, as if the player had
    pieces = [s.get_attribute("value") for s in driver.find_elements(By.CSS_SELECTOR, "#power-PR select[name=piece]")]
    paths = [i.get_attribute("value") for i in driver.find_elements(By.CSS_SELECTOR, "#power-PR input[name=path]")]
    assert pieces == [m["piece"] for m in suggested["PR"]["moves"]]
    assert paths == [" ".join(m["path"]) for m in suggested["PR"]["moves"]]
    assert driver.find_element(By.CSS_SELECTOR, "#power-PR .stage-plan input[name=use_reserve]").is_selected()
    assert page_orders(driver) == suggested  # what the page would sign is the YAML form's suggestion
    assert problems(driver) == []
    # a suggestion, not a decision: the player changes a move like any other
    first = suggested["PR"]["moves"][0]
    legal = Campaign(camp).game().legal_orders(Campaign(camp).current()[1], "PR")
    other = sorted(c for c in legal["moves"][first["piece"]]["paths"] if c != first["path"][-1])[0]
    select(driver, "#power-PR select[name=destination]", f"n:{other}", 0)
    assert page_orders(driver)["PR"]["moves"][0]["path"][-1] == other
    # the draft the player made is kept over the suggestion when the page is opened again
    driver.refresh()
    assert page_orders(driver)["PR"]["moves"][0]["path"][-1] == other
    assert "autopilot's suggestion" in _note(driver)


def test_the_hussar_tick_boxes_start_ticked_as_the_autopilot_chose(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    camp = _campaign(tmp_path, "--autopilot-suggest")
    run_cli("resolve", str(camp), "--force", "--now", LATER)  # set-up; Austria's hussars next
    page, suggested = _latest(camp, "maria_theresa")
    assert suggested["AU"]["hussars"]
    open_page(driver, page)
    ticked = [b.get_attribute("value") for b in driver.find_elements(By.CSS_SELECTOR, "#power-AU input[name=hussar]")
              if b.is_selected()]
    assert sorted(ticked) == sorted(suggested["AU"]["hussars"])
    assert page_orders(driver)["AU"]["hussars"] == suggested["AU"]["hussars"]  # in the autopilot's order
    assert "autopilot's suggestion" in _note(driver)
    load_key(driver, tmp_path / "keys" / "maria_theresa.key")
    assert problems(driver) == []


def test_without_the_option_the_form_starts_empty_and_says_nothing(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    camp = _campaign(tmp_path)
    run_cli("resolve", str(camp), "--force", "--now", LATER)
    page, _ = _latest(camp, "maria_theresa")
    open_page(driver, page)
    assert _note(driver) == ""
    assert not [b for b in driver.find_elements(By.CSS_SELECTOR, "#power-AU input[name=hussar]") if b.is_selected()]


def test_the_rome_form_starts_from_the_autopilots_orders(driver: Any, tmp_path: Path) -> None:
    """Rome's senate round: the dispatch the autopilot would send fills the army rows."""
    from pbem.demo import run_demo

    result = run_demo(tmp_path, "ror", "early", 1741, stop_at=lambda ph: ph.kind == "senate")
    camp = Campaign(result.campaign)
    _, state = camp.current()
    phase = ROR.current_phase(state)
    assert phase is not None and phase.kind == "senate"
    power = phase.powers[0]
    seat = str(ROR.seat_of(state, power))
    suggested = {power: ROR.autopilot_orders(state, power, Rng(b"suggest-test"))}
    assert suggested[power].get("dispatch") or suggested[power].get("reinforce")
    html = orderpage.order_page("ror", ROR, state, seat, campaign=camp.id, suggested=suggested)
    assert html is not None
    page = tmp_path / "ror-suggested.html"
    page.write_text(html, encoding="utf-8")
    open_page(driver, page)
    assert "autopilot's suggestion" in _note(driver)
    got = page_orders(driver)[power]
    for key in ("dispatch", "reinforce", "declarations", "attack"):
        assert got.get(key) == suggested[power].get(key), key
    want = {k: v for k, v in suggested[power].get("standing", {}).items() if v != []}  # an empty list is sent as none
    assert got.get("standing", {}) == want


def _first_of_each_kind() -> list[tuple[str, dict[str, Any], str]]:
    """(kind, state, seat): the first round of each kind of a bot-played advanced Maria game where
    the autopilot has orders to suggest to the seat."""
    from pbem.common.fair import PhaseRng
    from pbem.games.maria import GAME as MARIA
    from pbem.games.maria import bots
    from pbem.games.maria.orders import kind_of

    root = Rng(b"suggest-kinds")
    state = MARIA.new_game("advanced", {}, PhaseRng(root.fork("p"), root.fork("s")))
    found: dict[str, tuple[str, dict[str, Any], str]] = {}
    for n in range(400):
        phase = MARIA.current_phase(state)
        if phase is None or len(found) == 5:
            break
        kind = kind_of(state)
        if kind not in found:
            found[kind] = (kind, state, str(MARIA.seat_of(state, phase.powers[0])))
        orders = {p: bots.bot_orders(state, p, root.fork(f"o{n}{p}")) for p in phase.powers}
        state = MARIA.resolve(state, orders, PhaseRng(root.fork(f"p{n}"), root.fork(f"s{n}"))).state
    return list(found.values())


def _same(orders: dict[str, Any]) -> dict[str, Any]:
    """Orders as the page collects them: lists of mappings in any order, an empty list or an
    all-pass bid as none."""
    out = {}
    for key, value in orders.items():
        if value == [] or key == "bid" and set(value.values()) == {"pass"}:
            continue
        if isinstance(value, list) and value and isinstance(value[0], dict):
            value = sorted(value, key=lambda v: json.dumps(v, sort_keys=True))
        out[key] = value
    return out


def test_every_kind_of_maria_round_fills_the_form_as_the_autopilot_suggests(driver: Any, tmp_path: Path) -> None:
    """Set-up, hussars, stages, winter and politics: what the page would sign is the suggestion."""
    from pbem.games.maria import GAME as MARIA

    kinds = _first_of_each_kind()
    assert {k for k, _, _ in kinds} == {"setup", "hussars", "stage", "winter", "politics"}
    for kind, state, seat in kinds:
        powers = [p for p in MARIA.current_phase(state).powers if MARIA.seat_of(state, p) == seat]  # type: ignore[union-attr]
        suggested = {p: MARIA.autopilot_orders(state, p, Rng(f"suggest-{kind}-{p}".encode())) for p in powers}
        html = orderpage.order_page("maria", MARIA, state, seat, campaign="maria-k", suggested=suggested)
        assert html is not None
        page = tmp_path / f"{kind}.html"
        page.write_text(html, encoding="utf-8")
        open_page(driver, page)
        assert "autopilot's suggestion" in _note(driver), kind
        got = page_orders(driver)
        for p in powers:
            assert _same(got[p]) == _same(suggested[p]), (kind, p)
