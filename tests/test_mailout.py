"""Report mails written directly (pbem.core.mailout) hold the same parts as the email package's
build of the same mail, once the email package's parser reads them: the same tree of parts, the
same headers that matter (types, charsets, file names, Content-IDs, dispositions) and the same
decoded bytes in every part."""

from __future__ import annotations

import email
import email.policy
import random
from typing import Any

import pytest

from pbem.core.mailout import email_package_mail, report_mail

POLICY = email.policy.SMTP


def _shape(raw: bytes) -> list[tuple[Any, ...]]:
    msg = email.message_from_bytes(raw, policy=POLICY)
    out: list[tuple[Any, ...]] = [(h, str(msg[h])) for h in ("From", "To", "Subject", "Message-ID", "Auto-Submitted")]
    for part in msg.walk():
        row: tuple[Any, ...] = (part.get_content_type(), part.get_param("charset"), part.get_filename(),
                                part.get("Content-ID"), part.get_content_disposition())
        if not part.is_multipart():
            row += (part.get_payload(decode=True),)
            if part.get_content_maintype() == "text":
                row += (part.get_content(),)
        out.append(row)
    return out


def _both(**kw: Any) -> tuple[bytes, bytes]:
    fast = report_mail(**kw)
    slow = email_package_mail(**kw).as_bytes(policy=POLICY)
    return fast, slow


TEXTS = [
    "Hello\n",
    "no newline at the end",
    "",
    "普魯士 takes Glatz (M4.2)\n" * 30,
    "a line with a trailing space \nand a tab\t\nand = signs == here\n",
    "x" * 2000 + "\n",
    "mixed\r\nline\rends\n\n\nand blank lines\n",
    "=E6 looks encoded but is not\n.\nFrom the start\n",
    "中文" * 600,
]


@pytest.mark.parametrize("i", range(len(TEXTS)))
def test_same_parts_as_the_email_package(i: int) -> None:
    text = TEXTS[i]
    html = f"<p>{TEXTS[-1 - i]}</p>\n"
    png = bytes(range(256)) * 7
    for attachments, related in (
        ([], []),
        ([(text.encode("utf-8"), "text", "yaml", "orders-0004-1741-1_france-frederick.yaml")], []),
        ([(b'{"a": 1,\n"b": [1, 2]}', "application", "schema+json", "stage.schema.json"),
          (png, "application", "octet-stream", "data.bin"),
          (html.encode("utf-8"), "text", "html", "orders-0004-1741-1_france-frederick.html")],
         [(png, "image", "png", "map-0004.png", "map-0004-whole@pbem")]),
        ([], [(png[:100], "image", "png", "a.png", "a@pbem"), (png, "image", "png", "b.png", "b@pbem")]),
    ):
        fast, slow = _both(sender="pbem GM <gm@example.org>", to="player@example.org",
                           subject="1741-1 報告: France" if i % 2 else "1741-1 report", mid="<report.x@c.pbem>",
                           text=text, html=html, attachments=attachments, related=related)
        assert _shape(fast) == _shape(slow)
        assert all(len(line) <= 998 for line in fast.split(b"\r\n"))
        assert b"\n" not in fast.replace(b"\r\n", b"")  # every line ends CRLF


def test_random_texts_give_the_same_parts() -> None:
    rng = random.Random(16)
    alphabet = "ab =\t.\n\r中é-" + "x" * 10
    for _ in range(60):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 400)))
        html = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 400)))
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200)))
        fast, slow = _both(sender="gm@example.org", to="p@example.org", subject="s", mid="<m@c.pbem>", text=text,
                           html=html, attachments=[(text.encode("utf-8"), "text", "yaml", "o.yaml"),
                                                   (data, "application", "octet-stream", "d.bin")],
                           related=[(data, "image", "png", "m.png", "m@pbem")])
        assert _shape(fast) == _shape(slow)


def test_a_file_name_it_does_not_expect_goes_through_the_email_package() -> None:
    kw: dict[str, Any] = dict(sender="gm@example.org", to="p@example.org", subject="s", mid="<m@c.pbem>",
                              text="t\n", html="<p>h</p>\n", attachments=[(b"x\n", "text", "plain", "ordres é.txt")])
    fast, slow = _both(**kw)
    assert fast == slow
    assert _shape(fast)[-1][2] == "ordres é.txt"


