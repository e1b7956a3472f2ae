"""The sealed report page in Chromium: a private report pbem sealed to a player's key (Python,
:mod:`pbem.core.privacy`) opens in the browser with the player's key file; another key is told it
cannot open it; the page's ChaCha20-Poly1305 matches RFC 8439's test vector; ``pbem decrypt``
reads the same page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from test_orderpage_browser import driver  # noqa: F401 - the module's Chromium

from pbem.core import keys as keymod
from pbem.core.privacy import seal
from pbem.render.sealedpage import sealed_page

REPORT = "<!DOCTYPE html><html><body><h1>Your position (north)</h1><p>維也納 holds 12 troops</p>" + "<p>x</p>" * 3000 + "</body></html>"


def _page(tmp_path: Path, lang: str = "en", compress: bool = False) -> tuple[Path, Path, Path]:
    north, south = keymod.generate("north"), keymod.generate("south")
    folder = tmp_path / "keys"
    folder.mkdir()
    for k in (north, south):
        keymod.write_private_key(k, folder / f"{k.name}.key")
    page = tmp_path / "private-north.html"
    page.write_text(sealed_page(seal(REPORT.encode("utf-8"), north.public(), b"s" * 32, compress=compress), "north", lang), encoding="ascii")
    return page, folder / "north.key", folder / "south.key"


def _load(driver: Any, page: Path, key: Path) -> None:  # noqa: F811
    from selenium.webdriver.common.by import By

    driver.get(page.as_uri())
    driver.find_element(By.ID, "key-file").send_keys(str(key))


@pytest.mark.parametrize("compress", [False, True])
def test_the_players_key_opens_the_report(driver: Any, tmp_path: Path, compress: bool) -> None:  # noqa: F811
    from selenium.webdriver.support.ui import WebDriverWait

    page, north, _ = _page(tmp_path, compress=compress)
    _load(driver, page, north)
    WebDriverWait(driver, 20).until(lambda d: "Your position (north)" in d.page_source)
    assert "維也納 holds 12 troops" in driver.find_element("tag name", "body").text


def test_another_key_is_told_it_cannot_open_it(driver: Any, tmp_path: Path) -> None:  # noqa: F811
    from selenium.webdriver.support.ui import WebDriverWait

    page, _, south = _page(tmp_path, "zh-TW")
    _load(driver, page, south)
    WebDriverWait(driver, 20).until(lambda d: d.find_element("id", "status").text)
    assert "此金鑰無法開啟報告" in driver.find_element("id", "status").text
    assert "Your position" not in driver.page_source


def test_chacha20_poly1305_matches_rfc_8439(driver: Any, tmp_path: Path) -> None:  # noqa: F811
    """RFC 8439 §2.8.2: the AEAD test vector, sealed and opened by the page's code."""
    page, _, _ = _page(tmp_path)
    driver.get(page.as_uri())
    plain = ("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, "
             "sunscreen would be it.")
    got = driver.execute_script(
        """var h = function (s) { return new Uint8Array(s.match(/../g).map(function (b) { return parseInt(b, 16); })); };
           var key = h("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
           var nonce = h("070000004041424344454647"), aad = h("50515253c0c1c2c3c4c5c6c7");
           var sealed = SEALED.seal(key, nonce, new TextEncoder().encode(arguments[0]), aad);
           var opened = SEALED.open(key, nonce, sealed, aad);
           sealed[0] ^= 1;
           return [Array.from(sealed.slice(-16)).map(function (b) { return ("0" + b.toString(16)).slice(-2); }).join(""),
                   new TextDecoder().decode(opened), SEALED.open(key, nonce, sealed, aad)];""", plain)
    assert got[0] == "1ae10b594f09e26a7e902ecbd0600691"  # the RFC's tag
    assert got[1] == plain and got[2] is None  # a changed byte is refused


def test_pbem_decrypt_reads_the_page(tmp_path: Path) -> None:
    page, north, _ = _page(tmp_path)
    out = tmp_path / "report.html"
    run_cli("decrypt", str(page), "--key", str(north), "-o", str(out))
    assert out.read_text(encoding="utf-8") == REPORT
