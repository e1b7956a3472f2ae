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
from collections.abc import Callable
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
        + "</script>\n<script>\n" + pagekit.asset("sealed", "opener.js") + "SEALED.boot();\n</script>\n</body>\n</html>\n"
    )


# The order page of a seat whose reports are sealed: its data (the seat's view, hand and legal
# orders) is sealed too, and the key file the player loads to sign opens it first.
ORDER_WORDS = {
    "title": "Your key opens this order page",
    "help": "Load your key file (NAME.key): the page's orders part is encrypted to it and opens here; the same key then signs your orders. The key stays in this page and is never sent anywhere.",
    "notkey": WORDS["notkey"],
    "wrong": "This key cannot open the order page: it is not for this key, or the page was changed.",
    "browser": "This browser cannot open the order page (it needs X25519 in WebCrypto).",
}
MESSAGES.update({
    ORDER_WORDS["title"]: "你的金鑰可開啟此命令頁",
    ORDER_WORDS["help"]: "載入你的金鑰檔（NAME.key）：本頁的命令部分已加密給它，會在此開啟；再以同一把金鑰簽署你的命令。金鑰只留在本頁，不會傳送到任何地方。",
    ORDER_WORDS["wrong"]: "此金鑰無法開啟命令頁：命令頁不是加密給這把金鑰的，或已被更改。",
    ORDER_WORDS["browser"]: "此瀏覽器無法開啟命令頁（需要 WebCrypto 的 X25519）。",
})
_PACK = '<script type="text/plain" id="pbem-pack">'

_ORDER_OPENER = """
window.PBEM_SEALED = (function () {
  "use strict";
  var words = JSON.parse(document.getElementById("pbem-sealed-words").textContent);
  var input = document.getElementById("key-file"), status = document.getElementById("key-status");
  document.getElementById("h-key").textContent = words.title;
  document.getElementById("key-help").textContent = words.help;
  function data() {
    return new Promise(function (resolve) {
      function onKey() {
        var file = input.files[0];
        if (!file) return;
        status.textContent = "";
        file.text().then(function (text) {
          var hex = SEALED.x25519Hex(text);
          if (!hex) { status.textContent = words.notkey; input.value = ""; return null; }
          return SEALED.unseal(document.getElementById("pbem-sealed").textContent, hex).then(function (plain) {
            if (plain === null) { status.textContent = words.wrong; input.value = ""; return; }
            input.removeEventListener("change", onKey);
            resolve(plain);
          });
        }).catch(function () { status.textContent = words.browser; input.value = ""; });
      }
      input.addEventListener("change", onKey);
    });
  }
  // the page's own code now reads the same key file, to sign with it
  function booted() { input.dispatchEvent(new Event("change")); }
  return { data: data, booted: booted };
})();
"""


def seal_order_page(page: str, seal: Callable[[bytes], str], lang: str) -> str:
    """``page`` (an order page, :func:`pbem.render.orderpage.render_page`) with its packed data
    sealed by ``seal`` (bytes -> the armoured text of :func:`pbem.core.privacy.seal`) in place of
    the data in clear. The gzip the page packed is sealed as it is; the page inflates it."""
    table = pagekit.message_table(lang, MESSAGES)
    words = {k: table[v] for k, v in ORDER_WORDS.items()}
    start = page.index(_PACK)
    end = page.index("</script>", start) + len("</script>")
    armour = seal(pagekit.packed_gzip(page[start + len(_PACK):end - len("</script>")]))
    block = (
        f'<pre id="pbem-sealed" hidden>{escape(armour)}</pre>\n'
        '<script type="application/json" id="pbem-sealed-words">'
        + json.dumps(words, sort_keys=True).replace("<", "\\u003c")
        + "</script>\n<script>\n" + pagekit.asset("sealed", "opener.js") + _ORDER_OPENER + "</script>"
    )
    return page[:start] + block + page[end:]
