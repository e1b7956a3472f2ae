"""Every rule sentence that reaches a zh-TW seat is Chinese: the orders below give many VOID
reasons and order problems in both games (bad pieces, paths, cards, standing orders, trades,
plays, declarations), and every mail pbem queues for the seat (receipt, refusal, report) holds no
English word but ids and names."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from conftest import NOW, make_keys, player_args, run_cli
from orders_util import signed
from test_replies import ALLOWED_WORDS, _maria_ids, _visible_text, english_words

from pbem.core.campaign import Campaign

MARIA_SEATS = ("maria_theresa", "louis", "frederick")


def _mails_to(camp: Path, seats: tuple[str, ...]) -> list[Path]:
    pattern = re.compile(r"^To: (" + "|".join(seats) + ")@", re.M)
    return [p for p in sorted((camp / "outbox").glob("*.eml")) if pattern.search(p.read_text(errors="replace"))]


def _no_english(mails: list[Path], allowed: set[str]) -> None:
    """No mail holds an English word: each leak is shown with its line."""
    leaks = []
    for path in mails:
        text = _visible_text(path)
        words = english_words(text, allowed)
        if words:
            lines = sorted({line.strip()[:300] for line in text.splitlines() if any(re.search(rf"\b{w}\b", line) for w in words)})
            leaks.append(f"{path.name}: {words}\n    " + "\n    ".join(lines))
    assert not leaks, "English in zh-TW mails:\n" + "\n".join(leaks)


def _intake(camp: Path, doc: Path) -> str:
    """Mail ``doc`` from its seat's address (a refusal answers only a mail) and take it in."""
    import yaml
    from test_replies import _mail

    seat = yaml.safe_load(doc.read_text())["player"]
    msg = _mail(f"{seat}@example.org", subject="命令", mid=f"<{doc.stem}@{seat}.example>")
    msg.set_content("請見附件")
    msg.add_attachment(doc.read_bytes(), maintype="text", subtype="yaml", filename="orders.yaml")
    path = doc.with_suffix(".eml")
    path.write_bytes(msg.as_bytes())
    return run_cli("intake", str(camp), str(path), "--now", NOW, ok=False).output


def _maria_stage_orders(state: dict[str, Any]) -> dict[str, Any]:
    """France's stage orders that break one rule each (and Bavaria's)."""
    return {
        "FR": {
            "moves": [
                {"piece": "nobody", "path": ["paris"]},
                {"piece": "friedrich", "path": ["neisse"]},
                {"piece": "moritz", "path": ["atlantis"]},
                {"piece": "moritz", "path": ["wien"]},
                {"piece": "fr_1", "path": ["amiens"], "force_march": True},
                {"piece": "broglie", "path": ["dachau", "muenchen", "freising", "landshut", "dingolfing", "straubing"]},
                {"stack": ["noailles", "fr_2"], "path": ["mainz"]},
                {"piece": "belle_isle", "path": ["amberg", "amberg"]},
            ],
            "battles": ["belle_isle>friedrich", "zz>yy"],
            "payments": ["H2.2", "S8.3"],
            "reentries": [{"site": "wien"}],
        },
        "BA": {"moves": [{"piece": "toerring", "path": ["wien"]}, {"piece": "ba_1", "path": ["amberg", "amberg"]}]},
    }


