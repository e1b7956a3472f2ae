"""Writes the mail-client corpus: one signed order file pasted into a mail body in the shapes
common mail clients give it (README.md says what each client does and where that is documented).

The order file is north's round-1 orders in the mini test game's campaign ``clients-1``, signed
with the fixed key of the hostile corpus (Ed25519 signatures are deterministic), in two forms:
as ``pbem sign`` writes it now (no line over 72 characters) and as it wrote it before (the
signature and the hashes on lines of up to 97 characters), the file a client's wrapping breaks.
``python tests/mailclients/make_corpus.py`` rewrites the same bytes; ``tests/test_mail_clients.py``
takes every mail in and checks what intake reads.
"""

from __future__ import annotations

import base64
import quopri
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from hostile.make_corpus import corpus_key, entropy_commit  # noqa: E402

from pbem.core.envelope import format_document, sign_data  # noqa: E402

CAMPAIGN = "clients-1"
SENDER = "Nora North <north@example.org>"
DATE = "Tue, 01 Dec 2026 11:30:00 +0000"
NOTE = "維也納 first, then Prag if the roads are open; hold Breslau with every troop"


def order_data() -> dict[str, Any]:
    return {
        "pbem": 1, "campaign": CAMPAIGN, "player": "north", "phase": "round-1", "seq": 1,
        "entropy_commit": entropy_commit("north/round-1/1"), "orders": {"N": {"bid": 3, "note": NOTE}},
    }


def signed() -> dict[str, Any]:
    return sign_data(order_data(), corpus_key("north"))


def new_file() -> str:
    """The order file as ``pbem sign`` writes it: no line over 72 characters."""
    return format_document(signed())


def old_file() -> str:
    """The same signed data as ``pbem sign`` wrote it before folding (lines up to 97 characters)."""
    return yaml.safe_dump(signed(), sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)


REPORT = (
    "Report of round-1 for north. The battle at Kolin was fought on the second day; your general "
    "held the field. Send your orders for round-2 before the deadline.\n\nThe GM"
)

# -- what clients do to text ------------------------------------------------------------------


def hard_wrap(text: str, width: int, split_words: bool = False) -> str:
    """Break every line longer than ``width`` at its last space, dropping that space (Outlook,
    Gmail's plain-text mode, an editor's text width); with ``split_words`` a word longer than
    the line is cut too."""
    out = []
    for line in text.split("\n"):
        while len(line) > width:
            cut = line.rfind(" ", 0, width + 1)
            if cut <= 0:
                if not split_words:
                    break
                out.append(line[:width])
                line = line[width:]
                continue
            out.append(line[:cut])
            line = line[cut + 1:]
        out.append(line)
    return "\n".join(out)


def flow(text: str, width: int = 72, delsp: bool = False, quote: int = 0) -> str:
    """Encode ``text`` as format=flowed (RFC 3676 §4.2): space-stuff lines that start with a
    space, ``>`` or ``From `` (§4.4) and break lines longer than ``width`` after a space (a soft
    break: the line ends with the space). With DelSp=yes (§4.5) a break may fall inside a word:
    the space put there is taken away again by the reader."""
    prefix = ">" * quote + (" " if quote else "")
    out = []
    for line in text.split("\n"):
        if line.startswith((" ", ">", "From ")) or (quote and line == ""):
            line = " " + line if not quote else line
        room = width - len(prefix)
        while len(line) > room:
            cut = line.rfind(" ", 0, room)
            if cut > 0:  # with DelSp=yes the space of the soft break is one more than the text's
                out.append(prefix + line[:cut + 1] + (" " if delsp else ""))
                line = line[cut + 1:]
            elif delsp:
                out.append(prefix + line[:room - 1] + " ")
                line = line[room - 1:]
            else:
                break
        out.append(prefix + line)
    return "\n".join(out)


def quote(text: str, mark: str = "> ") -> str:
    return "\n".join((mark + line).rstrip() if line else mark.rstrip() for line in text.split("\n"))


