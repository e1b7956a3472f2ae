"""The offline order page as text: self-contained, small, private to its seat, deterministic,
in the seat's language. The page's behaviour in a real browser is in test_orderpage_browser.py."""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pbem.common.fair import PhaseRng, Rng
from pbem.data import templates_dir
from pbem.games.maria import GAME
from pbem.render import orderpage, pagekit
from pbem.render.orderpage import unpack

MAX_BYTES = 300 * 1024


def _rng(label: str) -> PhaseRng:
    return PhaseRng(Rng(f"{label}-public".encode()), Rng(f"{label}-secret".encode()))


@cache
def _state_at(phase_suffix: str) -> str:
    """A Maria intro state played by the bots up to the first phase whose id ends with
    ``phase_suffix`` (as JSON, so each test gets its own copy)."""
    state = GAME.new_game("intro", {}, _rng("orderpage"))
    for n in range(40):
        phase = GAME.current_phase(state)
        assert phase is not None
        if phase.id.endswith(phase_suffix):
            return json.dumps(state)
        orders = {p: GAME.bot_orders(state, p, Rng(f"bot-{n}-{p}".encode())) for p in phase.powers}
        state = GAME.resolve(state, orders, _rng(f"round-{n}")).state
    raise AssertionError(f"no phase {phase_suffix} in 40 rounds")


def state_at(phase_suffix: str) -> dict[str, Any]:
    return json.loads(_state_at(phase_suffix))  # type: ignore[no-any-return]


def page_parts(html: str) -> tuple[dict[str, Any], str]:
    """The embedded data and the map SVG of a page."""
    data = re.search(r'<script type="text/plain" id="pbem-pack">(.*?)</script>', html, re.S)
    packed = re.search(r'<script type="text/plain" id="pbem-map">(.*?)</script>', html, re.S)
    assert data and packed
    svg = unpack(packed.group(1)).decode("utf-8")
    assert "<title>" not in svg, "the map is shown as a picture, which shows no tooltips"
    return json.loads(unpack(data.group(1))), svg


def page_code(html: str) -> str:
    """The page's code, unpacked; it must be pbem's own scripts, as the page's note says."""
    code = re.search(r'<script type="text/plain" id="pbem-code">(.*?)</script>', html, re.S)
    note = re.search(r"SHA-256 of the code: ([0-9a-f]{64})", html)
    assert code and note
    text = unpack(code.group(1)).decode("utf-8")
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == note.group(1)
    own = [(templates_dir() / "orderpage" / name).read_text(encoding="utf-8") for name in ("orderfile.js", "orderpage.js")]
    assert text.startswith(pagekit.lean_script("\n".join(own)))
    return text


@pytest.fixture(scope="module")
def stage() -> dict[str, Any]:
    return state_at("/prussia")


def test_page_is_self_contained_and_small(stage: dict[str, Any]) -> None:
    html = order_page(stage, "frederick")
    assert len(html.encode("utf-8")) < MAX_BYTES
    # the whole map, lean (no tooltips, no ids nothing refers to), and the code without its
    # comments: 113 KB here (130 KB before); a page rides in every mail of a seat that owes orders
    assert len(html.encode("utf-8")) < 120_000
    # nothing that would fetch: no external script, style, font, image or frame
    assert not re.search(r"<(script|img|link|iframe)[^>]*\s(src|href)=", html, re.I)
    # (the SVG namespace name the overlay layer is made with is a name, not a fetch)
    code = page_code(html)
    for text in (html, code):
        assert not re.search(r"https?://|@import|\burl\(", text.replace("http://www.w3.org/2000/svg", ""))
    assert not re.search(r"\b(fetch|XMLHttpRequest|WebSocket|EventSource|sendBeacon)\b", code)
    assert "connect-src 'none'" in html  # and the page's own policy forbids it anyway
    data, svg = page_parts(html)
    assert svg.startswith("<svg") and "Prussia" in svg
    assert data["campaign"] == "maria-t" and data["seat"] == "frederick" and data["phase"] == "1741-1/prussia"


