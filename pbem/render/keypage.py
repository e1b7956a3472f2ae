"""The offline key page: one self-contained HTML file that makes a player's keys in the browser.

A player who has only a mail client and a browser opens the page (the GM mails it, made by
``pbem keygen --page``), types a name and gets the two files ``pbem keygen`` would write:
``NAME.key``, the secret key file in :func:`pbem.core.keys.format_private_key`'s exact format,
and ``NAME.pub``, the public key line to mail to the GM. The keys are made by the browser's
WebCrypto (Ed25519 and X25519); the page fetches nothing and sends nothing.

This module is pure: :func:`key_page` returns the HTML text; the command writes it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pbem.common.keyname import BAD_KEY_NAME as BAD_NAME
from pbem.common.keyname import KEY_NAME, check_key_name
from pbem.errors import KeyFileError
from pbem.render import i18n, pagekit

TEMPLATE_DIR = "keypage"
LANGS = tuple(i18n.LOCALES)

# The page's words: English message ids, translated with the project's gettext catalog; the
# Traditional Chinese here serves until the catalog carries the same ids. ``{name}`` is filled in.
MESSAGES: dict[str, str] = {
    "pbem: make your keys": "pbem：產生你的金鑰",
    "This page makes your two pbem keys in this browser: one signs your orders, the other opens your private reports. It works offline and sends nothing anywhere.":
        "本頁在此瀏覽器中產生你的兩把 pbem 金鑰：一把用來簽署命令，另一把用來開啟你的私人戰報。本頁離線運作，不會傳送任何資料。",
    "This page needs JavaScript.": "本頁需要 JavaScript。",
    "1. Your name": "1. 你的名稱",
    "Use the name your GM asked for (usually your seat). Letters, digits, '.', '_', '-'; up to 64.":
        "請使用 GM 指定的名稱（通常是你的席位）。可用英文字母、數字、「.」「_」「-」，最多 64 個字元。",
    "Make my keys": "產生我的金鑰",
    BAD_NAME: "「{name}」不能作為金鑰名稱（只能用英文字母、數字、「.」「_」「-」，最多 64 個字元）",
    "This browser cannot make the keys (WebCrypto Ed25519 and X25519); use a current browser, or 'pbem keygen'.":
        "此瀏覽器無法產生金鑰（WebCrypto Ed25519 與 X25519）；請使用較新的瀏覽器，或改用 pbem keygen。",
    "Keys made for {name}. Save the secret key, then send the public key.":
        "已為 {name} 產生金鑰。請先儲存私鑰，再寄出公鑰。",
    "2. Save your secret key": "2. 儲存你的私鑰",
    "Save {name}": "儲存 {name}",
    "Keep it secret: whoever has this file can sign orders in your name. Never mail it, not even to the GM.":
        "請保密：任何取得此檔的人都能以你的名義簽署命令。切勿寄出此檔，連 GM 也不要給。",
    "Keep a backup copy (a USB stick, a second computer): without it you can neither sign orders nor read your private reports.":
        "請另存備份（隨身碟、另一台電腦）：遺失後你既不能簽署命令，也無法閱讀私人戰報。",
    "You load it into each order page the GM mails you. To use it with pbem on the command line, first make it private: chmod 600 NAME.key":
        "每次 GM 寄來命令頁時，在頁中載入此檔。若要在命令列使用 pbem，請先將它設為僅自己可讀：chmod 600 NAME.key",
    "3. Send your public key to the GM": "3. 將公鑰寄給 GM",
    "Mail this line (or the .pub file) to your GM. It is safe to share: it only lets others check your signatures and encrypt your reports.":
        "將這一行（或 .pub 檔）寄給 GM。公開它是安全的：別人只能用它查驗你的簽章、加密寄給你的戰報。",
    "Copy": "複製",
    "Copied": "已複製",
    "Making keys again gives new, different keys. Send only the line that belongs to the secret key you keep.":
        "再次產生會得到一組新的、不同的金鑰。只寄出與你保留的私鑰相符的那一行。",
    "The campaign": "戰役",
    "The GM made this page for the campaign below. Its start report (the first mail the campaign sends you) must show the same values; the GM fixed them before any player committed entropy, so it cannot choose the deal.":
        "GM 為下列戰役製作了本頁。它的開局戰報（戰役寄給你的第一封信）必須列出相同的值；GM 在任何玩家承諾亂數之前就已固定它們，所以無法選擇發牌。",
    "Campaign": "戰役",
    "Public hash-chain anchor": "公開雜湊鏈錨點",
    "Commitment to the secret key": "秘密金鑰的承諾",
    "Campaign nonce (every order file carries it)": "戰役 nonce（每份命令檔都帶有它）",
    "The campaign does not exist yet: the GM makes it from your public key. Its public hash-chain anchor, its commitment to the secret key and its nonce come in the first mail it sends you, the start report (section Archive), before any round asks you to commit entropy. Keep that mail.":
        "戰役尚未建立：GM 會用你的公鑰建立它。它的公開雜湊鏈錨點、秘密金鑰的承諾與 nonce 會在它寄給你的第一封信——開局戰報（「檔案庫」一節）——中送達，早於任何要求你承諾亂數的回合。請保留那封信。",
}

_WORDS = re.compile(r"\{\{(.+?)\}\}")


def message_table(lang: str) -> dict[str, str]:
    """The page's words in ``lang``: gettext first, then the table above, then English."""
    return pagekit.message_table(lang, MESSAGES)


def _asset(name: str) -> str:
    return pagekit.asset(TEMPLATE_DIR, name)


def key_page(lang: str = "en", name: str | None = None, campaign: Mapping[str, str] | None = None) -> str:
    """The key page's HTML in ``lang`` (``en`` or ``zh-TW``); ``name`` pre-fills the name box.

    ``campaign`` (``id``, ``anchor``, ``commitment``, ``nonce``: what record 0 publishes) is the
    campaign the page is made for, when it exists already (a new player for a seat); the page
    shows its values to compare with the start report. Without it the page says where they come."""
    from html import escape

    if lang not in LANGS:
        raise KeyFileError(f"no key page in language '{lang}' (choose from {', '.join(LANGS)})")
    if name is not None:
        check_key_name(name)
    text = message_table(lang)
    data = {"lang": lang, "name": name or "", "name_pattern": KEY_NAME.pattern, "text": text}
    page = _asset("page.html")
    page = page.replace("@@LANG@@", escape(lang)).replace("@@STYLE@@", _asset("keypage.css"))
    page = _campaign_section(page, campaign)
    page = _WORDS.sub(lambda m: escape(text[m.group(1)], quote=False), page)
    # the data and the script go in last, so nothing in them is taken for a marker
    return page.replace("@@DATA@@", pagekit.script_json(data)).replace("@@SCRIPT@@", _asset("keypage.js"))



def _campaign_section(page: str, campaign: Mapping[str, str] | None) -> str:
    """``page`` with the card that names the campaign's values fixed at creation, or with the
    card that says where they come (the other card hidden)."""
    from html import escape

    values = campaign or {}
    page = page.replace("@@FOR_CAMPAIGN@@", "" if campaign else " hidden").replace("@@BEFORE_CAMPAIGN@@", " hidden" if campaign else "")
    for marker, key in (("ID", "id"), ("ANCHOR", "anchor"), ("COMMITMENT", "commitment"), ("NONCE", "nonce")):
        page = page.replace(f"@@CAMPAIGN_{marker}@@", escape(str(values.get(key) or "-")))
    return page
