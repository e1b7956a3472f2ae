"""Intake reads the common shapes of a mail directly on its bytes (pbem.core.mailfast), the
email package's parser being the fallback: wherever the direct reading applies it must give
what that parser gives, the same parts in the same order with the same headers, types, file
names, charsets and parameters, the same payloads as stored and decoded, and so the same order
files and refusals, on the whole corpus of mail clients and of hostile mails, on mutants of them
(lines repeated, dropped, cut, and given stray spaces, tabs, dashes, CRs and form feeds), and on
mails made of random parts in every transfer encoding."""

from __future__ import annotations

import base64
import email.utils
import quopri
import random
from datetime import UTC
from pathlib import Path
from typing import Any

from pbem.core import mailfast, mailin

TESTS = Path(__file__).parent
CORPUS = sorted({*TESTS.glob("mailclients/*.eml"), *TESTS.glob("hostile/*.eml"), *TESTS.glob("**/*.eml")})
NAMES = ("From", "To", "Subject", "Date", "Message-ID", "Content-Type", "Content-Transfer-Encoding", mailin.NOT_FETCHED)


def _parser(raw: bytes) -> Any:
    return mailin._feed(raw, mailin._PartCounter())


def _shape(msg: Any) -> list[tuple[Any, ...]]:
    out = []
    for part in msg.walk():
        row: tuple[Any, ...] = (part.is_multipart(), part.get_content_type(), part.get_filename(), tuple(part.items()),
                                tuple(part.get(name) for name in NAMES))
        if not part.is_multipart():
            row += (part.get_payload(), part.get_payload(decode=True), part.get_content_charset(),
                    *(part.get_param(name, "", header="content-type") for name in ("format", "delsp", "charset", "name")),
                    part.get_param("filename", None, header="content-disposition"))
        out.append(row)
    return out


def _by_parser(raw: bytes, name: str = "m.eml") -> list[mailin.Candidate]:
    """What intake takes from a mail that the email package's parser reads."""
    real = mailfast.read
    mailfast.read = lambda raw: None  # type: ignore[assignment]
    try:
        return mailin._extract_bytes(raw, name, 65536, None)
    finally:
        mailfast.read = real


def _same(raw: bytes, label: str) -> bool:
    """Whether the direct reading applied; if it did, it read ``raw`` as the parser does."""
    try:
        fast = mailfast.read(raw)
    except mailfast.TooManyParts:
        assert mailin._extract_bytes(raw, "m.eml", 65536, None) == _by_parser(raw), label
        return True
    if fast is None:
        return False
    assert _shape(fast) == _shape(_parser(raw)), label
    assert mailin._extract_bytes(raw, "m.eml", 65536, None) == _by_parser(raw), label
    return True


def _mutant(rng: random.Random, raw: bytes) -> bytes:
    lines = raw.split(b"\n")
    for _ in range(rng.randrange(1, 4)):
        i = rng.randrange(len(lines))
        op = rng.randrange(6)
        if op == 0:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif op == 1:
            del lines[i]
        elif op == 2:
            lines[i] += rng.choice([b" ", b"\t", b"--", b"\r", b"x", b"\x0c", b";", b'"', b"=", b"\xc3\xa9"])
        elif op == 3:
            lines[i] = lines[i].rstrip(b"\r")
        elif op == 4:
            lines.insert(i, b"")
        else:
            lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)]
    return b"\n".join(lines)


def test_the_corpus_reads_as_the_email_package_reads_it() -> None:
    assert len(CORPUS) >= 30
    direct = sum(_same(path.read_bytes(), path.name) for path in CORPUS)
    assert direct >= 20, "the direct reading was not used"


def test_mutants_read_as_the_email_package_reads_them() -> None:
    rng = random.Random(16)
    mails = [p.read_bytes() for p in CORPUS]
    direct = sum(_same(_mutant(rng, rng.choice(mails)), f"mutant {i}") for i in range(600))
    assert direct >= 200


_ORDER = (TESTS / "mailclients" / "north.yaml").read_bytes()