def html_lines(text: str, line: Callable[[str], str]) -> str:
    """HTML with one element per line of ``text``, leading spaces as ``&nbsp;`` (the way
    composers keep indentation)."""
    out = []
    for raw in text.split("\n"):
        stripped = raw.lstrip(" ")
        body = "&nbsp;" * (len(raw) - len(stripped)) + stripped.replace("&", "&amp;").replace("<", "&lt;")
        out.append(line(body))
    return "".join(out)


# -- MIME ------------------------------------------------------------------------------------


def headers(n: int, client: str, subject: str = "orders round-1", **extra: str) -> str:
    head = {
        "From": SENDER, "To": "GM <gm@example.org>", "Subject": subject, "Date": DATE,
        "Message-ID": f"<clients-{n}@example.org>", "MIME-Version": "1.0", client.split(":")[0]: client.split(":", 1)[1].strip(),
    }
    head.update({k.replace("_", "-"): v for k, v in extra.items()})
    return "".join(f"{k}: {v}\n" for k, v in head.items())


def encode(text: str, cte: str, charset: str = "utf-8") -> str:
    data = text.replace("\n", "\r\n").encode(charset)
    if cte == "quoted-printable":
        return quopri.encodestring(data).decode("ascii")
    if cte == "base64":
        b = base64.b64encode(data).decode()
        return "\n".join(b[i:i + 76] for i in range(0, len(b), 76))
    return data.decode(charset)


def leaf(ctype: str, text: str, cte: str = "8bit", charset: str = "utf-8", params: str = "") -> str:
    return (f"Content-Type: {ctype}; charset={charset}{params}\nContent-Transfer-Encoding: {cte}\n\n"
            + encode(text, cte, charset))


def alternative(plain: str, html: str, boundary: str) -> str:
    return (f'Content-Type: multipart/alternative; boundary="{boundary}"\n\n'
            f"--{boundary}\n{plain}\n--{boundary}\n{html}\n--{boundary}--\n")


def finish(head: str, body: str, charset: str = "utf-8") -> bytes:
    return (head + body).replace("\r\n", "\n").replace("\n", "\r\n").encode(charset)


# -- the corpus ------------------------------------------------------------------------------