def test_maria_rule_sentences_reach_a_zh_tw_seat_in_chinese(tmp_path: Path) -> None:
    from pbem.games.maria.board import load_board

    keys = make_keys(tmp_path / "keys", MARIA_SEATS)
    camp = tmp_path / "m"
    langs = [a for s in MARIA_SEATS for a in ("--lang", f"{s}=zh-TW")]
    run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", "intro", "--id", "m-1", "--outage-share", "0",
            *player_args(keys), *langs, "--tz", "louis=Asia/Taipei", "--now", NOW)
    run_cli("report", str(camp))
    # the set-up: a split that does not add up, a deal with nobody
    state = Campaign(camp).current()[1]
    au = [g for g, v in state["generals"].items() if v["power"] == "AU"]
    _intake(camp, signed(tmp_path, keys["maria_theresa"], "m-1", "maria_theresa", "setup",
                         {"AU": {"troops": {au[0]: 8}, "deals": [{"with": "nobody", "text": "x"}]}}))
    run_cli("resolve", str(camp), "--force", "--now", NOW)  # -> 1741-1/hussars
    _intake(camp, signed(tmp_path, keys["maria_theresa"], "m-1", "maria_theresa", "1741-1/hussars",
                         {"AU": {"hussars": ["berlin", "kolin", "kolin", "atlantis"]}}, seq=2))
    run_cli("resolve", str(camp), "--force", "--now", NOW)  # -> 1741-1/france
    state = Campaign(camp).current()[1]
    _intake(camp, signed(tmp_path, keys["louis"], "m-1", "louis", "1741-1/france", _maria_stage_orders(state), seq=3))
    # a file the schema refuses: its refusal quotes the schema's words
    _intake(camp, signed(tmp_path, keys["louis"], "m-1", "louis", "1741-1/france",
                         {"FR": {"moves": [{"piece": "moritz", "path": "reims", "speed": 3}], "plans": 7}}, seq=4, name="shape"))
    run_cli("resolve", str(camp), "--force", "--now", NOW)

    names = {w for c in load_board().cities.values() for w in re.findall(r"[A-Za-z]{2,}", c.name)}
    allowed = ALLOWED_WORDS | _maria_ids() | names | {
        "stacks", "m", "Asia", "Taipei", "map", "html", "ID", "CITY", "true", "battle", "cards", "reentry", "cost",
        "suits", "total", "min", "max", "generals", "cities", "count", "docs", "rules", "zh", "TW", "md",
        "nobody", "atlantis", "zz", "yy", "paris", "speed",  # what the orders named
        "SEAT", "yes", "no", "false",  # placeholders and YAML values of the syntax help
        "VOID", "range"}  # terms the cited rules reference (docs/rules/maria.zh-TW.md) keeps as they are
    mails = _mails_to(camp, MARIA_SEATS)
    kinds = {p.name.split("-")[0] for p in mails}
    assert {"receipt", "refused", "report"} <= kinds, kinds
    _no_english(mails, allowed)
    receipt = next(_visible_text(p) for p in mails if "1741-1/france" in _visible_text(p) and p.name.startswith("receipt-"))
    report = _visible_text(next(camp.glob("outbox/report-0003-*-louis.eml")))
    assert "其中 16 項將會無效" in receipt and "將領在此最多移動 4 格（M3.1）" in receipt
    assert report.count("你的命令無效") >= 2 * 13 and "堆疊中沒有任何將領在地圖上且受你控制（M3.4）" in report


RO_SEATS = ("aurelia", "brutus", "cassia")


def _ror_ids() -> set[str]:
    """The words Rome's ids and names are made of: every key and text of the scenario's state
    (senators, families, cards, wars, factions) and the order files' field names and values."""
    import json

    from pbem.data import orders_dir
    from pbem.games.ror.setup import load_scenario

    words: set[str] = set()

    def walk(node: object, schema: bool = False) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(k, str) and not (schema and k == "description"):
                    words.update(re.findall(r"[A-Za-z]{2,}", k))
                if not (schema and k == "description"):
                    walk(v, schema)
        elif isinstance(node, list):
            for v in node:
                walk(v, schema)
        elif isinstance(node, str):
            words.update(re.findall(r"[A-Za-z]{2,}", node))

    walk(load_scenario("middle"))
    for path in sorted((orders_dir() / "ror").glob("*.schema.json")):
        walk(json.loads(path.read_text()), schema=True)
    return words | set(RO_SEATS) | {"ror", "T", "revolution"}


def test_rome_rule_sentences_reach_a_zh_tw_seat_in_chinese(tmp_path: Path) -> None:
    keys = make_keys(tmp_path / "keys", RO_SEATS)
    camp = tmp_path / "r"
    langs = [a for s in RO_SEATS for a in ("--lang", f"{s}=zh-TW")]
    run_cli("new", str(camp), "--deal-now", "--game", "ror", "--scenario", "middle", "--id", "ror-1", *player_args(keys), *langs,
            "--now", NOW)
    run_cli("report", str(camp))
    orders = {"A": {
        "trades": [{"give": ["harbor_fees"], "get": ["tax_farmer_2"], "with": "Q"}, {"give": ["nothing_here"], "to": "C"},
                   {"give": [], "get": ["zz"], "with": "C"}],
        "plays": [{"statesman": "99Z"}, {"concession": "not_a_concession", "senator": "5"},
                  {"statesman": "25A"}, {"statesman": "25A"}, {"concession": "tax_farmer_2", "senator": "99"}],
        "discards": ["zz"],
        "declarations": [{"commander": "77", "decision": "revolt", "bribes": [24]}, {"commander": "4", "decision": "roll"}],
        "standing": {"desert": [{"legion": 99, "to": "active_forces"}], "release": [99], "attack": ["W99"],
                     "consent": {"77": True}}}}
    _intake(camp, signed(tmp_path, keys["aurelia"], "ror-1", "aurelia", "T6/revolution", orders, seq=1))
    _intake(camp, signed(tmp_path, keys["aurelia"], "ror-1", "aurelia", "T6/revolution",
                         {"A": {"plays": [{"statesman": 25}], "trades": "x"}}, seq=2, name="shape"))
    run_cli("resolve", str(camp), "--force", "--confirm-missing", "--now", NOW)
    mails = _mails_to(camp, RO_SEATS)
    kinds = {p.name.split("-")[0] for p in mails}
    assert {"receipt", "refused", "report"} <= kinds, kinds
    allowed = ALLOWED_WORDS | _ror_ids() | {
        "nothing", "here", "not", "zz", "true", "two",  # what the orders named, two_round
        "GIVE", "TRADE", "ROLL", "REDISTRIBUTE",  # the rules' names of orders
        "commanders", "current", "decisions", "holders", "kind", "partners", "send", "statesmen", "trade", "treasuries",
        "docs", "rules", "zh", "TW", "md", "html",  # the legal choices' keys in the form, file names
        "xxd", "mod", "Gracchus", "Curia"}  # the dice check's command and arithmetic, names
    _no_english(mails, allowed)
    receipt = next(_visible_text(p) for p in mails if p.name.startswith("receipt-"))
    assert "「99Z」不是政治家牌" in receipt and "不是其他派系" in receipt
    assert "「77」不是你派系中必須做決定的陸戰勝利者" in receipt


