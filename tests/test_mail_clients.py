"""Orders pasted into a mail as common clients send them (tests/mailclients/README.md): intake
reads every one (format=flowed, quoting, hard wrapping, text around the file, HTML-only and
HTML-alternative mail, Big5 text) and stores exactly what north signed; a broken paste is refused
with the line to fix. The corpus is rebuilt from the signed file by its script, byte for byte."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import NOW, run_cli

from pbem.core.campaign import Campaign
from pbem.core.envelope import parse_order_document, signing_bytes
from pbem.core.intake import accepted_documents

CORPUS = Path(__file__).parent / "mailclients"
KEYS = Path(__file__).parent / "hostile" / "keys"
MAILS = sorted(p.name for p in CORPUS.glob("*.eml"))


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mailclients.make_corpus import CAMPAIGN

    camp = tmp_path_factory.mktemp("clients") / "camp"
    players = [f"--player={seat}={seat}@example.org:{KEYS / (seat + '.pub')}" for seat in ("north", "south")]
    run_cli("new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short", "--id", CAMPAIGN, *players, "--now", NOW)
    return camp


def _intake(template: Path, tmp_path: Path, name: str) -> tuple[Path, list[str]]:
    camp = tmp_path / "camp"
    shutil.copytree(template, camp)
    out = run_cli("intake", str(camp), str(CORPUS / name), "--now", NOW).stdout
    assert "Traceback" not in out
    return camp, out.splitlines()


def test_the_corpus_is_large_enough_and_reproducible(tmp_path: Path) -> None:
    from mailclients.make_corpus import write_corpus

    assert len(MAILS) >= 20
    write_corpus(tmp_path)
    for p in sorted(tmp_path.iterdir()):
        assert (CORPUS / p.name).read_bytes() == p.read_bytes(), f"{p.name}: run tests/mailclients/make_corpus.py"
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    for name in MAILS:
        assert f"`{name}`" in readme, f"{name} is not described in the README"


def test_the_signed_file_has_no_line_a_client_would_wrap() -> None:
    new = (CORPUS / "north.yaml").read_text(encoding="utf-8").splitlines()
    old = (CORPUS / "north-old-format.yaml").read_text(encoding="utf-8").splitlines()
    assert max(map(len, new)) <= 72 and max(map(len, old)) > 76
    assert parse_order_document((CORPUS / "north.yaml").read_bytes(), "n").data == parse_order_document(
        (CORPUS / "north-old-format.yaml").read_bytes(), "o").data


@pytest.mark.parametrize("name", [n for n in MAILS if not n.startswith("broken-")])
def test_every_pasted_variant_is_accepted(name: str, template: Path, tmp_path: Path) -> None:
    camp, lines = _intake(template, tmp_path, name)
    assert len(lines) == 1 and lines[0].startswith(f"accepted: {name} (mail body): north seq 1"), lines
    stored = accepted_documents(Campaign(camp), 1, "round-1")["north"].path.read_bytes()
    expected = parse_order_document((CORPUS / "north.yaml").read_bytes(), "north.yaml").data
    got = parse_order_document(stored, "stored").data
    assert signing_bytes(got) == signing_bytes(expected) and got["signature"] == expected["signature"]
    for junk in ("Hello GM", "Thanks", "wrote:", "Nora North", "Sent from", "GM 您好", "________"):
        assert junk not in stored.decode("utf-8"), f"{junk!r} was taken into the order file"


def test_a_broken_paste_is_refused_with_the_line_to_fix(template: Path, tmp_path: Path) -> None:
    from mailclients.make_corpus import BROKEN

    for name, field in BROKEN.items():
        camp, lines = _intake(template, tmp_path / name, name)
        assert len(lines) == 1 and lines[0].startswith(f"refused: {name} (mail body), line "), lines
        m = re.search(r", line (\d+):", lines[0])
        assert m is not None
        number = int(m.group(1))
        document = (CORPUS / "north-old-format.yaml").read_text(encoding="utf-8").splitlines()
        assert document[number - 1].strip().startswith(field.rsplit(".", 1)[-1] + ":"), (lines[0], document[number - 1])
        assert field in lines[0] and "edited after signing" in lines[0]
        replies = list((camp / "outbox").glob("refused-*.eml"))
        assert len(replies) == 1 and f"line {number}" in replies[0].read_text(encoding="utf-8")
