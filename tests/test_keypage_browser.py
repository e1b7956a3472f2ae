"""The offline key page in a real headless Chromium (the same driver and network-blocking flags
as the order page's tests).

A player types a name and gets NAME.key and NAME.pub from WebCrypto; real pbem then loads the key
(once it is private to its owner), finds the public half equal to the .pub line, signs with it a
file ``pbem verify --pubkey`` accepts, and opens a report sealed to its X25519 key. The order page
loads it too. A bad name shows the CLI's sentence; the page asks the network for nothing."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import test_orderpage_browser as orderpage_browser
import yaml
from conftest import run_cli
from test_orderpage_browser import requests_made

from pbem.core.keys import format_private_key, load_private_key, parse_public_key
from pbem.core.privacy import seal
from pbem.errors import KeyFileError
from pbem.render import orderpage

# The order page tests' browser: Debian's chromium (require_browser fails with the install hint
# when it is missing) with chromium_flags, which block the network; one per module, downloads kept.
driver = orderpage_browser.driver

KEY_FILE = re.compile(
    r"# pbem private key of (?P<name>\S+)\. Keep it secret: whoever has it can sign your orders\.\n"
    r"# Public key: (?P<pub>ed25519:[0-9a-f]{64} x25519:[0-9a-f]{64} (?P=name))\n"
    r'pbem-key: 1\nname: "(?P=name)"\ned25519: [0-9a-f]{64}\nx25519: [0-9a-f]{64}\n\Z'
)


def write_page(tmp_path: Path, lang: str = "en", name: str | None = None) -> Path:
    page = tmp_path / f"keys-{lang}.html"
    run_cli("keygen", *([name] if name else []), "--page", str(page), "--lang", lang)
    return page


def open_page(driver: Any, page: Path) -> None:
    driver.get(page.as_uri())
    driver.get_log("performance")  # start the request log afresh for this page
    driver.refresh()


def shown(driver: Any, element_id: str) -> bool:
    return bool(driver.execute_script(f"return !document.getElementById('{element_id}').hidden;"))


def status(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.ID, "status").text)


def make_keys(driver: Any, name: str | None) -> str:
    """Type ``name`` (None: keep the pre-filled one), press the button; the public key line."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    before = driver.find_element(By.ID, "pub").get_attribute("value")
    if name is not None:
        box = driver.find_element(By.ID, "name")
        box.clear()
        box.send_keys(name)
    driver.find_element(By.ID, "generate").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "pub").get_attribute("value") not in ("", before))
    return str(driver.find_element(By.ID, "pub").get_attribute("value"))