def test_the_purposes_of_rome_dice_are_said_in_chinese_around_their_ids() -> None:
    from pbem.render.i18n import say_words

    assert say_words("zh-TW", "R9.2 mortality chit #1") == "R9.2 死亡標記 #1"
    assert say_words("zh-TW", "R3.4 tie 12 #2") == "R3.4 平手 12 #2"
    assert say_words("zh-TW", "R6.6 senate loss") == "R6.6 元老院損失"
    assert say_words("zh-TW", "R7.7 W2 3d6 #3") == "R7.7 W2 3d6 #3"  # ids and rule ids as they are
    assert say_words("en", "R3.4 tie 12 #2") == "R3.4 tie 12 #2"


def test_maria_political_sentences_reach_a_zh_tw_seat_in_chinese(tmp_path: Path) -> None:
    """The advanced game's political round: bids, trump, choices, card instructions, peace,
    subsidies and a salt out of place, each against a rule; the receipt and the report say why
    in Chinese."""
    keys = make_keys(tmp_path / "keys", MARIA_SEATS)
    camp = tmp_path / "m"
    langs = [a for s in MARIA_SEATS for a in ("--lang", f"{s}=zh-TW")]
    run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", "advanced", "--id", "m-2", "--outage-share", "0",
            *player_args(keys), *langs, "--now", NOW)
    run_cli("resolve", str(camp), "--force", "--now", NOW)  # the set-up -> 1741-1/politics
    c = Campaign(camp)
    state = c.current()[1]
    phase = c.game().current_phase(state)
    assert phase is not None and phase.kind == "politics"
    hand = state["cards"]["hands"]["FR"]
    absent = next(f"{s}{v}.1" for s in "SHDC" for v in range(2, 11) if f"{s}{v}.1" not in hand)
    orders = {"FR": {"bid": {"S": absent, "H": "pass", "D": "pass", "C": "pass"}, "trump": "H", "salt": "ab" * 16,
                     "choices": ["PC99", "keep"], "cards": {"PC99": {"execute": True}}, "accept_peace": True,
                     "subsidies": [{"to": "AU", "card": absent}, {"to": "BA", "card": absent}]}}
    _intake(camp, signed(tmp_path, keys["louis"], "m-2", "louis", phase.id, orders, seq=1))
    run_cli("resolve", str(camp), "--force", "--now", NOW)
    allowed = ALLOWED_WORDS | _maria_ids() | {"m", "map", "html", "ID", "CITY", "true", "docs", "rules", "zh", "TW", "md",
                                              "SEAT", "yes", "no", "false", "VOID", "range", "PC", "keep", "pass"}
    from pbem.games.maria.board import load_board

    allowed |= {w for city in load_board().cities.values() for w in re.findall(r"[A-Za-z]{2,}", city.name)}
    mails = _mails_to(camp, ("louis",))
    _no_english([p for p in mails if p.name.startswith("receipt-")], allowed)
    receipt = next(_visible_text(p) for p in mails if p.name.startswith("receipt-"))
    report = _visible_text(next(p for p in mails if p.name.startswith("report-0002-")))
    voids = [line for line in report.splitlines() if "你的命令無效" in line]
    assert len(voids) >= 2 and english_words("\n".join(voids), allowed) == [], voids
    for said in ("不在你的手牌中", "只有奧地利能接受或拒絕和平（M9.15）", "只有在免信任模式下才要送出鹽值（M11.4）",
                 "不能接受你的補助金（M9.9）"):
        assert said in receipt, said
