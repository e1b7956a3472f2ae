"""The offline order page: one self-contained HTML file per seat and phase.

A player who has only a mail client and a browser opens the page beside the private report,
loads the key file ``pbem keygen`` wrote (it never leaves the page), fills a form built from the
legal choices the engine computed, and gets a signed order file to paste into a mail or save.
The page checks what ``pbem check`` checks, with the same sentences; it fills ``seq``,
``entropy_reveal`` and ``entropy_commit`` as ``pbem sign`` does, and signs with Ed25519 through
the browser's WebCrypto.

Everything the page embeds comes from ``game.view(state, seat)`` and
``game.legal_orders(state, power)`` for the seat's own powers, plus static public data (the
map's cities and roads), so the page shows nothing the seat's private report may not show.
No script, font or style is fetched from anywhere: the map is embedded gzip-compressed and
opened with the browser's ``DecompressionStream``.

This module is pure: :func:`order_page` returns the HTML text; writing it is the publisher's job.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from pbem.data import templates_dir
from pbem.games import presentation
from pbem.games.base import Game, Phase
from pbem.render import i18n, pagekit

PAGE_VERSION = 1
TEMPLATE_DIR = "orderpage"

# The page's words: English message ids, translated with the project's gettext catalog; the
# Traditional Chinese here serves until the catalog carries the same ids.
MESSAGES: dict[str, str] = {
    # the rounds before the deal (templates/orderpage/pbem.js)
    "Nothing is dealt yet. This round takes no orders: load your key and sign. The signed file commits to a fresh random value that this page keeps for the next round.":
        "尚未發牌。這一輪不需要命令：載入你的金鑰並簽署。簽署的檔案承諾一個新的亂數值，本頁會保留它到下一輪。",
    "This round takes no orders: load your key and sign. The signed file reveals the value you committed; the deal is made from every player's value.":
        "這一輪不需要命令：載入你的金鑰並簽署。簽署的檔案揭示你承諾過的值；發牌由每位玩家的值決定。",
    "Orders": "命令",
    "Order page": "命令頁",
    "Campaign": "戰役",
    "Player": "玩家",
    "Phase": "階段",
    "Deadline": "截止時間",
    "The situation": "局勢",
    "Your hand": "你的手牌",
    "Troops": "兵力",
    "Your key": "你的金鑰",
    "Load your key file (NAME.key, made by the key page or by pbem keygen). It stays in this page and is never sent anywhere.":
        "載入你的金鑰檔（由金鑰頁或 pbem keygen 產生的 NAME.key）。它只留在本頁，不會傳送到任何地方。",
    "Key loaded": "已載入金鑰",
    "This key is not the roster key of this seat; the GM will refuse the file.":
        "此金鑰不是本席位在名冊上的金鑰；GM 會拒收此檔。",
    "Not a pbem private key file (made by 'pbem keygen')": "不是 pbem 私鑰檔（由 pbem keygen 產生）",
    "This browser cannot sign with Ed25519; use 'pbem sign' instead.":
        "此瀏覽器不能以 Ed25519 簽署；請改用 pbem sign。",
    "Moves": "移動",
    "Add a move": "新增移動",
    "Piece": "棋子",
    "Destination": "目的地",
    "Path (city ids, in order)": "路徑（依序的城市代號）",
    "Force march": "強行軍",
    "Remove": "移除",
    "Re-entries": "重新進場",
    "Add a re-entry": "新增重新進場",
    "Payment cards": "支付用牌",
    "Battles": "戰鬥",
    "Add a battle": "新增戰鬥",
    "Attacker": "攻方",
    "Defender": "守方",
    "next to you after your moves": "移動後與你相鄰",
    "Plan for every battle of the stage": "本階段所有戰鬥的計畫",
    "at most this many cards": "最多出牌數",
    "at most this many points": "最多點數",
    "concede when behind by more than": "落後超過此數即認輸",
    "play a reserve to draw level": "打出預備牌以追平",
    "cards to play first": "優先打出的牌",
    "retreat cities for a beaten enemy (ids)": "敗敵撤退城市（代號）",
    "Troop split": "兵力分配",
    "total": "合計",
    "Hussar cities": "驃騎兵城市",
    "Tick cities in order of preference; the first valid ones are used.": "依偏好順序勾選城市；採用最先的有效城市。",
    "Recruits": "招募",
    "Returns": "歸隊",
    "Nothing to order for this power in this phase.": "此勢力本階段無需下令。",
    "The form starts from the autopilot's suggestion for your seat, made from what your seat knows. It is only a "
    "suggestion: change it as you like. If you send nothing, your default orders count, not these.":
        "表單以自動代打依你的席位所知為你建議的命令開始。這只是建議：請隨意修改。"
        "若你什麼都不寄，計入的是你的預設命令，而不是這些。",
    "Standing orders": "常備命令",
    "They stay until you replace them (M12.3); fields left blank change nothing.": "常備命令在你更換前一直有效（M12.3）；留空的欄位不作變更。",
    "Default battle plan": "預設戰鬥計畫",
    "Hussar policy": "驃騎兵政策",
    "unchanged": "不變",
    "pay": "支付",
    "refuse": "拒絕",
    "pay up to (points per supply step)": "最多支付（每補給步驟點數）",
    "Problems": "問題",
    "No problems found.": "沒有發現問題。",
    "The page cannot check this; the adjudicator checks it when the phase runs:":
        "本頁無法檢查此項；裁決時會再檢查：",
    "this path is not one the engine found legal now (occupied cities, enemies, supply)":
        "此路徑不在引擎目前算出的合法路徑中（佔據的城市、敵軍、補給）",
    "Sign": "簽署",
    "Fix the problems above before signing.": "請先修正上方的問題再簽署。",
    "Load your key first.": "請先載入金鑰。",
    "Signed order file": "已簽署的命令檔",
    "Copy it into the body of a mail to the GM, or save it and attach it.":
        "將它貼到給 GM 的郵件內文中，或存檔後作為附件寄出。",
    "Copy": "複製",
    "Copied": "已複製",
    "Save as file": "存成檔案",
    "Entropy": "亂數承諾",
    "Your pending entropy value is kept in this browser. Export it to move to another machine or to 'pbem sign' (KEY.state.json); import it there.":
        "你待揭示的亂數值保存在此瀏覽器中。要換到另一台電腦或改用 pbem sign（KEY.state.json）時，請匯出並在該處匯入。",
    "Export": "匯出",
    "Import": "匯入",
    "Imported": "已匯入",
    "This browser does not keep data for this page; export after signing and import before the next phase.":
        "此瀏覽器不為本頁保存資料；簽署後請匯出，下一階段前再匯入。",
    "Sequence number (blank: automatic)": "序號（空白：自動）",
    "none": "無",
    "force march": "強行軍",
    "The map needs a newer browser (DecompressionStream).": "地圖需要較新的瀏覽器（DecompressionStream）。",
    "Orders of": "命令：",
    "Signed with": "簽署金鑰",
    # the political phase (M9, M11.4, M12.8); ids shared with the report catalog read the same
    "Political cards": "政治牌",
    "Trump suit": "王牌花色",
    "trump": "王牌",
    "named in the politics round (M9.3)": "於政治回合指定（M9.3）",
    "Bids on the display": "展示中的出價",
    "Bid": "出價",
    "One card of each suit from your hand, or pass; only the bid in the trump suit counts.":
        "每種花色可從手牌出一張牌或放棄；只有王牌花色的出價計算。",
    "pass": "放棄",
    "spades": "黑桃",
    "hearts": "紅心",
    "diamonds": "方塊",
    "clubs": "梅花",
    "Salt": "鹽值",
    "Commitment": "承諾雜湊",
    "Only the commitment is sent now. This page keeps your bid and its salt in this browser for the politics round; use Export (below) to take them to another machine.":
        "現在只送出承諾雜湊。本頁會把你的出價與鹽值保存在此瀏覽器，供政治回合使用；要換到另一台電腦請用下方的「匯出」。",
    "Your bid and salt are filled in from this browser's record of your commitment.":
        "已依此瀏覽器保存的承諾紀錄填入你的出價與鹽值。",
    "This browser has no record of the bid you committed this turn (it was made on another machine, or not imported). Import your exported file below, or type the bid and the salt you committed.":
        "此瀏覽器沒有你本回合承諾的出價紀錄（承諾是在另一台電腦做的，或尚未匯入）。請在下方匯入你匯出的檔案，或自行輸入你承諾的出價與鹽值。",
    "No commitment of yours was published this turn: your bid counts as a pass (M11.4).":
        "本回合沒有公布你的承諾雜湊：你的出價視為放棄（M11.4）。",
    "The bid and salt match your published commitment.": "出價與鹽值符合你公布的承諾雜湊。",
    "The bid and salt do not match your published commitment; the bid would count as a pass (M11.4).":
        "出價與鹽值不符合你公布的承諾雜湊；出價將視為放棄（M11.4）。",
    "default (M12.6)": "預設（M12.6）",
    "Choice list": "選牌清單",
    "Tick in order of preference: the first card still there when your turn to choose comes is taken; keep keeps your bid on the display.":
        "依偏好順序勾選：輪到你選牌時，拿取清單中第一張仍在的牌；「保留」則讓你的出價留在展示區。",
    "keep": "保留",
    "If you take a card": "若你拿到政治牌",
    "default: carry it out": "預設：執行",
    "carry it out": "執行",
    "discard it without effect": "不執行，直接棄掉",
    "skip this effect": "略過此效果",
    "all {n} step(s)": "全部 {n} 格",
    "{n} step(s)": "{n} 格",
    "default: toward your side": "預設：朝你的陣營",
    "default: the lowest city id": "預設：代號最小的城市",
    "Peace offered to Prussia": "向普魯士提議和平",
    "standing order (default: refuse)": "常備命令（預設：拒絕）",
    "accept": "接受",
    "Subsidies": "補助金",
    "to": "給",
    "card": "牌",
    "Add a subsidy": "新增補助金",
    "optional": "可選",
    "if {condition}": "若{condition}",
    "the taker": "取得者",
    "the Habsburg side": "哈布斯堡陣營",
    "the coalition": "同盟陣營",
    "Saxony track": "薩克森軌道",
    "Russia track": "俄羅斯軌道",
    "Italy track": "義大利軌道",
    "toward Prussia": "朝普魯士",
    "toward Austria": "朝奧地利",
    "toward France": "朝法國",
    "down (good for Prussia)": "向下（有利普魯士）",
    "up (bad for Prussia)": "向上（不利普魯士）",
    "in the direction the taker chooses": "方向由取得者選擇",
    "Bohemian crown box": "波希米亞王冠格",
    "Emperor box": "皇帝格",
    "Italy box": "義大利格",
    "Silesia box": "西利西亞格",
    "Saxon defection box": "薩克森倒戈格",
    "electoral fortresses box": "選區要塞格",
    "major victory box": "大勝格",
    "its owner chooses": "由持有者選擇",
    "the taker chooses": "由取得者選擇",
    "at random": "隨機",
    "any of its generals": "其任何將領",
    "its generals in its home country": "其本國境內的將領",
    "its generals in supply": "其有補給的將領",
    "{track}: {n} step(s) {toward}": "{track}：移動 {n} 格，{toward}",
    "{power} draws {n} card(s)": "{power}抽 {n} 張牌",
    "{power}'s draw changes by {delta} in each of its next {stages} stage(s)": "{power}在接下來 {stages} 個階段的抽牌數各 {delta} 張",
    "{power} discards {n} card(s); {by}": "{power}棄 {n} 張牌；{by}",
    "{power} adds {n} troop(s) to {where}": "{power}增加 {n} 點兵力給{where}",
    "{power} loses {n} troop(s)": "{power}失去 {n} 點兵力",
    "{n} general(s) of {power} are blocked for {stages} stage(s); {by}": "{power}的 {n} 名將領被封鎖 {stages} 個階段；{by}",
    "{n} supply train(s) of {power} are blocked for {stages} stage(s); {by}": "{power}的 {n} 個補給車隊被封鎖 {stages} 個階段；{by}",
    "a general of {power} is withdrawn for {turns} turn(s); {by}": "{power}的一名將領撤離 {turns} 個回合；{by}",
    "the controller of {place}": "{place}的控制者",
    "{power} fills the {box}": "{power}填入{box}",
    "{n} marker(s) of {power} in {region} go back to its pool": "{power}在{region}的 {n} 個標記回到其標記池",
    "the markers of {power} in {region} are removed; half of them leave the game": "{power}在{region}的標記被移除；其中一半移出遊戲",
    "Austria's hussars change by {delta} in each of its next {turns} hussar step(s)": "奧地利在接下來 {turns} 次驃騎兵步驟的驃騎兵數各 {delta}",
    "{power} brings back an eliminated supply train, free": "{power}免費讓一個被消滅的補給車隊重返",
    "the imperial election is held now (M9.14)": "立即舉行皇帝選舉（M9.14）",
    "peace is offered; Austria accepts or refuses (M9.15)": "提議和平；由奧地利接受或拒絕（M9.15）",
    "{power} stops being neutral": "{power}不再中立",
    "the {track} is between {low} and {high}": "{track}位於 {low} 至 {high} 之間",
    "{who} controls a fortress of {region}": "{who}控制{region}的一座要塞",
    "{power} has no general in {region}": "{power}在{region}沒有將領",
    "peace has been made": "已締結和平",
    "no peace has been made": "尚未締結和平",
    "{power} is neutral": "{power}保持中立",
    "the Austrian core lands": "奧地利核心領地",
    "Prague, the Bohemian crown": "布拉格（波希米亞王冠）",
    "Silesia": "西利西亞",
    "Poland": "波蘭",
    "the neutral territories": "中立領土",
    "the Bohemia map": "波希米亞地圖",
    "the Flanders map": "法蘭德斯地圖",
    "the home country of {power}": "{power}本國",
    "Answers to the choices political cards leave to you": "政治牌交由你決定的選擇",
    "Tick in order of preference; whatever you leave out follows the rule's default.":
        "依偏好順序勾選；沒有勾選的部分依規則的預設處理。",
    "Generals to receive troops first (E5)": "優先增加兵力的將領（E5）",
    "Generals to lose troops first (E6)": "優先減少兵力的將領（E6）",
    "Generals to withdraw first (M9.11, E9)": "優先撤離的將領（M9.11、E9）",
    "Cards to discard first (E4)": "優先棄掉的牌（E4）",
    "Sites for a supply train placed free (E14, M9.15)": "免費放置補給車隊的地點（E14、M9.15）",
    # pbem check's sentences, as maria_check.js and maria_politics.js say them in Chinese ({names} are filled in)
    "'{card}' is not a card id (e.g. H7.2 or H7)": "「{card}」不是牌的代號（例如 H7.2 或 H7）",
    "'{card}' is not a card id (e.g. H7.2, H7, R.3a, R)": "「{card}」不是牌的代號（例如 H7.2、H7、R.3a、R）",
    "'{card}' is not a full card id or pass (M11.4)": "「{card}」不是完整的牌代號，也不是 pass（M11.4）",
    "'{card}' is not a revealed political card": "「{card}」不是已翻開的政治牌",
    "'{city}' is not a road neighbour of '{prev}'": "「{city}」與「{prev}」之間沒有道路相連",
    "'{entry}' is neither keep nor a revealed card ({cards})": "「{entry}」既不是 keep，也不是已翻開的牌（{cards}）",
    "a battle is named attacker>defender, e.g. broglie>neipperg": "戰鬥以「攻方>守方」命名，例如 broglie>neipperg",
    "a battle is named by the commanding generals as the stacks stand when the battles start (M12.4); an entry that matches no battle is VOID":
        "戰鬥以戰鬥開始時雙方堆疊的指揮將領命名（M12.4）；對不上任何戰鬥的項目無效",
    "'{general}' is not a general on the map, so there is no battle {battle} (M5.1)":
        "{general} 不是地圖上的將領，所以沒有 {battle} 這場戰鬥（M5.1）",
    "{attacker} ({at}) and {defender} ({dt}) do not stand on adjacent cities, so there is no battle {battle} (M5.1)":
        "{attacker}（{at}）與 {defender}（{dt}）不在相鄰的城市，所以沒有 {battle} 這場戰鬥（M5.1）",
    "a commitment is the 64 hex digits of SHA-256 of maria|turn|power|bid map|salt (M11.4)":
        "承諾雜湊是 maria|turn|power|bid map|salt 的 SHA-256，共 64 個十六進位數字（M11.4）",
    "a force march must keep to main roads (M3.6)": "強行軍只能走主要道路（M3.6）",
    "a reserve may not be bid (M9.4)": "預備牌不能用來出價（M9.4）",
    "a salt is sent only in trustless mode (M11.4)": "只有在免信任模式下才寄出鹽值（M11.4）",
    "a subsidy is {to: POWER, card: ID} (M9.9)": "資助的寫法是 {to: 勢力, card: 牌代號}（M9.9）",
    "bids are given per suit: S, H, D, C": "出價要按花色給出：S、H、D、C",
    "must be a whole number of at least 0": "必須是不小於 0 的整數",
    "must be pay, refuse or {pay_up_to: N} (M12.3)": "必須是 pay、refuse 或 {pay_up_to: N}（M12.3）",
    "must list the cities entered, in order": "必須依序列出進入的城市",
    "only Austria accepts or refuses peace (M9.15)": "只有奧地利能接受或拒絕和約（M9.15）",
    "supply trains may not force march (M3.6)": "補給車隊不能強行軍（M3.6）",
    "the first {n} valid cities in this order are used; the others stand by (M7.1)":
        "依此順序使用前 {n} 個有效城市；其餘候補（M7.1）",
    "the path enters {n} cities; a general may move at most {cap} here (M3.1)":
        "此路徑進入 {n} 個城市；將領在此最多只能移動 {cap} 個（M3.1）",
    "the path enters {n} cities; a supply train may move at most {cap} here (M3.1)":
        "此路徑進入 {n} 個城市；補給車隊在此最多只能移動 {cap} 個（M3.1）",
    "the split adds up to {total}, but {power} has {has} troops": "分配合計 {total}，但{power}有 {has} 兵力",
    "the trump is one of S, H, D, C": "王牌花色是 S、H、D、C 之一",
    "there is no city '{city}' on the map": "地圖上沒有城市「{city}」",
    "there is no piece '{piece}'": "沒有棋子「{piece}」",
    "you do not name the trump this turn (M5.11, M9.3)": "本回合不是由你指定王牌花色（M5.11、M9.3）",
    "{card} is not in your hand": "{card} 不在你的手牌中",
    "{city} is not a re-entry site of {power} (M4.1)": "{city}不是{power}的重新進場地點（M4.1）",
    "{city} is not on the Bohemia map (M7.1)": "{city}不在波希米亞地圖上（M7.1）",
    "{general} is not a general of {power}": "{general}不是{power}的將領",
    "{general} must get {low} to {top} troops, not {n}": "{general}必須分到 {low} 到 {top} 兵力，而不是 {n}",
    "{general} needs a number of troops": "{general}需要一個兵力數字",
    "{piece} has a second move this stage (M3.5)": "{piece}在本階段有第二次移動（M3.5）",
    "{piece} is a supply train; only generals form stacks": "{piece}是補給車隊；只有將領能組成堆疊",
    "{piece} is not on the map": "{piece}不在地圖上",
    "{piece} is not yours to move": "{piece}不是你可以移動的",
    "{power} cannot receive your subsidy (M9.9)": "{power}不能接受你的資助（M9.9）",
}


def message_table(lang: str) -> dict[str, str]:
    """The page's words in ``lang``: gettext first, then the table above, then English."""
    return dict(_message_table(lang))


