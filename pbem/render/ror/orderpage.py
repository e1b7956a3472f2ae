"""What the Republic of Rome's order page embeds beyond the shared part (see ``orderpage``).

The form (``templates/orderpage/ror.js`` and ``ror_form.js``) offers the legal choices of
``legal_orders`` and checks what ``pbem check`` checks (``pbem.games.ror.orders.validate_orders``),
with the same sentences.
The facts those checks read from the state (who may play which card, whose army holds which
legion, which wars exist) are computed here with the engine's own rule functions and sent along,
so the page and ``pbem check`` cannot drift apart on a rule; only the seat's view and the seat's
own factions' choices go in.

Rule ids the page cites link to the rules reference (``docs/rules/ror.md``, in Chinese
``docs/rules/ror.zh-TW.md``), one anchor per rule id (``R2.7`` -> ``#r2-7``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from pbem.render import i18n, pagekit

RULES_DOC = {"en": "docs/rules/ror.md", "zh-TW": "docs/rules/ror.zh-TW.md"}

# The page's words (English ids, Traditional Chinese with the seed's terms: 元老, 派系, 特許,
# 政治家, 叛軍首領, 爪牙, 副將, 黨庫, 最高長官, 精銳軍團).
MESSAGES: dict[str, str] = {
    "Faction": "派系",
    "Orders of faction": "派系命令：",
    "Your hand": "你的手牌",
    "Faction Treasury": "黨庫",
    "talents": "塔蘭特",
    "Your senators": "你的元老",
    "Armies": "軍隊",
    "Active Forces": "羅馬現役部隊",
    "Wars": "戰爭",
    "Civil war": "內戰",
    "Primary Rebel": "叛軍首領",
    "rebel army": "叛軍",
    "veteran": "精銳",
    "loyal to": "效忠",
    "strength": "戰力",
    "none": "無",
    "Rules": "規則",
    "Trades and gifts": "交易與贈送",
    "Give cards": "贈送手牌",
    "Trade cards": "交換手牌",
    "give": "給出",
    "to": "給",
    "with": "對象",
    "get (card ids)": "換得（牌代號）",
    "Add a gift": "新增贈送",
    "Add a trade": "新增交易",
    "Remove": "移除",
    "Card plays": "打出手牌",
    "Plays run in this order; a card due from a trade may be played too.": "依此順序打出；交易換得的牌也可以打出。",
    "Play a Statesman": "打出政治家",
    "Attach a Concession": "把特許交給元老",
    "card": "牌",
    "senator": "元老",
    "cannot be played now": "目前不能打出",
    "Discards": "棄牌",
    "Tick in order: used only if you hold more than 5 cards after the plays.": "依順序勾選：只有打牌後手牌超過 5 張時才會用到。",
    "You must discard {n} card(s) unless you play or give them away.": "除非打出或送出，你必須棄 {n} 張牌。",
    "Declarations": "宣告",
    "Commander": "指揮官",
    "army": "軍隊",
    "Decision": "決定",
    "lay down command": "卸下指揮權",
    "revolt": "宣布反叛",
    "take the army to a war (Manilian Law)": "率軍前往戰爭（馬尼利烏斯法）",
    "roll the loyalty dice first": "先擲忠誠骰",
    "War": "戰爭",
    "Bribes (1 talent each, +1 on that legion's roll)": "收買（每個軍團 1 塔蘭特，忠誠骰 +1）",
    "Master of Horse pays up to": "副將最多支付",
    "Master of Horse joins": "副將加入叛軍",
    "revolt only with a strength of at least": "叛軍戰力至少達到此數才反叛",
    "only if I become the Primary Rebel": "只有成為叛軍首領時才反叛",
    "roll for every legion": "為每個軍團擲骰",
    "Secondary Rebels (senators of yours who join)": "爪牙（加入叛軍的本派系元老）",
    "Consent to pay": "同意支付",
    "Let a rebel Dictator spend your Master of Horse's talents": "允許反叛的獨裁官動用你的副將的塔蘭特",
    "at most": "最多",
    "Add a consent": "新增同意",
    "Dispatch": "派兵",
    "Send an army against the rebel": "派軍隊攻打叛軍",
    "Add an army": "新增軍隊",
    "Reinforce": "增援",
    "Add a reinforcement": "新增增援",
    "legions": "軍團",
    "raise new legions (10 talents each)": "徵召新軍團（每個 10 塔蘭特）",
    "The default dispatch is filled in; with no army sent the rebel meets condition 1.":
        "已填入預設派兵；若未派出任何軍隊，叛軍即達成條件 1。",
    "Order of attack": "攻擊順序",
    "Tick the wars in the order to attack them; a listed war the rebel cannot attack is skipped.":
        "依攻擊順序勾選戰爭；叛軍無法攻擊的戰爭會被略過。",
    "Standing orders": "常備命令",
    "Each one you give replaces the one kept from earlier rounds; blank changes nothing.":
        "你給出的每一項會取代先前回合保留的命令；留空則不變。",
    "Desert (your veterans in the rebel army)": "倒戈（叛軍中效忠你的精銳軍團）",
    "unchanged": "不變",
    "to a Senate army": "投向元老院軍隊",
    "to Active Forces": "投向羅馬現役部隊",
    "Consent: may the dispatcher send this senator?": "同意：派兵者可否派出此元老？",
    "yes": "可以",
    "no": "不可以",
    "Release first (rebel legions, in order)": "優先釋放（叛軍軍團，依順序）",
    "Accept released legions": "接收被釋放的軍團",
    "all": "全部",
    "these legions": "這些軍團",
    "End-game order of attack": "終局攻擊順序",
    "Redistribute (used once, at the next Redistribution)": "財富再分配（只用一次，在下次再分配時）",
    "from": "從",
    "amount": "金額",
    "Add a transfer": "新增轉帳",
    "treasury": "黨庫",
    "Nothing to order for this faction in this round.": "本派系這一回合無需下令。",
    # offices and war states as the reports name them (the catalog's words come first)
    "Dictator": "獨裁官",
    "Rome Consul": "羅馬執政官",
    "Field Consul": "戰地執政官",
    "Censor": "監察官",
    "Master of Horse": "副將",
    "Pontifex Maximus": "大祭司",
    "Proconsul": "代執政官",
    "Consul for Life": "終身執政官",
    "Governor": "總督",
    "active": "活躍",
    "inactive": "未活躍",
    "imminent": "即將爆發",
    "unprosecuted": "無人征討",
    "(land/fleet support/naval)": "（陸軍／艦隊支援／海軍）",
    "this senator cannot take it": "此元老不能接受",
    # pbem check's sentences (pbem.games.ror.orders and the rule functions it calls)
    "must be a whole number of at least {lo}": "必須是不小於 {lo} 的整數",
    "'{x}' is not a living senator of your faction": "「{x}」不是你派系中在世的元老",
    "card '{x}' is not in your hand": "牌「{x}」不在你的手牌中",
    "a GIVE names 'to', a TRADE names 'with' and 'get'": "贈送要寫 to，交易要寫 with 與 get",
    "'{partner}' is not another faction ({others})": "「{partner}」不是其他派系（{others}）",
    "'{c}' is not a Faction card": "「{c}」不是派系牌",
    "names no card": "沒有指定任何牌",
    "'{c}' is not a Statesman card": "「{c}」不是政治家牌",
    "{c} cannot be played now: {why}": "{c} 目前不能打出：{why}",
    "'{c}' is not a Concession card": "「{c}」不是特許牌",
    "say on which 'senator' the Concession goes": "請寫明特許交給哪位元老（senator）",
    "a play names a 'statesman' or a 'concession' (with 'senator')": "打牌要寫 statesman，或 concession（加上 senator）",
    "'{commander}' is not a land victor of your faction who must decide (eligible: {eligible})":
        "「{commander}」不是你派系中必須做決定的陸戰勝利者（符合者：{eligible}）",
    "must be revolt, lay_down, manilian or roll": "必須是 revolt、lay_down、manilian 或 roll",
    "ROLL is sent only in the first round under the two_round loyalty test (R8.3)":
        "只有在兩輪忠誠檢定的第一輪才送出 ROLL（R8.3）",
    "legion {lid} is not in {sid}'s army": "軍團 {lid} 不在 {sid} 的軍隊中",
    "must be true or false": "必須是 true 或 false",
    "the commander cannot be his own Secondary": "指揮官不能當自己的爪牙",
    "'{x}' is not a living aligned senator": "「{x}」不是在世且屬於派系的元老",
    "legion {lid} is not in Active Forces": "軍團 {lid} 不在羅馬現役部隊中",
    "legion {lid} is already sent": "軍團 {lid} 已經派出",
    "there is no war '{w}'": "沒有戰爭「{w}」",
    "there is no legion {lid}": "沒有軍團 {lid}",
    "must be senate_army or active_forces": "必須是 senate_army 或 active_forces",
    "must be yes or no": "必須是 yes 或 no",
    # the reasons of the rule functions (revolution.statesman_problem, concession_problem,
    # civil_war.manilian_problem), as the page receives them with their names filled in
    "{card} is not in your hand": "{card} 不在你的手牌中",
    "{card} is not a Statesman": "{card} 不是政治家",
    "faction {holder} controls family card {num} (R2.4)": "派系 {holder} 控制家族牌 {num}（R2.4）",
    "Statesman {sid} of the same number is in play (R2.4)": "同編號的政治家 {sid} 已在場上（R2.4）",
    "family senator {num} is a rebel (R2.9)": "家族元老 {num} 是叛軍（R2.9）",
    "{card} is not a Concession": "{card} 不是特許",
    "senator {senator} is not in your faction": "元老 {senator} 不在你的派系中",
    "senator {senator} is a rebel (R2.9)": "元老 {senator} 是叛軍（R2.9）",
    "the Manilian Law is not in play": "馬尼利烏斯法未生效",
    "there is no war '{war}'": "沒有戰爭「{war}」",
    "war {war} is defeated": "戰爭 {war} 已被擊敗",
    "war {war} needs {n} fleets": "戰爭 {war} 需要 {n} 支艦隊",
}


def message_table(lang: str) -> dict[str, str]:
    """The Rome page's words in ``lang`` (the catalog first, then the table above), with the
    sentences of the shape check (pbem.common.shapewords), which the catalog translates."""
    from pbem.common import shapewords as shape

    table = pagekit.message_table(lang, MESSAGES)
    for msg in (*shape.MESSAGES.values(), *shape.TYPE_WORDS.values(), shape.ALLOWED, shape.EXPECTED, shape.OR):
        table[msg] = i18n.gettext_for(lang, msg)
    return table


@cache
def _words(lang: str) -> Mapping[str, str]:
    return message_table(lang)


def schema(kind: str) -> dict[str, Any] | None:
    """The JSON Schema of the round ``kind`` (orders/ror/<kind>.schema.json), which pbem check
    and intake hold the orders to before any rule; the page checks the same shape first."""
    import json

    from pbem.data import orders_dir

    path = orders_dir() / "ror" / f"{kind}.schema.json"
    if not path.is_file():
        return None
    found: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return found


def rules_doc(lang: str) -> str:
    """The rules reference the page's rule ids link to, in the reader's language."""
    return RULES_DOC.get(i18n.check_lang(lang), RULES_DOC["en"])


@cache
def rule_texts(lang: str) -> dict[str, str]:
    """The text of each rule the form cites, from the rules reference in ``lang`` (shipped with
    pbem), so a player can read a rule on the page itself with no network: rule id -> paragraph.
    A rule the reference lacks is left out (the page then shows only its link)."""
    import re

    from pbem.data import data_dir
    from pbem.render.orderpage import form_source

    script = form_source("ror")
    cited = sorted(set(re.findall(r'"(R\d+\.\d+[a-e]?)"', script)))
    try:
        doc = (data_dir("docs/rules") / rules_doc(lang).rsplit("/", 1)[1]).read_text(encoding="utf-8")
    except FileNotFoundError:  # an installation without the reference: links only
        return {}
    out = {}
    for rule in cited:
        m = re.search(r'<a id="' + re.escape(anchor(rule)) + r'"></a>(.*?)(?:\n\s*\n|\n<a id=|$)', doc, re.S)
        if m:
            lines = [line.strip() for line in m.group(1).replace("**", "").splitlines() if line.strip()]
            text = lines[0] if lines else ""
            for line in lines[1:]:  # a wrapped line: Chinese joins without a space
                cjk = re.match(r"[\u3000-\u9fff\uff00-\uffef]", line) or re.search(r"[\u3000-\u9fff\uff00-\uffef]$", text)
                text += ("" if cjk else " ") + line
            out[rule] = re.sub(r"([\u3001\u3002\uff0c\uff1a\uff1b])\s+", r"\1", text)
    return out


def anchor(rule: str) -> str:
    """The anchor of a rule id in the rules reference: R2.11 -> r2-11."""
    return rule.lower().replace(".", "-")


def say(why: str, lang: str) -> list[str]:
    """A rule function's reason as ``[pbem check's English, the same in lang]``: the sentence is
    matched against the templates above and its names are kept as the engine wrote them."""
    import re

    table = _words(i18n.check_lang(lang))
    for template in MESSAGES:
        names = re.findall(r"\{(\w+)\}", template)
        if len(set(names)) != len(names):
            continue
        pattern = re.sub(r"\\\{(\w+)\\\}", lambda m: f"(?P<{m.group(1)}>.+?)", re.escape(template))
        m = re.fullmatch(pattern, why)
        if m:
            shown = table[template]
            for k, v in m.groupdict().items():
                shown = shown.replace("{" + k + "}", v)
            return [why, shown]
    return [why, why]


def card_table() -> dict[str, Any]:
    """The printed Faction cards (shipped data, the same in every page): Statesman and Concession
    ids, which the form needs to check a card named in a trade, and their names."""
    from pbem.games.ror.model import card_data

    cards = card_data()
    return {
        "statesmen": sorted(cards.statesmen),
        "concessions": sorted(cards.concessions),
        "names": {c: str(v.get("name", c)) for c, v in sorted({**cards.statesmen, **cards.concessions}.items())},
    }


def ror_data(state: Mapping[str, Any], view: Mapping[str, Any], powers: list[str],
             legal: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """The Rome part of the page's data for ``powers`` (the seat's factions in this round)."""
    from pbem.games.ror.civil_war import manilian_problem
    from pbem.games.ror.model import card_data, is_aligned, sid_key
    from pbem.games.ror.revolution import concession_problem, statesman_problem

    st = dict(state)
    cards = card_data()
    senators = view["senators"]
    aligned = sorted((s for s, r in st["senators"].items() if is_aligned(r)), key=sid_key)
    own: dict[str, Any] = {}
    for p in powers:
        members = [s for s in aligned if st["senators"][s]["faction"] == p]
        hand = list(view["factions"][p].get("hand", []))
        entry: dict[str, Any] = {
            "members": members,
            "hand": hand,
            "treasury": view["factions"][p].get("faction_treasury"),
            "standing": view["factions"][p].get("standing", {}),
            # why a Statesman of the hand cannot be played now (R2.4, R2.9)
            "statesman_why": {c: say(why, lang) for c in hand if c in cards.statesmen
                              for why in [statesman_problem(st, p, c)] if why},
        }
        concession = next((c for c in hand if c in cards.concessions), None)
        if concession is not None:
            # why a Concession cannot go on one of the faction's senators (R2.9, R2.10)
            entry["concession_why"] = {s: say(why, lang) for s in members
                                       for why in [concession_problem(st, p, concession, s)] if why}
        commanders = (legal.get(p) or {}).get("commanders")
        if isinstance(commanders, dict):
            # the Manilian Law's reasons per war, for each victor of the faction (R3.2)
            entry["manilian_why"] = {sid: {w: say(why, lang) for w in sorted(st["wars"])
                                           for why in [manilian_problem(st, sid, w)] if why}
                                     for sid in commanders}
        own[p] = entry
    armies = {}
    for a in view["armies"]:
        if a.get("commander"):
            armies[a["commander"]] = {"legions": a["legions"], "target": a.get("target"),
                                      "strength": a.get("strength")}
    cw = view.get("civil_war")
    return {
        "own": own,
        "senators": {s: {"name": r["name"], "faction": r["faction"], "offices": r["offices"],
                         "rebel": "rebel" in r["markers"], "talents": r["talents"], "mil": r["mil"],
                         "location": r["location"]}
                     for s, r in senators.items()},
        "aligned": aligned,
        "factions": list(st["factions"]),
        "seating": list(view["seating"]),
        "cards": card_table(),
        "legions": {lid: {"veteran": lg["veteran"], "allegiance": lg["allegiance"], "location": lg["location"]}
                    for lid, lg in view["legions"].items()},
        "wars": {w: {"status": x["status"], "land": x["land"], "fleet_support": x["fleet_support"],
                     "naval": x["naval"], "name": x.get("name", w)} for w, x in sorted(view["wars"].items())},
        "armies": armies,
        "active_forces": list(view["active_forces"]),
        "civil_war": None if not cw else {"primary_rebel": cw.get("primary_rebel"), "legions": cw.get("legions", []),
                                          "strength": cw.get("strength")},
        "hrao": view.get("hrao"),
        "manilian_law": bool(st["laws"].get("manilian_law")),
        "two_round": st["options"].get("ror.pbem_loyalty_test") == "two_round",
        "optional_roll": st["options"].get("ror.loyalty_roll") == "optional_all_follow",
        "title": f"{view['round'] or ''}",
        "schema": schema(str((view.get("awaiting") or {}).get("kind"))),
        "rules_doc": rules_doc(lang),
        "rule_texts": rule_texts(i18n.check_lang(lang)),
    }