def _random_part(rng: random.Random, eol: bytes) -> bytes:
    body = rng.choice([_ORDER, b"My orders.\n", "\u5317 \u9ede\n".encode(rng.choice(["utf-8", "big5"])),
                       bytes(rng.randrange(256) for _ in range(rng.randrange(40))), b""])
    cte = rng.choice(["7bit", "8bit", "base64", "Base64", "quoted-printable", "QUOTED-PRINTABLE", "", "binary", "x-uuencode", "base64 "])
    if cte.strip().lower() == "base64":
        data = base64.encodebytes(body)
        if rng.random() < 0.2:
            data = data.rstrip(b"=\n") + rng.choice([b"", b"!", b"=", b"\n"])
    elif cte.lower() == "quoted-printable":
        data = quopri.encodestring(body)
    else:
        data = body
    ctype = rng.choice(["text/plain", "text/yaml", "TEXT/PLAIN", "application/octet-stream", "text/html", "image/png", "text", "application/x-yaml"])
    params = [rng.choice(['charset="utf-8"', "charset=big5", "charset=UTF-8", "format=flowed", "delsp=yes", 'name="orders.yaml"',
                          "name=o.yml", "charset=", "Format=Flowed", 'charset=" utf-8 "', "charset", "name==?utf-8?b?b3JkZXJzLnlhbWw=?="])
              for _ in range(rng.randrange(3))]
    head = [f"Content-Type: {'; '.join([ctype, *params])}"]
    if cte:
        head.append(f"Content-Transfer-Encoding: {cte}")
    if rng.random() < 0.5:
        name = rng.choice(['"orders.yaml"', "orders.yaml", '" spaced.yaml "', '"=?utf-8?q?caf=C3=A9.yaml?="', '"a;b.yaml"'])
        head.append(rng.choice(["Content-Disposition", "content-disposition"]) + f": {rng.choice(['attachment', 'inline'])}; filename={name}")
    if rng.random() < 0.2:
        head[0] = head[0].replace("; ", ";" + eol.decode() + rng.choice([" ", "\t"]), 1)
    return eol.join(h.encode() for h in head) + eol + eol + data.replace(b"\n", eol)


def _random_mail(rng: random.Random) -> bytes:
    eol = rng.choice([b"\r\n", b"\n"])
    top = [b"From: North <north@example.org>", b"To: gm@example.org", b"Subject: orders", b"Message-ID: <m1@example.org>",
           b"Date: Tue, 01 Dec 2026 10:00:00 +0000", b"MIME-Version: 1.0"]
    rng.shuffle(top)
    if rng.random() < 0.3:
        return eol.join(top) + eol + _random_part(rng, eol)
    boundary = rng.choice(["b", "==_x_==", "a b", "---", "b\t"])
    subtype = rng.choice(["mixed", "alternative", "related"])
    parts = [_random_part(rng, eol) for _ in range(rng.randrange(1, 4))]
    if rng.random() < 0.2:  # one level of nesting
        inner = rng.choice(["in", "c"])
        parts.append(f"Content-Type: multipart/alternative; boundary={inner}".encode() + eol + eol
                     + b"".join(b"--" + inner.encode() + eol + p + eol for p in parts[:2]) + b"--" + inner.encode() + b"--" + eol)
    body = b"".join(b"--" + boundary.encode() + eol + p + eol for p in parts) + b"--" + boundary.encode() + b"--" + eol
    head = eol.join(top) + eol + f'Content-Type: multipart/{subtype}; boundary="{boundary}"'.encode() + eol + eol
    return head + rng.choice([b"", b"This is a multi-part message." + eol]) + body + rng.choice([b"", b"epilogue" + eol])


def test_random_mails_read_as_the_email_package_reads_them() -> None:
    rng = random.Random(1611)
    direct = 0
    for i in range(800):
        raw = _random_mail(rng)
        if rng.random() < 0.3:
            raw = _mutant(rng, raw)
        direct += _same(raw, f"random mail {i}: {raw[:2000]!r}")
    assert direct >= 300


def test_a_mail_with_too_many_parts_is_still_refused_early() -> None:
    parts = b"".join(b"--b\r\nContent-Type: text/plain\r\n\r\nx\r\n" for _ in range(mailin.MAX_PARTS + 5))
    raw = b'Content-Type: multipart/mixed; boundary="b"\r\n\r\n' + parts + b"--b--\r\n"
    (cand,) = mailin._extract_bytes(raw, "many.eml", 65536, None)
    assert cand.problem is not None and "parts" in cand.problem
    assert _by_parser(raw, "many.eml") == [cand]