@lru_cache(maxsize=4)
def _message_table(lang: str) -> dict[str, str]:
    return pagekit.message_table(lang, MESSAGES)


def _asset(name: str) -> str:
    return pagekit.asset(TEMPLATE_DIR, name)


@lru_cache(maxsize=8)
def compress_svg(svg: str) -> str:
    """``svg`` packed (:func:`pack`), without the ids nothing in it refers to: about a sixth of
    its size. A phase's map is packed once for every seat's page, and the layers that every
    phase draws alike (the ground) once per process (:func:`pagekit.svg_parts`)."""
    return pack(*pagekit.svg_parts(svg))


pack, unpack = pagekit.pack, pagekit.unpack


def _view_box(svg: str | None) -> list[float] | None:
    """The map's viewBox, which the page's overlay shares."""
    m = re.search(r'viewBox="([-\d.]+) ([-\d.]+) ([\d.]+) ([\d.]+)"', svg or "")
    return [float(v) for v in m.groups()] if m else None


def page_data(game_name: str, game: Game, state: Mapping[str, Any], seat: str, phase: Phase, *,
              campaign: str, lang: str = "en", deadline: str | None = None, tz: str = "UTC",
              pubkey: str | None = None, nonce: str | None = None,
              suggested: Mapping[str, Any] | None = None, legal: Mapping[str, Any] | None = None,
              view: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """Everything the page embeds, or ``None`` when ``seat`` sends no orders in ``phase``.

    Only the seat's view and the legal choices of the seat's own powers in ``phase`` go in. The
    deadline is shown in the seat's time zone ``tz`` with UTC beside it, as the mails show it.
    ``suggested`` (power -> orders, the autopilot's for the seat, when the campaign lets it
    suggest) fills the form at first, marked as a suggestion. ``legal`` (power -> the game's
    ``legal_orders``, for the seat's powers at least) and ``view`` (the game's view of ``state``
    for ``seat``) spare working them out again."""
    powers = [p for p in phase.powers if game.seat_of(dict(state), p) == seat]
    if not powers:
        return None
    lang = i18n.check_lang(lang)
    view = view if view is not None else game.view(dict(state), seat)
    data: dict[str, Any] = {
        "version": PAGE_VERSION,
        "game": game_name,
        "campaign": campaign,
        "nonce": nonce,
        "seat": seat,
        "phase": phase.id,
        "kind": phase.kind,
        "powers": powers,
        "lang": lang,
        "deadline": i18n.local_time(deadline, tz) if deadline else None,
        "pubkey": pubkey.split()[0] if pubkey else None,
        "legal": {p: legal[p] if legal is not None and p in legal else game.legal_orders(dict(state), p) for p in powers},
        "text": message_table(lang),
    }
    if suggested:
        data["suggested"] = {p: suggested[p] for p in powers if suggested.get(p)}
    extra = presentation(game_name).order_page_data(state, view, powers, data["legal"], lang)
    text = (extra or {}).pop("text", {})
    data["text"].update(text)
    data.update(extra or {})
    # a word the table gives as itself (every word of an English page) the page says as it is
    data["text"] = {k: v for k, v in data["text"].items() if v != k}
    return data


def render_page(data: Mapping[str, Any], map_svg: str | None = None) -> str:
    """The page's HTML from :func:`page_data` and the seat's map (SVG text, or none)."""
    text = data["text"]
    title = f"{text.get('Orders', 'Orders')} \u2014 {data['campaign']} \u2014 {data['phase']} \u2014 {data['seat']}"
    from html import escape

    sources, digest, code = _page_code(str(data["game"]), bool(data.get("schema")))
    parts = {
        "@@LANG@@": escape(str(data["lang"])),
        # character references: the page stays ASCII, so a mail carries it as it is (7bit)
        "@@TITLE@@": escape(title).encode("ascii", "xmlcharrefreplace").decode("ascii"),
        "@@STYLE@@": _asset("orderpage.css"),
        "@@UNPACK@@": _asset("unpack.js"),
        "@@DATA@@": pack(*_json_parts(data)),
        # shown as an <img>, which shows no tooltips: the places' <title>s stay out (a sixth of it)
        "@@MAP@@": _packed_map(map_svg) if map_svg else "",
        # the code travels packed too; the note names its source files and hash for anyone who
        # wants to check it against pbem's own
        "@@CODE_NOTE@@": f"code: {sources}, then PBEM.boot(), without comment lines and indentation; "
                         f"gzip, base 85 (unpack.js); SHA-256 of the code: {digest}",
        "@@SCRIPT@@": code,
    }
    return "".join([parts.get(piece, piece) for piece in _template()])


@cache
def _template() -> list[str]:
    """page.html cut at its @@MARKERS@@ (a marker stands alone between two cuts)."""
    return re.split(r"(@@[A-Z_]+@@)", _asset("page.html"))


@lru_cache(maxsize=8)
def _packed_map(svg: str) -> str:
    return pack(*pagekit.svg_parts(svg, titles=False))


# What every page of a language says alike (Maria's board, the page's words, Rome's cards and
# rules) goes first in the packed data, which then packs it once (:func:`pagekit.pack`).
_SHARED_DATA = ("map", "text", "cards", "rules_doc", "rule_texts")


def _json_parts(data: Mapping[str, Any]) -> list[bytes]:
    """``data`` as one JSON object in two parts: the keys of ``_SHARED_DATA``, then the rest."""
    head = ",".join(f"{_dump(k)}:{_dump_shared(k, data[k])}" for k in _SHARED_DATA if k in data)
    rest = _dump({k: v for k, v in data.items() if k not in _SHARED_DATA})
    if not head:
        return [rest.encode("utf-8")]
    return [("{" + head + ("," if rest != "{}" else "")).encode("utf-8"), rest[1:].encode("utf-8")]


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


_DUMPED: dict[str, list[tuple[Any, str]]] = {}  # key -> the last values seen (a copy) and their JSON


def _dump_shared(key: str, value: Any) -> str:
    """The JSON of a value every page of a language shares (the board: 50 KB), written once
    for equal values (one per language)."""
    seen = _DUMPED.setdefault(key, [])
    for old, text in seen:
        if old == value:
            return text
    text = _dump(value)
    seen.insert(0, (copy.deepcopy(value), text))
    del seen[4:]
    return text


@lru_cache(maxsize=8)
def _page_code(game_name: str, schema: bool) -> tuple[str, str, str]:
    """The sources the code note names, the SHA-256 of the page's code and the code packed: the
    same for every page of a game, so read and packed once. The code goes without its comment
    lines and indentation (:func:`pagekit.lean_script`): pbem's sources say what it does."""
    names = ["orderfile.js", "orderpage.js"]  # the signed file's bytes, then the page (PBEM)
    if schema:  # the shape check of pbem check, before the game's own checks
        names.append("shape.js")
    scripts = [_asset(n) for n in names]
    own = ""
    for path in form_scripts(game_name):
        scripts.append(path.read_text(encoding="utf-8"))
        if path.parent == templates_dir() / TEMPLATE_DIR:
            names.append(path.name)
        else:  # a plug-in game's own script
            own += f" + the game's own {path.name}"
    lean = pagekit.lean_script("\n".join(scripts) + "\nPBEM.boot();\n")
    sources = f"{' + '.join(names)} of pbem's templates/{TEMPLATE_DIR}/{own}"
    return sources, hashlib.sha256(lean.encode("utf-8")).hexdigest(), pack(lean.encode("utf-8"))


def form_scripts(game_name: str) -> list[Path]:
    """The scripts of ``game_name``'s form, in the order the page loads them: the game's own
    (``presentation.order_page_script``), else pbem's ``templates/orderpage/GAME.js`` (its data
    and model, which the others extend), then its parts ``GAME_*.js`` by name; none for a game
    without a form."""
    own = presentation(game_name).order_page_script
    if own is not None:
        return [own] if own.is_file() else []
    folder = templates_dir() / TEMPLATE_DIR
    if not (folder / f"{game_name}.js").is_file():
        return []
    return [folder / f"{game_name}.js"] + sorted(folder.glob(f"{game_name}_*.js"))


@cache
def has_form(game_name: str) -> bool:
    """Whether the page can build orders for ``game_name`` (it has a form script): asked for
    every seat's page, answered once per process, as the page's code is packed once."""
    return bool(form_scripts(game_name))


def form_source(game_name: str) -> str:
    """The text of all of ``game_name``'s form scripts, one after another."""
    return "\n".join(p.read_text(encoding="utf-8") for p in form_scripts(game_name))


def order_page(game_name: str, game: Game, state: Mapping[str, Any], seat: str, *,
               campaign: str, lang: str = "en", deadline: str | None = None, tz: str = "UTC",
               pubkey: str | None = None, map_svg: str | None = None, nonce: str | None = None,
               opened: int | None = None, suggested: Mapping[str, Any] | None = None, seq: int | None = None,
               legal: Mapping[str, Any] | None = None, view: Mapping[str, Any] | None = None) -> str | None:
    """The order page of ``seat`` for the phase now waiting in ``state``, or ``None`` when the
    seat sends no orders in it, the game is over, or the page has no form for the game.

    ``pubkey`` is the seat's roster key line (``ed25519:<hex> ...``); with it the page warns when
    the loaded key is another. ``map_svg`` is the seat's map as its private report shows it; for
    Maria it is drawn from the seat's view when not given. ``suggested``, ``legal``, ``view``: see :func:`page_data`."""
    if not has_form(game_name):
        return None
    phase = game.current_phase(dict(state))
    if phase is None:
        return None
    data = page_data(game_name, game, state, seat, phase, campaign=campaign, lang=lang,
                     deadline=deadline, tz=tz, pubkey=pubkey, nonce=nonce, suggested=suggested, legal=legal, view=view)
    if data is None:
        return None
    if opened is not None:  # the phase was reopened by this record: signing reveals a fresh value
        data["opened"] = opened
    if seq is not None:  # the lowest seq the reopened phase takes from this seat
        data["seq"] = seq
    svg = map_svg
    if svg is None:
        svg = presentation(game_name).order_page_map(view if view is not None else game.view(dict(state), seat), data["lang"])
    data["view_box"] = _view_box(svg)
    return render_page(data, svg)
