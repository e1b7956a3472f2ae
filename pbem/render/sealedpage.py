"""The sealed report page: a private report encrypted to the player's key, which opens in a
browser.

A campaign with ``encrypt_private`` mails each seat its private report sealed to the seat's
X25519 key (:mod:`pbem.core.privacy`). The seat gets it as ``private-SEAT.html``: an offline page
holding the armoured report as text, with a file input for the key file; the page decrypts with
WebCrypto (X25519, HKDF) and its own ChaCha20-Poly1305 (``templates/sealed/opener.js``) and shows
the report in place. ``pbem decrypt private-SEAT.html --key NAME.key`` reads the same file, so a
player without a browser loses nothing.
"""

from __future__ import annotations

import json
from html import escape

from pbem.render import pagekit

# The page's words: English ids, translated by the project's gettext catalog where it has them,
# else by the Traditional Chinese here (as the order page does).
WORDS = {
    "title": "Your private report, encrypted to your key",
    "help": "Load your key file (NAME.key): the report opens here. The key stays in this page and is never sent anywhere; pbem decrypt opens this file too.",
    "notkey": "Not a pbem private key file (made by 'pbem keygen')",
    "wrong": "This key cannot open the report: it is not for this key, or the report was changed.",
    "browser": "This browser cannot open the report (it needs X25519 in WebCrypto); use pbem decrypt.",
}
MESSAGES = {
    WORDS["title"]: "你的私人報告（已加密給你的金鑰）",
    WORDS["help"]: "載入你的金鑰檔（NAME.key）：報告會在此開啟。金鑰只留在本頁，不會傳送到任何地方；pbem decrypt 也能開啟此檔。",
    WORDS["notkey"]: "不是 pbem 私鑰檔（由 pbem keygen 產生）",
    WORDS["wrong"]: "此金鑰無法開啟報告：報告不是加密給這把金鑰的，或已被更改。",
    WORDS["browser"]: "此瀏覽器無法開啟報告（需要 WebCrypto 的 X25519）；請改用 pbem decrypt。",
}


def sealed_page(armoured: str, seat: str, lang: str) -> str:
    """The page of ``seat``'s sealed report (the text :func:`pbem.core.privacy.seal` made)."""
    table = pagekit.message_table(lang, MESSAGES)
    words = {k: table[v] for k, v in WORDS.items()}

    def ascii_html(text: str) -> str:  # character references keep the page ASCII (7bit in a mail)
        return escape(text).encode("ascii", "xmlcharrefreplace").decode("ascii")

    return (
        f'<!DOCTYPE html>\n<html lang="{escape(lang)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
        "style-src 'unsafe-inline'; img-src data: blob:; connect-src 'none'; form-action 'none'\">\n"
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{ascii_html(words['title'])} ({ascii_html(seat)})</title>\n"
        "<style>body { font-family: sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }"
        " pre { font-size: .7rem; color: #777; white-space: pre-wrap; word-break: break-all; }"
        " #status { color: #a00; }</style>\n</head>\n<body>\n"
        f"<h1>{ascii_html(words['title'])} ({ascii_html(seat)})</h1>\n"
        f"<p>{ascii_html(words['help'])}</p>\n"
        '<p><input type="file" id="key-file" accept=".key,.yaml,.txt,text/plain"></p>\n<p id="status"></p>\n'
        f'<pre id="sealed">{escape(armoured)}</pre>\n'
        '<script type="application/json" id="pbem-words">'
        + json.dumps(words, sort_keys=True).replace("<", "\\u003c")
        + "</script>\n<script>\n" + pagekit.asset("sealed", "opener.js") + "</script>\n</body>\n</html>\n"
    )
