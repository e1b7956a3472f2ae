"""A receipt's text, rendered once per language and shape with marks for its values and then
filled (``replies.receipt_text``), is the text the template gives when rendered for each file."""

from __future__ import annotations

import itertools

import pytest

from pbem.core import replies
from pbem.render import i18n

MAILS = [
    None,
    {"subject": "", "date": ""},
    {"subject": "orders", "date": ""},
    {"subject": "", "date": "2026-12-01 08:00 UTC"},
    {"subject": "my orders \x00pbem-receipt-pin\x00 %(seq)s {{ pin }}", "date": "2026-12-01 16:00 Asia/Taipei (2026-12-01 08:00 UTC)"},
]
TRICKY = ["", "x", "%(hash)s %s %%", "{{ seq }} {% if x %}", "\x00pbem-receipt-seq\x00", "\x00pbem-receipt-nothing\x00",
          "普魯士\nline two\n", "trailing\n\n"]


def _ctx(mail: dict[str, str] | None, problems: list[str], n: int) -> dict[str, object]:
    pick = TRICKY[n % len(TRICKY)]
    return {
        "mail": mail, "phase": f"1741-1/prussia{pick}", "seq": n + 1, "hash": "ab" * 32, "raw_hash": "cd" * 32,
        "pin": f"record {n} sha256:{'ef' * 32}", "problems": problems,
        "understood": f"P00001:\n  march:\n  - Wien\n  note: order {pick}\n", "campaign": f"bench-{n}", "seat": "s00001",
        "tz": "Asia/Taipei" if n % 2 else "UTC",
    }


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_filled_receipt_is_the_rendered_one(lang: str) -> None:
    lists = [[], ["line 5: orders.AU.march[1]: no such city"], [TRICKY[2], TRICKY[4], ""], TRICKY]
    for n, (mail, problems) in enumerate(itertools.product(MAILS, lists)):
        ctx = _ctx(mail, problems, n)
        assert replies.receipt_text(lang, ctx) == i18n.render(lang, "base/mail_receipt.txt", ctx), (mail, problems)
