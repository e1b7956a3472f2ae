"""Intake splits a multipart mail on its delimiter lines itself (pbem.core.mailin): it must read
every mail as the email package's parser reads it, the same parts with the same headers, the
same payloads as stored and decoded, the same preamble and epilogue, on the whole corpus of
mail clients and of hostile mails, and on mutants of them (lines repeated, dropped, cut, and
given stray spaces, tabs, dashes, CRs and form feeds)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pbem.core import mailin

TESTS = Path(__file__).parent
CORPUS = sorted({*TESTS.glob("mailclients/*.eml"), *TESTS.glob("hostile/*.eml"), *TESTS.glob("**/*.eml")})


def _parser(raw: bytes) -> Any:
    counter = mailin._PartCounter()
    return mailin._feed(raw, counter)


def _shape(msg: Any) -> list[tuple[Any, ...]]:
    out = []
    for part in msg.walk():
        row: tuple[Any, ...] = (part.is_multipart(), part.get_content_type(), part.get_default_type(),
                                part.get_filename(), tuple(part.items()), part.preamble, part.epilogue)
        if not part.is_multipart():
            row += (part.get_payload(), part.get_payload(decode=True))
        out.append(row)
    return out


def _split_directly(raw: bytes) -> bool:
    try:
        return mailin._split_multipart(raw, mailin._PartCounter(), 0) is not None
    except mailin._Unusual:
        return False


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
            lines[i] += rng.choice([b" ", b"\t", b"--", b"\r", b"x", b"\x0c"])
        elif op == 3:
            lines[i] = lines[i].rstrip(b"\r")
        elif op == 4:
            lines.insert(i, b"")
        else:
            lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)]
    return b"\n".join(lines)


def test_the_corpus_reads_as_the_email_package_reads_it() -> None:
    assert len(CORPUS) >= 30
    split = 0
    for path in CORPUS:
        raw = path.read_bytes()
        assert _shape(mailin._parse_capped(raw)) == _shape(_parser(raw)), path.name
        split += _split_directly(raw)
    assert split >= 10, "the direct split was not used"


def test_mutants_read_as_the_email_package_reads_them() -> None:
    rng = random.Random(16)
    mails = [p.read_bytes() for p in CORPUS]
    split = 0
    for i in range(600):
        raw = _mutant(rng, rng.choice(mails))
        assert _shape(mailin._parse_capped(raw)) == _shape(_parser(raw)), f"mutant {i}"
        split += _split_directly(raw)
    assert split >= 100


def test_a_mail_with_too_many_parts_is_still_refused_early() -> None:
    parts = b"".join(b"--b\r\nContent-Type: text/plain\r\n\r\nx\r\n" for _ in range(mailin.MAX_PARTS + 5))
    raw = b'Content-Type: multipart/mixed; boundary="b"\r\n\r\n' + parts + b"--b--\r\n"
    (cand,) = mailin._extract_bytes(raw, "many.eml", 65536, None)
    assert cand.problem is not None and "parts" in cand.problem


def test_plain_parts_read_as_the_email_package_reads_them() -> None:
    """A part whose headers are plain is read without the email package's parser; whole mails
    and their mutants, headers only or not, read as that parser reads them."""
    rng = random.Random(17)
    mails = [p.read_bytes() for p in CORPUS]
    used = 0
    for raw in mails + [_mutant(rng, rng.choice(mails)) for _ in range(300)]:
        for headersonly in (False, True):
            direct = mailin._plain_part(raw, mailin._PartCounter(), headersonly)
            if direct is not None:
                used += 1
                assert _shape(direct) == _shape(mailin._feed(raw, mailin._PartCounter(), headersonly))
    assert used >= 100, "the direct reading was not used"


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