def order_page(state: dict[str, Any], seat: str, lang: str = "en") -> str:
    html = orderpage.order_page("maria", GAME, state, seat, campaign="maria-t", lang=lang,
                                pubkey="ed25519:" + "ab" * 32 + " x25519:" + "cd" * 32 + " fritz")
    assert html is not None
    return html


def test_page_holds_only_what_the_seat_may_see(stage: dict[str, Any]) -> None:
    data, _ = page_parts(order_page(stage, "frederick"))
    assert data["powers"] == ["PR", "SX"]
    assert sorted(data["legal"]) == ["PR", "SX"] and sorted(data["own"]) == ["PR", "SX"]
    assert data["pubkey"] == "ed25519:" + "ab" * 32
    text = json.dumps(data)
    for power, hand in stage["cards"]["hands"].items():
        for card in hand:
            # a card id is quoted in the data only if it is in one of the seat's own hands
            assert (f'"{card}"' in text) == (power in ("PR", "SX")), (power, card)
    for card in stage["cards"]["draw"]:
        assert f'"{card}"' not in text
    for gid, piece in data["pieces"].items():
        assert "troops" not in piece, gid
    own_troops = {g: v["troops"] for g, v in stage["generals"].items() if v["power"] in ("PR", "SX") and v["city"]}
    assert {g: t for p in data["own"].values() for g, t in p["troops"].items()} == own_troops


def test_the_legal_choices_are_the_engines(stage: dict[str, Any]) -> None:
    data, _ = page_parts(order_page(stage, "frederick"))
    for power in ("PR", "SX"):
        assert data["legal"][power] == json.loads(json.dumps(GAME.legal_orders(stage, power)))
    # every destination the engine offers is on the page's road map, with its path
    ids = [c[0] for c in data["map"]["cities"]]
    flat = data["map"]["roads"]
    roads = {(ids[flat[i]], ids[flat[i + 1]]) for i in range(0, len(flat), 3)}
    for piece, choice in data["legal"]["PR"]["moves"].items():
        here = data["pieces"][piece]["city"]
        for dest, path in choice["paths"].items():
            assert path[-1] == dest
            for a, b in zip([here, *path[:-1]], path, strict=True):
                assert (min(a, b), max(a, b)) in roads


def test_no_page_for_a_seat_without_orders(stage: dict[str, Any]) -> None:
    assert orderpage.order_page("maria", GAME, stage, "maria_theresa", campaign="maria-t") is None


def test_same_input_same_bytes(stage: dict[str, Any]) -> None:
    assert order_page(stage, "frederick") == order_page(stage, "frederick")


def test_chinese_page(stage: dict[str, Any]) -> None:
    html = order_page(stage, "frederick", "zh-TW")
    data, svg = page_parts(html)
    assert '<html lang="zh-TW">' in html
    assert data["text"]["Sign"] == "簽署" and data["text"]["Moves"] == "移動"
    # city names shown in Chinese where the map has them; pbem check's English names kept
    cities = {c[0]: c for c in data["map"]["cities"]}
    assert cities["wien"][1] == "Wien" and cities["wien"][4] == "維也納"
    assert data["map"]["maps"][cities["wien"][3]] == "bohemia"
    assert "維也納" in svg
    assert len(html.encode("utf-8")) < MAX_BYTES


def test_every_word_has_a_chinese_form() -> None:
    zh = orderpage.message_table("zh-TW")
    en = orderpage.message_table("en")
    assert set(zh) == set(en) == set(orderpage.MESSAGES)
    assert all(en[m] == m for m in en)
    assert all(re.search(r"[\u4e00-\u9fff]", zh[m]) for m in zh), [m for m in zh if not re.search(r"[\u4e00-\u9fff]", zh[m])]
    # the page's scripts use no word the table lacks
    used = set()
    # Rome's form has its own table (orderpage_ror.message_table); the others use this one
    for src in ((templates_dir() / "orderpage" / "orderfile.js").read_text(encoding="utf-8"),
                (templates_dir() / "orderpage" / "orderpage.js").read_text(encoding="utf-8"),
                orderpage.form_source("maria"), orderpage.form_source("pbem")):  # pbem.js: the rounds before the deal
        used |= set(re.findall(r'\bt\("((?:[^"\\]|\\.)*)"\)', src))  # t("...")
        used |= set(re.findall(r'\["[\w-]+", "((?:[^"\\]|\\.)*)"\]', src))  # ["element-id", "..."]
        # pbem check's sentences: c.add(path, "...", {args}) and c.note(...), shown translated
        for m in re.finditer(r'(?:c|this)\.(?:add|note)\([^,]+,\s*(?:\w+ \? )?"((?:[^"\\]|\\.)*)"'
                             r'(?:\s*:\s*"((?:[^"\\]|\\.)*)")?', src):
            used |= {s for s in m.groups() if s}
    assert used == set(orderpage.MESSAGES), (sorted(used - set(orderpage.MESSAGES)), sorted(set(orderpage.MESSAGES) - used))