def save(driver: Any, link_id: str, pattern: str) -> Path:
    """Click a save link; the file that lands in the download folder (the newest matching one)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    before = set(driver.downloads.glob(pattern))
    driver.find_element(By.ID, link_id).click()
    WebDriverWait(driver, 10).until(lambda d: set(d.downloads.glob(pattern)) - before
                                    and not list(d.downloads.glob("*.crdownload")))
    (new,) = set(driver.downloads.glob(pattern)) - before
    return new


def test_keys_made_in_the_page_sign_verify_and_decrypt_with_pbem(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    open_page(driver, write_page(tmp_path))
    assert not shown(driver, "secret") and not shown(driver, "public")
    pub = make_keys(driver, "fritz")
    assert shown(driver, "secret") and shown(driver, "public")
    assert "fritz" in status(driver) and "bad" not in driver.find_element(By.ID, "status").get_attribute("class")
    assert driver.find_element(By.ID, "save-key").text == "Save fritz.key"
    key_path = save(driver, "save-key", "fritz*.key")
    pub_path = save(driver, "save-pub", "fritz*.pub")
    assert (key_path.name, pub_path.name) == ("fritz.key", "fritz.pub")

    # the format pbem keygen writes, byte for byte
    text = key_path.read_text(encoding="utf-8")
    m = KEY_FILE.match(text)
    assert m and m["name"] == "fritz" and m["pub"] == pub, text
    assert pub_path.read_text(encoding="utf-8") == pub + "\n"

    # pbem refuses a key others can read, with the chmod hint the page gives; then loads it
    os.chmod(key_path, 0o644)
    with pytest.raises(KeyFileError, match="chmod 600"):
        load_private_key(key_path)
    os.chmod(key_path, 0o600)
    key = load_private_key(key_path)
    assert key.name == "fritz"
    assert format_private_key(key) == text
    assert key.public().line() == pub == parse_public_key(pub_path.read_text(encoding="utf-8")).line()

    # pbem sign with it; pbem verify --pubkey with the .pub accepts the file
    orders = tmp_path / "orders.yaml"
    orders.write_text("pbem: 1\ncampaign: maria-k\nplayer: fritz\nphase: 1741-1/prussia\norders: {}\n", encoding="utf-8")
    signed = tmp_path / "orders.signed.yaml"
    run_cli("sign", str(orders), "--key", str(key_path), "-o", str(signed))
    out = run_cli("verify", str(signed), "--pubkey", str(pub_path)).output
    assert f"good signature: {signed}: fritz, maria-k 1741-1/prussia seq 1" in out
    # the signature names this key (a long line may be folded, so read the YAML, not its text)
    assert yaml.safe_load(signed.read_text(encoding="utf-8"))["signature"]["key"] == key.public().sign_id

    # a report sealed to the .pub line's X25519 key opens with pbem decrypt
    report = "Bericht für fritz: 3 Husaren in Glatz.\n".encode()
    sealed = tmp_path / "report.txt"
    sealed.write_text(seal(report, parse_public_key(pub)), encoding="utf-8")
    opened = tmp_path / "report.out"
    run_cli("decrypt", str(sealed), "--key", str(key_path), "-o", str(opened))
    assert opened.read_bytes() == report

    urls = requests_made(driver)
    assert urls and all(u.startswith(("file:", "data:", "blob:")) for u in urls), urls


def test_the_order_page_loads_a_key_from_the_key_page(driver: Any, tmp_path: Path) -> None:
    from pbem.common.fair import PhaseRng, Rng
    from pbem.games.maria import GAME

    open_page(driver, write_page(tmp_path))
    pub = make_keys(driver, "louis")
    key_text = save(driver, "save-key", "louis*.key").read_text(encoding="utf-8")
    state = GAME.new_game("intro", {}, PhaseRng(Rng(b"setup-public"), Rng(b"setup-secret")))
    html = orderpage.order_page("maria", GAME, state, "louis", campaign="maria-k", pubkey=pub)
    assert html is not None
    page = tmp_path / "orders.html"
    page.write_text(html, encoding="utf-8")
    driver.get(page.as_uri())
    loaded = driver.execute_async_script(
        "var done = arguments[1]; PBEM.loadKey(arguments[0]).then(function (k) { done([k.id, k.name]); },"
        " function (e) { done(['error', String(e)]); });", key_text)
    assert loaded == [pub.split()[0], "louis"]


def test_a_bad_name_shows_the_clis_words_and_makes_no_key(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    open_page(driver, write_page(tmp_path))
    for bad in ["bad name", "-fritz", ".hidden", "a" * 65, "fritz/x", "Grüße", ""]:
        box = driver.find_element(By.ID, "name")
        box.clear()
        box.send_keys(bad)
        driver.find_element(By.ID, "generate").click()
        result = run_cli("keygen", "-o", str(tmp_path / "cli"), "--", bad, ok=False)
        assert result.exit_code == 1
        assert result.output == f"pbem: {status(driver)}\n", bad
        assert f"'{bad}' is not a usable key name" in status(driver)
        assert "bad" in driver.find_element(By.ID, "status").get_attribute("class")
        assert not shown(driver, "secret") and driver.find_element(By.ID, "pub").get_attribute("value") == ""
    assert not (tmp_path / "cli").exists() or not any((tmp_path / "cli").iterdir())
    # the longest name the CLI accepts, the page accepts too
    make_keys(driver, "a" * 64)
    assert driver.find_element(By.ID, "save-key").get_attribute("download") == "a" * 64 + ".key"
    assert requests_made(driver) and all(u.startswith(("file:", "data:", "blob:")) for u in requests_made(driver))


def test_two_generations_give_different_keys(driver: Any, tmp_path: Path) -> None:
    open_page(driver, write_page(tmp_path))
    first = make_keys(driver, "twice")
    key1 = save(driver, "save-key", "twice*.key")
    second = make_keys(driver, "twice")
    key2 = save(driver, "save-key", "twice*.key")
    assert key1 != key2
    ed1, x1, _ = first.split()
    ed2, x2, _ = second.split()
    assert ed1 != ed2 and x1 != x2
    text1, text2 = key1.read_text(encoding="utf-8"), key2.read_text(encoding="utf-8")
    secrets1 = {line for line in text1.splitlines() if line.startswith(("ed25519:", "x25519:"))}
    secrets2 = {line for line in text2.splitlines() if line.startswith(("ed25519:", "x25519:"))}
    assert len(secrets1) == len(secrets2) == 2 and not secrets1 & secrets2
    # each file holds the key of its own public line
    for path, line in ((key1, first), (key2, second)):
        path.chmod(0o600)
        assert load_private_key(path).public().line() == line


def test_chinese_page_with_a_pre_filled_name(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    open_page(driver, write_page(tmp_path, lang="zh-TW", name="maria_theresa"))
    assert driver.find_element(By.ID, "generate").text == "產生我的金鑰"
    assert driver.find_element(By.ID, "name").get_attribute("value") == "maria_theresa"
    pub = make_keys(driver, None)
    assert pub.endswith(" maria_theresa")
    assert "已為 maria_theresa 產生金鑰" in status(driver)
    assert driver.find_element(By.ID, "save-key").text == "儲存 maria_theresa.key"
    key_path = save(driver, "save-key", "maria_theresa*.key")
    key_path.chmod(0o600)
    assert load_private_key(key_path).public().line() == pub
    box = driver.find_element(By.ID, "name")
    box.clear()
    box.send_keys("瑪麗亞")
    driver.find_element(By.ID, "generate").click()
    assert status(driver) == "「瑪麗亞」不能作為金鑰名稱（只能用英文字母、數字、「.」「_」「-」，最多 64 個字元）"
    urls = requests_made(driver)
    assert urls and all(u.startswith(("file:", "data:", "blob:")) for u in urls), urls