def test_same_content_same_bytes() -> None:
    kw: dict[str, Any] = dict(sender="gm@example.org", to="p@example.org", subject="s", mid="<m@c.pbem>",
                              text="t\n", html="<p>h</p>\n", attachments=[(b"x\n", "text", "yaml", "o.yaml")])
    assert report_mail(**kw) == report_mail(**kw)
    other = report_mail(**dict(kw, text="u\n"))
    assert other != report_mail(**kw) and b"=_pbem_" in other


def test_line_ends_and_base64_lines_as_before() -> None:
    """The fast paths write what the line-by-line loops wrote: CRLF for every line end that
    bytes.splitlines knows, a last line without one left so; base 64 in lines of 76."""
    import binascii

    from pbem.core.mailout import _base64, _crlf_lines, _lines

    def lines(data: bytes) -> bytes:
        return b"".join(line.rstrip(b"\r\n") + b"\r\n" if line.endswith((b"\n", b"\r")) else line
                        for line in data.splitlines(keepends=True))

    for data in (b"", b"a", b"a\n", b"\n", b"a\n\n", b"a\r\nb\r\n", b"a\rb\nc\r\n\r\n\n\rd", b"x\r\n" * 50 + b"end",
                 b"x\n" * 50 + b"end", bytes(range(256))):
        assert _lines(data) == lines(data), data
        assert _crlf_lines(data) == b"\r\n".join(data.splitlines()) + b"\r\n", data
        # quoted-printable of lines ended CRLF ends its own lines CRLF: nothing for _lines to do
        for text in (data, data + b" \t", data + "中=\t \r.\r\n".encode() * 40, b"y" * 300 + data):
            qp = binascii.b2a_qp(_crlf_lines(text), quotetabs=False, istext=True, header=False)
            assert _lines(qp) == qp, text
    for n in (0, 1, 56, 57, 58, 114, 1000):
        data = bytes(range(256)) * 4
        old = b"".join(binascii.b2a_base64(data[:n][i:i + 57], newline=False) + b"\r\n" for i in range(0, n, 57))
        assert _base64(data[:n]) == old


def test_a_plain_message_id_is_written_as_the_policy_folds_it() -> None:
    """The Message-IDs pbem makes are written out directly: the same line as the email
    package's SMTP policy folds, up to and past the length where it would fold."""
    from pbem.core.mailout import _header

    rnd = random.Random(78)
    values = ["<report.0008-1741-2_prussia.maria_theresa@demo-maria.pbem>", "<a@b>", "<.a+b@c..d>", "<-@->"]
    for n in range(1, 90):
        left = "".join(rnd.choice("abXY09._+-") for _ in range(rnd.randrange(1, n + 1)))
        values.append(f"<{left}@{''.join(rnd.choice('ab09._-') for _ in range(n))}>")
    for value in values:
        assert _header("Message-ID", value) == str(POLICY.header_factory("Message-ID", value).fold(policy=POLICY)), value


def test_seven_bit_tells_long_lines_as_cutting_every_line_would() -> None:
    """Whether a text travels as it is: the same answer as measuring each of its lines, for
    lines just under, at and over the limit anywhere in it, and every kind of line end."""
    from pbem.core.mailout import _seven_bit

    def plain(body: str | bytes, limit: int) -> bool:
        return body.isascii() and max(map(len, body.splitlines()), default=0) < limit

    rnd = random.Random(990)
    for _ in range(400):
        limit = rnd.choice([990, 990, 7, 8, 1])
        parts = []
        for _ in range(rnd.randrange(0, 12)):
            parts.append("x" * rnd.choice([0, 1, limit - 2, limit - 1, limit, limit + 1, rnd.randrange(3 * limit)]))
            parts.append(rnd.choice(["\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1e", "é\n", "\n\n"]))
        body = "".join(parts)
        assert _seven_bit(body, limit) == plain(body, limit), (limit, body)
        data = body.encode("utf-8")
        assert _seven_bit(data, limit) == plain(data, limit), (limit, data)
    assert _seven_bit("x" * 10, 0) is False and _seven_bit("", 990) is True
