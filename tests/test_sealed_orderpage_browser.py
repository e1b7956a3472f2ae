"""A seat whose private report is encrypted (``--encrypt-private``) still gets its order page in
the report mail: the page's data (the seat's view, hand and legal orders) travels sealed to the
seat's key, so nothing private is in clear; in Chromium the key file the player loads to sign
opens it first, and the signed file is accepted."""

from __future__ import annotations

import email
import email.policy
from pathlib import Path
from typing import Any

from conftest import NOW, make_keys, player_args, run_cli
from test_orderpage_browser import driver, load_key, open_page, sign  # noqa: F401 - the module's Chromium

from pbem.core.campaign import Campaign


def _sealed_campaign(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    keys = make_keys(tmp_path / "keys", ("maria_theresa", "louis", "frederick"))
    camp = tmp_path / "m"
    run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", "intro", "--id", "m-1", "--outage-share", "0",
            "--encrypt-private", "--tz", "maria_theresa=Asia/Taipei", *player_args(keys), "--now", NOW)
    run_cli("resolve", str(camp), "--force", "--now", NOW)  # set-up -> 1741-1/hussars (Austria)
    return camp, keys


def _attachments(mail: Path) -> dict[str, bytes]:
    msg = email.message_from_bytes(mail.read_bytes(), policy=email.policy.default)
    return {str(p.get_filename()): p.get_payload(decode=True) for p in msg.walk() if p.get_filename()}


def test_a_sealed_seat_gets_an_order_page_that_its_key_opens(driver: Any, tmp_path: Path) -> None:  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    camp, keys = _sealed_campaign(tmp_path)
    folder = next(camp.glob("reports/0001-*"))
    mail = next(camp.glob(f"outbox/report-{folder.name}-maria_theresa.eml"))
    files = _attachments(mail)
    name = f"orders-{folder.name}-maria_theresa.html"
    assert name in files and "private-maria_theresa.html" in files
    page_html = files[name].decode("ascii")
    assert 'id="pbem-pack"' not in page_html and "-----BEGIN PBEM SEALED REPORT-----" in page_html
    # nothing private in clear: the page's data is only inside the seal
    state = Campaign(camp).current()[1]
    legal = Campaign(camp).game().legal_orders(state, "AU")
    assert '"cities"' not in page_html and not any(f'"{c}"' in page_html for c in legal["cities"])
    text = email.message_from_bytes(mail.read_bytes(), policy=email.policy.default)
    plain = text.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
    assert name in plain, "the mail tells the player about the order page"

    page = tmp_path / name
    page.write_bytes(files[name])
    open_page(driver, page)
    assert not driver.find_elements(By.CSS_SELECTOR, "#form select, #form input")
    # a key that is not the seat's cannot open it
    driver.find_element(By.ID, "key-file").send_keys(str(keys["louis"]))
    WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "key-status").text)
    assert not driver.find_elements(By.CSS_SELECTOR, "input[name=hussar]")
    status = load_key(driver, keys["maria_theresa"])
    WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "input[name=hussar]"))
    WebDriverWait(driver, 20).until(lambda d: "ed25519:" in d.find_element(By.ID, "key-status").text)
    header = driver.find_element(By.ID, "top").text
    assert "1741-1/hussars" in header and "Asia/Taipei (" in header and "UTC)" in header, header
    for city in legal["cities"][: legal["count"]]:
        driver.find_element(By.CSS_SELECTOR, f"input[name=hussar][value={city}]").click()
    signed = tmp_path / "hussars.yaml"
    signed.write_text(sign(driver), encoding="utf-8")
    out = run_cli("intake", str(camp), str(signed), "--now", NOW).output
    assert "accepted" in out, (status, out)
