"""Publishing gives each seat that owes orders its offline order page, beside its private report
and attached to its mail; a seat whose private part is encrypted gets no page in clear."""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

import pytest
from conftest import NOW, run_cli


def _campaign(tmp_path: Path, *extra: str) -> Path:
    keys = {}
    for seat in ("maria_theresa", "louis", "frederick"):
        run_cli("keygen", seat, "-o", str(tmp_path / "keys"))
        keys[seat] = tmp_path / "keys" / f"{seat}.pub"
    camp = tmp_path / "m"
    run_cli("new", str(camp), "--game", "maria", "--scenario", "intro", "--id", "m-1", "--outage-share", "0",
            *[a for s in keys for a in ("--player", f"{s}={s}@example.org:{keys[s]}")], *extra, "--now", NOW)
    run_cli("resolve", str(camp), "--force", "--now", NOW)  # set-up with default splits; AU's hussars next
    return camp


def _attachments(mail: Path) -> dict[str, str]:
    msg = email.message_from_bytes(mail.read_bytes(), policy=email.policy.default)
    return {part.get_filename(): part.get_content_type() for part in msg.walk() if part.get_filename()}


def test_the_seat_that_owes_orders_gets_its_page(tmp_path: Path) -> None:
    camp = _campaign(tmp_path)
    folder = next(camp.glob("reports/0001-*"))
    assert (folder / "private" / "maria_theresa.orders.html").is_file()
    assert not (folder / "private" / "louis.orders.html").exists(), "louis sends nothing in the hussar round"
    page = (folder / "private" / "maria_theresa.orders.html").read_text()
    assert "1741-1/hussars" in page and "<script" in page and "http://" not in page.replace("http://www.w3.org", "")
    mails = sorted(camp.glob(f"outbox/report-{folder.name}-maria_theresa.eml"))
    assert len(mails) == 1
    files = _attachments(mails[0])
    assert files[f"orders-{folder.name}-maria_theresa.html"] == "text/html"


@pytest.mark.parametrize("flag", ["--encrypt-private"])
def test_no_page_in_clear_when_the_private_part_is_sealed(tmp_path: Path, flag: str) -> None:
    camp = _campaign(tmp_path, flag)
    folder = next(camp.glob("reports/0001-*"))
    mail = next(camp.glob(f"outbox/report-{folder.name}-maria_theresa.eml"))
    files = _attachments(mail)
    assert "private-maria_theresa.sealed.txt" in files
    assert not any(name.endswith(".html") for name in files)