def mails() -> dict[str, bytes]:
    new, old = new_file(), old_file()
    hello, bye = "Hello GM,\n\nhere are my orders:\n\n", "\nThanks,\nNora\n"
    sig = "\n-- \nNora North\nhttps://example.org/nora\n"
    attribution = {
        "thunderbird": "On 01/12/2026 10:00, GM wrote:",
        "gmail": "On Tue, Dec 1, 2026 at 10:00 AM GM <gm@example.org> wrote:",
        "k9": "On December 1, 2026 10:00:00 AM UTC, GM <gm@example.org> wrote:",
        "mutt": "On Tue, Dec 01, 2026 at 10:00:00AM +0000, GM wrote:",
    }
    out: dict[str, bytes] = {}
    tb = "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Thunderbird/128.5.0"
    flowed = "; format=flowed"

    # Thunderbird: format=flowed at 72 columns by default
    out["thunderbird-flowed.eml"] = finish(headers(1, tb), leaf("text/plain", flow(hello + new + bye + sig), params=flowed))
    out["thunderbird-flowed-old-file.eml"] = finish(headers(2, tb), leaf("text/plain", flow(hello + old + bye + sig), params=flowed))
    out["thunderbird-reply.eml"] = finish(headers(3, tb, "Re: report round-1", In_Reply_To="<report-1@example.org>"),
                                          leaf("text/plain", flow(old) + "\n" + attribution["thunderbird"] + "\n" + flow(REPORT, quote=1), params=flowed))
    html = ('<html><head><meta http-equiv="content-type" content="text/html; charset=UTF-8"></head><body>'
            "<p>Hello GM,</p><p>here are my orders:</p><p>" + html_lines(old, lambda s: s + "<br>\n") + "</p>"
            '<p>Thanks,<br>Nora</p><div class="moz-signature">-- <br>Nora North</div></body></html>')
    out["thunderbird-html.eml"] = finish(headers(4, tb), alternative(
        leaf("text/plain", flow(hello + old + bye + sig), params=flowed), leaf("text/html", html), "------------tb4"))

    # Apple Mail: format=flowed with delsp=yes, quoted-printable
    am = "X-Mailer: Apple Mail (2.3826.300.87.4.3)"
    out["apple-mail-flowed-delsp.eml"] = finish(headers(5, am), leaf(
        "text/plain", flow(hello + old + bye + "\nSent from my iPhone\n", width=76, delsp=True),
        cte="quoted-printable", params="; format=flowed; delsp=yes"))
    html = ('<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head>'
            '<body dir="auto"><div>Hello GM,</div><div><br></div>'
            + html_lines(new, lambda s: f"<div>{s or '<br>'}</div>") + "<div><br></div><div>Nora</div></body></html>")
    out["apple-mail-alternative.eml"] = finish(headers(6, am), alternative(
        leaf("text/plain", hello + new + bye, cte="quoted-printable"), leaf("text/html", html, cte="quoted-printable"),
        "Apple-Mail=_6"))

    # Gmail (web): multipart/alternative, the HTML in <div dir="ltr"> with <br> lines
    gm = "X-Gm-Message-State: AOJu0Yw"
    gmail_html = ('<div dir="ltr"><div>Hello GM,</div><div><br></div><div>'
                  + html_lines(new, lambda s: s + "<br>") + "</div><div>Thanks,</div><div>Nora</div>"
                  '<span class="gmail_signature_prefix">-- </span><br><div dir="ltr" class="gmail_signature">Nora North</div></div>\n')
    out["gmail-web.eml"] = finish(headers(7, gm), alternative(
        leaf("text/plain", hello + new + bye + sig, cte="quoted-printable"), leaf("text/html", gmail_html, cte="quoted-printable"),
        "000000000000gm7"))
    quoted_html = (f'<div class="gmail_quote"><div dir="ltr" class="gmail_attr">{attribution["gmail"]}<br></div>'
                   '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">'
                   + REPORT.replace("\n", "<br>") + "</blockquote></div>\n")
    out["gmail-web-reply.eml"] = finish(headers(8, gm, "Re: report round-1"), alternative(
        leaf("text/plain", old + "\n" + attribution["gmail"] + "\n\n" + quote(REPORT) + "\n", cte="quoted-printable"),
        leaf("text/html", '<div dir="ltr">' + html_lines(old, lambda s: s + "<br>") + "</div><br>" + quoted_html, cte="quoted-printable"),
        "000000000000gm8"))
    out["gmail-plain-text-mode.eml"] = finish(headers(9, gm), leaf(
        "text/plain", hard_wrap(hello + old + bye, 78), cte="quoted-printable"))
    out["gmail-android.eml"] = finish(headers(10, gm), alternative(
        leaf("text/plain", old, cte="base64"),
        leaf("text/html", '<div dir="auto">' + html_lines(old, lambda s: s + "<br>") + "</div>", cte="base64"),
        "000000000000gm10"))

    # Outlook: plain text wrapped at 76; HTML in MsoNormal paragraphs; replies without quote marks
    ol = "X-Mailer: Microsoft Outlook 16.0"
    outlook_head = "\n________________________________\nFrom: GM <gm@example.org>\nSent: Tuesday, December 1, 2026 10:00 AM\nTo: Nora North <north@example.org>\nSubject: report round-1\n\n"
    out["outlook-plain-wrapped.eml"] = finish(headers(11, ol), leaf(
        "text/plain", hard_wrap(hello + old + bye, 76), cte="quoted-printable"))
    out["outlook-reply-unquoted.eml"] = finish(headers(12, ol, "RE: report round-1"), leaf(
        "text/plain", hard_wrap(old, 76) + outlook_head + REPORT + "\n", cte="quoted-printable"))
    mso = ('<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><meta http-equiv=Content-Type content="text/html; charset=utf-8">'
           "<style><!-- p.MsoNormal {margin:0cm; font-size:11.0pt;} --></style><!--[if gte mso 9]><xml><o:shapedefaults v:ext=\"edit\" spidmax=\"1026\" /></xml><![endif]-->"
           '</head><body lang=EN-GB><div class=WordSection1><p class=MsoNormal>Hello GM,<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p>'
           + html_lines(old, lambda s: f"<p class=MsoNormal>{s or '<o:p>&nbsp;</o:p>'}<o:p></o:p></p>\n") + "</div></body></html>")
    # the plain part's long words cut (beyond repair): the HTML alternative is read instead
    out["outlook-alternative-broken-plain.eml"] = finish(headers(13, ol), alternative(
        leaf("text/plain", hard_wrap(hello + old, 76, split_words=True), cte="quoted-printable"),
        leaf("text/html", mso, cte="quoted-printable"), "_000_outlook13_"))
    out["outlook-big5.eml"] = finish(headers(14, ol), leaf(
        "text/plain", "GM 您好，我的命令如下：\n\n" + new + "\n謝謝\n", cte="quoted-printable", charset="big5"))

    # K-9 Mail / FairEmail (Android): quoted-printable plain text, "> " quoting; HTML in <pre>
    k9 = "User-Agent: K-9 Mail for Android"
    out["k9-reply.eml"] = finish(headers(15, k9, "Re: report round-1"), leaf(
        "text/plain", new + "\n" + attribution["k9"] + "\n" + quote(REPORT) + "\n-- \nSent from my Android device with K-9 Mail. Please excuse my brevity.\n",
        cte="quoted-printable"))
    out["k9-html-pre.eml"] = finish(headers(16, k9), alternative(
        leaf("text/plain", old, cte="quoted-printable"),
        leaf("text/html", '<!DOCTYPE html><html><body><pre class="k9mail">' + old.replace("<", "&lt;") + "</pre></body></html>",
             cte="quoted-printable"), "----K9-16"))
    fe = "User-Agent: FairEmail"
    out["fairemail-flowed.eml"] = finish(headers(17, fe), leaf(
        "text/plain", flow(hello + old + bye, width=76), cte="quoted-printable", params=flowed))

    # mutt: plain text as the editor left it (wrapped at 72), "> " quoting, "-- " signature
    mt = "User-Agent: Mutt/2.2.13 (2024-03-09)"
    out["mutt-editor-wrapped.eml"] = finish(headers(18, mt), leaf("text/plain", hard_wrap(hello + old + bye, 72) + sig))
    out["mutt-text-flowed-reply.eml"] = finish(headers(19, mt, "Re: report round-1"), leaf(
        "text/plain", flow(old) + "\n" + attribution["mutt"] + "\n" + flow(REPORT, quote=1) + "\n" + flow(sig), params=flowed))
    out["mutt-resent-quoted.eml"] = finish(headers(20, mt, "Re: where are my orders?"), leaf(
        "text/plain", "You asked for them again; here they are as I sent them:\n\n" + attribution["mutt"] + "\n" + quote(new) + "\n" + sig))

    # HTML only (some webmail and phone composers)
    out["html-only.eml"] = finish(headers(21, "X-Mailer: webmail"), leaf(
        "text/html", "<html><body><p>Hello GM,</p>" + html_lines(new, lambda s: f"<p>{s}</p>\n" if s else "")
        + "<p>Nora</p></body></html>", cte="quoted-printable"))

    # broken: the paste lost the end of the signature (a selection that stopped short)
    cut = old.rstrip("\n")[:-12] + "\n"
    out["broken-signature-cut.eml"] = finish(headers(22, tb), leaf("text/plain", flow(hello + cut + bye), params=flowed))
    return out


# the mail that is refused, the line intake names and the words of its refusal
BROKEN = {"broken-signature-cut.eml": "signature.value"}


def write_corpus(root: Path = HERE) -> None:
    for name, data in mails().items():
        (root / name).write_bytes(data)
    (root / "north.yaml").write_text(new_file(), encoding="utf-8")
    (root / "north-old-format.yaml").write_text(old_file(), encoding="utf-8")


if __name__ == "__main__":
    write_corpus(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