def test_the_scripts_messages_are_pbem_checks() -> None:
    """maria_check.js repeats the sentences of the Python checks; each fixed part must still be there."""
    src = orderpage.form_source("maria")
    checks = Path(orderpage.__file__).parents[1] / "games" / "maria"
    python = (checks / "orders.py").read_text(encoding="utf-8") + (checks / "adjudicate.py").read_text(encoding="utf-8")
    fragments = [
        "is not yours to move", "is a supply train; only generals form stacks", "is not on the map",
        "has a second move this stage (M3.5)", "supply trains may not force march (M3.6)",
        "must list the cities entered, in order", "is not a road neighbour of",
        "a force march must keep to main roads (M3.6)", "may move at ", "is not a re-entry site of",
        "a battle is named attacker>defender, e.g. broglie>neipperg", "must be a whole number of at least 0",
        "is not a card id (e.g. H7.2 or H7)", "is not on the Bohemia map (M7.1)", "needs a number of troops",
        "the split adds up to", "on the map", "there is no piece",
    ]
    for fragment in fragments:
        assert fragment in src, fragment
        assert fragment in python, fragment


@pytest.mark.parametrize("phase_suffix", ["setup", "/hussars", "/france"])
def test_every_kind_of_round_has_a_page(phase_suffix: str) -> None:
    state = state_at(phase_suffix)
    phase = GAME.current_phase(state)
    assert phase is not None
    seat = GAME.seat_of(state, phase.powers[0])
    assert seat is not None
    html = order_page(state, seat)
    data, _ = page_parts(html)
    assert data["kind"] == phase.kind and data["powers"]
    assert len(html.encode("utf-8")) < MAX_BYTES


def test_the_reports_map_is_used_when_given(stage: dict[str, Any]) -> None:
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><pattern id="hatch"/></defs>'
           '<g id="ground"><rect id="the-report-map" fill="url(#hatch)"/><title>Kolin</title></g></svg>')
    html = orderpage.order_page("maria", GAME, stage, "frederick", campaign="maria-t", map_svg=svg)
    assert html is not None
    # the report's map, without the tooltips (a picture shows none) and the ids nothing refers to
    assert page_parts(html)[1] == svg.replace("<title>Kolin</title>", "").replace(' id="ground"', "").replace(' id="the-report-map"', "")


def test_no_page_for_a_game_without_a_form() -> None:
    from minigame import GAME as MINI

    state = MINI.new_game("short", {}, _rng("mini"))
    assert MINI.current_phase(state) is not None
    assert orderpage.order_page("mini", MINI, state, "north", campaign="mini-1") is None
    assert orderpage.has_form("maria") and not orderpage.has_form("mini")


def test_the_scripts_political_messages_are_pbem_checks() -> None:
    """maria_politics.js repeats orders._politics's sentences (bids, trump, choices, cards, peace,
    subsidies) and the commit round's; each fixed part must still be in both."""
    src = orderpage.form_source("maria")
    python = (Path(orderpage.__file__).parents[1] / "games" / "maria" / "orders.py").read_text(encoding="utf-8")
    fragments = [
        "bids are given per suit: S, H, D, C", "is not a full card id or pass (M11.4)", "a reserve may not be bid (M9.4)",
        "is not in your hand", "a salt is sent only in trustless mode (M11.4)",
        "you do not name the trump this turn (M5.11, M9.3)", "the trump is one of S, H, D, C",
        "is neither keep nor a revealed card", "is not a revealed political card",
        "only Austria accepts or refuses peace (M9.15)", "a subsidy is {to: POWER, card: ID} (M9.9)",
        "cannot receive your subsidy (M9.9)", "maria|turn|power|bid map|salt (M11.4)",
    ]
    for fragment in fragments:
        assert fragment in src, fragment
        assert fragment in python, fragment


