"""The key page's writer: small, self-contained, in the roster's languages, with keys.py's name
rule and words; and ``pbem keygen --page`` writes it (the browser tests use what it writes)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run_cli

from pbem.common.keyname import KEY_NAME, check_key_name
from pbem.core.keys import generate
from pbem.data import templates_dir
from pbem.errors import KeyFileError
from pbem.render import keypage
from pbem.render.keypage import BAD_NAME, MESSAGES, key_page, message_table

MAX_BYTES = 40 * 1024
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def embedded(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="pbem-data">(.*?)</script>', page, re.S)
    assert m
    return json.loads(m.group(1))


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_page_is_small_and_self_contained(lang: str) -> None:
    page = key_page(lang, "frederick")
    assert len(page.encode("utf-8")) < MAX_BYTES
    lowered = page.lower()
    # no URL of any scheme, nor a scheme-relative one (//host.tld/...)
    assert not re.search(r"\b(?:https?|ftp|wss?|file):|//[a-z0-9-]+(?:\.[a-z0-9-]+)+", lowered)
    for outside in ("<link", "<img", "<iframe", " src=", "@import", "fetch(", "xmlhttprequest", "websocket", "sendbeacon"):
        assert outside not in lowered, outside
    assert not re.search(r"(?<![a-z])url\(", lowered)  # no CSS url(...); createObjectURL( is the page's own download
    # the only scripts are inline; the policy forbids loading or sending anything
    assert re.findall(r"<script[^>]*>", page) == ['<script type="application/json" id="pbem-data">', "<script>"]
    assert "default-src 'none'" in page and "connect-src 'none'" in page
    assert "@@" not in page and "{{" not in page


def test_languages() -> None:
    en, zh = key_page("en"), key_page("zh-TW")
    assert '<html lang="en">' in en and '<html lang="zh-TW">' in zh
    assert not CJK.search(en)
    assert "<title>pbem：產生你的金鑰</title>" in zh and "產生我的金鑰</button>" in zh
    assert embedded(zh)["text"][BAD_NAME] == MESSAGES[BAD_NAME]
    assert embedded(en)["text"] == {m: m for m in MESSAGES}
    # every sentence has its translation, and keeps the name it fills in
    for msg, zh_text in message_table("zh-TW").items():
        assert CJK.search(zh_text) and zh_text != msg, msg
        assert ("{name}" in msg) == ("{name}" in zh_text), msg
    with pytest.raises(KeyFileError, match="no key page in language 'fr'"):
        key_page("fr")


def test_every_word_the_script_and_page_use_is_in_the_table() -> None:
    folder = templates_dir() / "keypage"
    script = (folder / "keypage.js").read_text(encoding="utf-8")
    used = set(re.findall(r'\bt\("((?:[^"\\]|\\.)*)"', script))
    used |= set(re.findall(r"\{\{(.+?)\}\}", (folder / "page.html").read_text(encoding="utf-8")))
    assert len(used) >= 15
    assert used == set(MESSAGES)


def test_name_rule_and_words_are_keys_pys() -> None:
    data = embedded(key_page("en", "fritz"))
    assert data["name"] == "fritz" and data["name_pattern"] == KEY_NAME.pattern
    for bad in ["bad name", "-x", "a" * 65, "", "Grüße"]:
        with pytest.raises(KeyFileError) as from_keys:
            generate(bad)
        with pytest.raises(KeyFileError) as from_page:
            key_page("en", bad)
        assert str(from_page.value) == str(from_keys.value) == BAD_NAME.format(name=bad)
    assert check_key_name("a" * 64) == "a" * 64 and check_key_name("Louis_XV.fr-1") == "Louis_XV.fr-1"
    with pytest.raises(KeyFileError):
        key_page("en", "fritz\n")  # a trailing newline is no part of a name


def test_keygen_page_writes_the_page(tmp_path: Path) -> None:
    page = tmp_path / "mail" / "keys.html"
    result = run_cli("keygen", "--page", str(page), "--lang", "zh-TW")
    assert result.stdout == "" and f"key page: {page}" in result.stderr
    assert page.read_text(encoding="utf-8") == key_page("zh-TW")
    assert sorted(p.name for p in page.parent.iterdir()) == ["keys.html"]  # no temp file left, no keys
    run_cli("keygen", "fritz", "--page", str(page))
    assert page.read_text(encoding="utf-8") == key_page("en", "fritz")
    assert embedded(page.read_text(encoding="utf-8"))["name"] == "fritz"


def test_keygen_page_refusals(tmp_path: Path) -> None:
    page = tmp_path / "keys.html"
    bad = run_cli("keygen", "bad name", "--page", str(page), ok=False)
    assert bad.exit_code == 1 and bad.output == "pbem: " + BAD_NAME.format(name="bad name") + "\n"
    for args, words in [(["--page", str(page), "-o", str(tmp_path)], "give no -o with it"),
                        (["fritz", "--lang", "zh-TW"], "give it with --page"),
                        ([], "give NAME (or --page FILE"),
                        (["--page", str(page), "--lang", "fr"], "'fr' is not one of")]:
        out = run_cli("keygen", *args, ok=False)
        assert out.exit_code == 2 and words in out.output, out.output
    assert not page.exists()
    # without --page, keygen is what it was: keys here, the public line on stdout
    run_cli("keygen", "fritz", "-o", str(tmp_path / "k"))
    assert sorted(p.name for p in (tmp_path / "k").iterdir()) == ["fritz.key", "fritz.pub"]


def test_writer_module_is_pure() -> None:
    # the page comes from the shipped templates, and building it writes nothing
    assert keypage.TEMPLATE_DIR == "keypage"
    assert {"page.html", "keypage.js", "keypage.css"} <= {p.name for p in (templates_dir() / "keypage").iterdir()}


def test_a_page_made_for_a_campaign_shows_its_anchor_commitment_and_nonce(tmp_path: Path, mini_campaign: Path) -> None:
    """A new player's key page, made for a running campaign, names the values record 0 fixed
    before anyone committed entropy; a page made before the campaign says where they come."""
    from pbem.core.campaign import Campaign

    create = Campaign(mini_campaign).create_record()
    page = tmp_path / "keys.html"
    run_cli("keygen", "fritz", "--page", str(page), "--campaign", str(mini_campaign), "--lang", "zh-TW")
    text = page.read_text(encoding="utf-8")
    for field in ("campaign", "public_anchor", "secret_commitment", "nonce"):
        assert f"<code>{create[field]}</code>" in text, field
    assert "id=\"no-campaign\" class=\"card\" hidden" in text
    assert "公開雜湊鏈錨點" in text and "{{" not in text
    before = key_page("en")
    assert 'id="campaign" class="card" hidden' in before and 'id="no-campaign" class="card">' in before
    assert "The campaign does not exist yet" in before and "start report (section Archive)" in before
    out = run_cli("keygen", "fritz", "--campaign", str(mini_campaign), ok=False)
    assert out.exit_code == 2 and "--campaign is for the key page; give it with --page" in out.output