def test_a_plain_from_is_read_as_parseaddr_reads_it() -> None:
    """The sender of a plain ``From`` (``addr@host`` or ``Plain Name <addr@host>``) is read
    directly: wherever that reading applies, it gives parseaddr's address; the corpus's own
    ``From`` lines and near misses of plain ones go either way to the same address."""
    import email.utils

    rnd = random.Random(16)
    alphabet = "aZ09_+-.@ <>\"(),;:\\[]\t=?!#"
    texts = [str(m) for p in CORPUS for m in [mailin._parse_capped(p.read_bytes()).get("From")] if m]
    texts += ["s00001@example.org", "Anna Maria <anna.maria@example.org>", "A <a@b>", "a@b.c>", "<a@b.c>", "A  B <a@b.c>",
              "A <a@b.c> ", " a@b.c", "a..b@c.d", "a@b..c", ".a@b.c", "a.@b.c", "a@b.c.", "A <a@b.c>, B <d@e.f>", "a@b@c"]
    for _ in range(20000):
        base = rnd.choice(["s00001@example.org", "Anna Maria <anna.maria@example.org>", "x <y@z>"])
        chars = list(base)
        for _ in range(rnd.randrange(1, 3)):
            at = rnd.randrange(len(chars) + 1)
            if rnd.random() < 0.6:
                chars.insert(at, rnd.choice(alphabet))
            elif at < len(chars):
                del chars[at]
        texts.append("".join(chars))
    direct = 0
    for text in texts:
        plain = mailin._PLAIN_FROM.fullmatch(text)
        if plain:
            direct += 1
            assert plain.group("addr") == email.utils.parseaddr(text)[1], text
    assert direct > 1000


def test_a_header_line_that_is_not_a_field_leaves_the_mail_to_the_parser() -> None:
    good = b"From: a@example.org\r\nSubject: x\r\n continued\r\n\r\nbody\r\n"
    fast = mailfast.read(good)
    assert fast is not None and fast.items() == [("From", "a@example.org"), ("Subject", "x\r\n continued")]
    for bad in (b"From: a@example.org\r\nnot a field\r\nSubject: x\r\n\r\nbody\r\n",  # between fields
                b"junk\r\nFrom: a@example.org\r\n\r\nbody\r\n",  # before them
                b"From: a@example.org\r\nSubject: x\rstray\r\n\r\nbody\r\n",  # a bare CR in a value
                b"From: a@example.org\r\nSubject: x\nTo: b@example.org\r\n\r\nbody\r\n"):  # a bare LF
        assert mailfast.read(bad) is None, bad
        assert _same(bad, repr(bad)) is False


def test_the_usual_date_is_read_as_parsedate_to_datetime_reads_it() -> None:
    """A Date in the form mail clients write is read directly: the same time, in the same zone,
    as the email package gives (a time of unknown zone, -0000, is UTC); anything else goes to it."""
    rnd = random.Random(5322)
    texts = ["Tue, 01 Dec 2026 11:30:00 +0000", "1 Dec 2026 11:30:00 -0000", "Tue, 1 Dec 2026 11:30:00 -0130",
             "Mon, 31 Feb 2026 11:30:00 +0000", "Tue, 01 Dec 0099 23:59:59 +0000", "Tue, 01 Dec 2026 24:00:00 +0000",
             "Tue, 01 Dec 2026 11:30:60 +0000", "Tue, 01 Dec 2026 11:30:00 +2400", "Tue, 01 Dec 2026 11:30:00 +0099",
             "Tue, 01 dec 2026 11:30:00 +0000", "Tue, 01 Dec 2026 11:30 +0000", "Tue, 01 Dec 2026 11:30:00 GMT",
             "Tue, 01 Dec 2026 11:30:00 +0000 (UTC)", "Tue,  1 Dec 2026 11:30:00 +0000", "Xyz, 01 Dec 2026 11:30:00 +0000", ""]
    for _ in range(3000):
        texts.append(f"{rnd.choice(['Mon, ', 'Sun, ', ''])}{rnd.randint(0, 32):0{rnd.choice([1, 2])}d} {rnd.choice(mailin._MONTHS)} "
                     f"{rnd.choice([999, 1000, 1969, 2026, 9999])} {rnd.randint(0, 24):02d}:{rnd.randint(0, 60):02d}:{rnd.randint(0, 61):02d} "
                     f"{rnd.choice('+-')}{rnd.randint(0, 25):02d}{rnd.choice([0, 30, 45, 59, 60, 99]):02d}")
    direct = 0
    for text in texts:
        msg = mailfast.read(f"Date: {text}\r\n\r\nbody\r\n".encode())
        assert msg is not None
        try:
            want = email.utils.parsedate_to_datetime(text)
            want = want if want.tzinfo else want.replace(tzinfo=UTC)
        except Exception:  # noqa: BLE001 - what the reading turns into None
            want = None
        got = mailin._sent(msg)
        assert (got, got and got.utcoffset()) == (want, want and want.utcoffset()), text
        direct += mailin._USUAL_DATE.fullmatch(text) is not None and want is not None
    assert direct > 1000