def test_the_pages_base_85_is_the_one_their_script_reads() -> None:
    """The packed blocks' alphabet (pbem.render.pagekit) is the one unpack.js decodes, and holds
    nothing HTML treats specially inside a <script> element."""
    script = (templates_dir() / "orderpage" / "unpack.js").read_text(encoding="utf-8")
    assert f'var A = "{pagekit.PAGE85}";' in script
    assert len(set(pagekit.PAGE85)) == 85 and not set(pagekit.PAGE85) & set("<>&\"'\\` \n")
    for data in (b"", b"x", b"xy", b"xyz", b"\xff" * 4, bytes(range(256)) * 3):
        assert pagekit.unpack(pagekit.pack(data)) == data


def test_packed_parts_open_as_one_block_whatever_was_kept() -> None:
    """A block packed from parts opens to their bytes one after another, and the text is the
    same whether the shared parts were packed before (kept) or not: same bytes in, same page."""
    import difflib
    import os

    parts = (b"<svg><g>ground</g>" * 3000, b"", os.urandom(101), b"<g>pieces</g>" * 4000, b"x")
    for n in range(1, len(parts) + 1):
        pagekit.forget()
        cold = pagekit.pack(*parts[:n])
        assert pagekit.pack(*parts[:n]) == cold
        assert unpack(cold) == b"".join(parts[:n])
    # blocks that start alike, packed one after another: each opens (its check sum is its own)
    for tail in (b"", b"one", os.urandom(50), b"one"):
        assert unpack(pagekit.pack(*parts[:2], tail)) == b"".join(parts[:2]) + tail
        assert unpack(pagekit.pack(*parts[:3], tail, parts[0])) == b"".join(parts[:3]) + tail + parts[0]
    # a part's text is the same wherever it stands (what lets it be kept)
    one, two = pagekit.pack(parts[0], b"one"), pagekit.pack(parts[0], b"two")
    assert len(os.path.commonprefix([one, two])) > 0.9 * len(pagekit.pack(parts[0]))
    middle = os.urandom(2000)
    a = "".join(pagekit.pack(b"head", middle, b"tail").split())
    b = "".join(pagekit.pack(b"another head", middle).split())
    common = difflib.SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    assert common.size > 0.95 * len("".join(pagekit.pack(middle).split()))


def test_a_maps_ids_go_unless_something_refers_to_them() -> None:
    svg = ('<svg><defs><pattern id="hatch"/><marker id="head"/><style>#lit { fill: red }</style></defs>'
           '<g id="ground"><rect id="a" fill="url(#hatch)"/><use href="#b"/><path id="b"/><title>Kolin</title></g>'
           '<g id="pieces"><line id="c" marker-end="url(#head)"/><text id="lit">x</text></g></svg>')
    lean = b"".join(pagekit.svg_parts(svg)).decode()
    assert lean == svg.replace(' id="ground"', "").replace(' id="a"', "").replace(' id="c"', "").replace(' id="pieces"', "")
    assert b"".join(pagekit.svg_parts(svg, titles=False)).decode() == lean.replace("<title>Kolin</title>", "")


def test_the_pages_code_goes_without_comment_lines_and_indentation() -> None:
    code = ('var a = 1; // stays\n  // goes\n/* goes\n   goes */ var b = 2;\n\n    /* goes */\n'
            'var c = "http://x/*";\n  if (a) {\n    b();\n  }\n')
    assert pagekit.lean_script(code) == 'var a = 1; // stays\nvar b = 2;\nvar c = "http://x/*";\nif (a) {\nb();\n}\n'
    literal = "var t = `\n  // a line of text\n`;\n"  # a template literal's lines are text: left as they are
    assert pagekit.lean_script(literal) == literal
