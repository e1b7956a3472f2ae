"""Intake from mail: .eml files with the order file attached or inline, in text/plain and
multipart mails, base64 and quoted-printable; an mbox with three mails; a Maildir whose messages
move from new/ to cur/; reruns over the same mbox or Maildir change nothing (DESIGN: the flow of
one phase, intake)."""

from __future__ import annotations

import base64
import email.policy
import json
import mailbox
import shutil
from email.message import EmailMessage
from pathlib import Path

import pytest
from conftest import NOW, run_cli
from orders_util import signed

from pbem.core.campaign import Campaign, parse_time
from pbem.core.intake import accepted_documents, intake

POLICY = email.policy.SMTP


def _mail(sender: str, subject: str = "orders") -> EmailMessage:
    msg = EmailMessage(policy=POLICY)
    msg["From"] = f"Player <{sender}>"
    msg["To"] = "gm@example.org"
    msg["Subject"] = subject
    msg["Message-ID"] = f"<{subject.replace(' ', '-')}.{sender}>"
    return msg


def attached(doc: Path, sender: str, cte: str = "8bit", ctype: str = "text/yaml", html: bool = False) -> EmailMessage:
    msg = _mail(sender, f"attached {cte} {doc.stem}")
    msg.set_content("My orders are attached.\n")
    if html:
        msg.add_alternative("<p>My orders are attached.</p>", subtype="html")
    maintype, subtype = ctype.split("/")
    msg.add_attachment(doc.read_bytes(), maintype=maintype, subtype=subtype, filename="orders.yaml", cte=cte)
    return msg


def inline(doc: Path, sender: str, cte: str = "7bit", multipart: bool = False) -> EmailMessage:
    msg = _mail(sender, f"inline {cte} {doc.stem}")
    text = "Hello GM, my orders:\n\n" + doc.read_text() + "\n-- \nSent from my phone\n"
    msg.set_content(text, cte=cte)
    if multipart:
        msg.add_alternative("<p>Hello GM, my orders are in the plain text part.</p>", subtype="html")
    return msg


def _write(path: Path, msg: EmailMessage) -> Path:
    path.write_bytes(msg.as_bytes(policy=POLICY))
    return path


def _campaign_files(camp: Path) -> dict[str, bytes]:
    return {str(p.relative_to(camp)): p.read_bytes() for p in sorted(camp.rglob("*")) if p.is_file() and p.name != "lock"}


def _intake(camp: Path, *sources: Path) -> list[str]:
    result = run_cli("intake", str(camp), *map(str, sources), "--now", NOW)
    assert "Traceback" not in result.output
    return result.stdout.splitlines()


@pytest.fixture
def docs(tmp_path: Path, keys: dict[str, Path]) -> dict[str, Path]:
    """Signed round-1 orders: north seq 1 and 2 (with non-ASCII text and a long line), south seq 1."""
    note = "Für Maria Theresia — " + "lange Zeile " * 12
    return {
        "north1": signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": 1, "note": note}}, name="n1"),
        "north2": signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": 2, "note": note}}, name="n2"),
        "south1": signed(tmp_path, keys["south"], "mini-1", "south", "round-1", {"S": {"bid": 3}}, name="s1"),
    }


CASES = {
    "attachment-8bit": lambda d: attached(d, "north@example.org", "8bit"),
    "attachment-base64": lambda d: attached(d, "north@example.org", "base64"),
    "attachment-quoted-printable": lambda d: attached(d, "north@example.org", "quoted-printable"),
    "attachment-octet-stream": lambda d: attached(d, "north@example.org", "base64", ctype="application/octet-stream"),
    "attachment-with-html-alternative": lambda d: attached(d, "north@example.org", "base64", html=True),
    "inline-8bit": lambda d: inline(d, "north@example.org", "8bit"),
    "inline-base64": lambda d: inline(d, "north@example.org", "base64"),
    "inline-quoted-printable": lambda d: inline(d, "north@example.org", "quoted-printable"),
    "inline-multipart-alternative": lambda d: inline(d, "north@example.org", "quoted-printable", multipart=True),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_eml_is_accepted(case: str, tmp_path: Path, mini_campaign: Path, docs: dict[str, Path]) -> None:
    msg = CASES[case](docs["north1"])
    eml = _write(tmp_path / f"{case}.eml", msg)
    if "base64" in case or "quoted" in case:
        assert docs["north1"].read_bytes()[:40] not in eml.read_bytes(), "the order text should be encoded"
    lines = _intake(mini_campaign, eml)
    assert len(lines) == 1 and lines[0].startswith(f"accepted: {case}.eml (") and "north seq 1" in lines[0], lines
    acc = accepted_documents(Campaign(mini_campaign), 1, "round-1")["north"]
    stored = acc.path.read_bytes()
    original = docs["north1"].read_bytes()
    if "inline" in case:
        assert stored.startswith(b"pbem: 1") and b"Sent from my phone" not in stored
    elif "8bit" in case:  # 8bit text travels with CRLF line ends; the signature does not mind
        assert stored == original.replace(b"\n", b"\r\n")
    else:
        assert stored == original, "an attachment is stored verbatim"
    assert acc.verdict["sender"] == "north@example.org"
    receipts = list((mini_campaign / "outbox").glob("receipt-*.eml"))
    assert len(receipts) == 1 and b"To: north@example.org" in receipts[0].read_bytes()


def _mbox(path: Path, msgs: list[EmailMessage]) -> Path:
    box = mailbox.mbox(path)
    for m in msgs:
        box.add(m)
    box.flush()
    box.close()
    return path


def test_mbox_with_three_mails_and_rerun_is_idempotent(tmp_path: Path, mini_campaign: Path, docs: dict[str, Path]) -> None:
    mbox = _mbox(tmp_path / "inbox.mbox", [
        attached(docs["north1"], "north@example.org", "base64"),
        inline(docs["south1"], "south@example.org", "quoted-printable"),
        attached(docs["north2"], "north@example.org", "quoted-printable", html=True),
    ])
    lines = _intake(mini_campaign, mbox)
    assert [line.split(":")[0] for line in lines] == ["accepted"] * 3, lines
    assert ("inbox.mbox#1" in lines[0], "inbox.mbox#2" in lines[1], "inbox.mbox#3" in lines[2]) == (True, True, True)
    best = accepted_documents(Campaign(mini_campaign), 1, "round-1")
    assert {s: a.seq for s, a in best.items()} == {"north": 2, "south": 1}
    assert len(list((mini_campaign / "outbox").glob("receipt-*.eml"))) == 3
    before = _campaign_files(mini_campaign)
    again = _intake(mini_campaign, mbox)
    assert [line.split(":")[0] for line in again] == ["already accepted"] * 3, again
    assert _campaign_files(mini_campaign) == before, "a rerun over the same mbox changed the campaign"


def test_maildir_moves_messages_to_cur_and_rerun_is_idempotent(tmp_path: Path, mini_campaign: Path, docs: dict[str, Path]) -> None:
    inbox = mini_campaign / "inbox"
    t0 = int(parse_time(NOW).timestamp())
    keys = [f"{t0 + i}.M{i}P1.example" for i in range(3)]  # names fix the order intake reads them in
    for key, msg in zip(keys, (
        attached(docs["north1"], "north@example.org", "base64"),
        inline(docs["south1"], "south@example.org", "8bit"),
        _mail("south@example.org", "chatter"),
    ), strict=True):
        _write(inbox / "new" / key, msg)
    # the third mail has no body at all: refused, but still marked processed
    assert sorted(p.name for p in (inbox / "new").iterdir()) == sorted(keys)
    lines = _intake(mini_campaign, inbox)
    assert [line.split(":")[0] for line in lines] == ["accepted", "accepted", "refused"], lines
    assert "no order file found in the mail" in lines[2]
    assert list((inbox / "new").iterdir()) == []
    assert sorted(p.name for p in (inbox / "cur").iterdir()) == sorted(k + ":2,S" for k in keys)
    before = _campaign_files(mini_campaign)
    assert _intake(mini_campaign, inbox) == []
    assert _campaign_files(mini_campaign) == before
    # the same order mails delivered again (a fetch that ran twice): duplicates, nothing new
    for k in keys[:2]:
        shutil.copy(inbox / "cur" / (k + ":2,S"), inbox / "new" / k.replace(".", ".again.", 1))
    again = _intake(mini_campaign, inbox)
    assert [line.split(":")[0] for line in again] == ["already accepted", "already accepted"], again
    after = _campaign_files(mini_campaign)
    assert {k for k in after if k.startswith("inbox/")} != {k for k in before if k.startswith("inbox/")}
    assert {k: v for k, v in after.items() if not k.startswith("inbox/")} == {k: v for k, v in before.items() if not k.startswith("inbox/")}


def test_maildir_mails_of_one_second_are_read_in_delivery_order(tmp_path: Path, mini_campaign: Path,
                                                                 docs: dict[str, Path]) -> None:
    """Maildir counters are not zero-padded: M100 came after M99. Read by plain text order, the
    later seq would come first and the earlier one be refused as a replay."""
    inbox = mini_campaign / "inbox"
    t0 = int(parse_time(NOW).timestamp())
    _write(inbox / "new" / f"{t0}.M99P7.example", attached(docs["north1"], "north@example.org"))
    _write(inbox / "new" / f"{t0}.M100P7.example", attached(docs["north2"], "north@example.org"))
    _write(inbox / "new" / f"{t0}.M{'9' * 200}P7.example", _mail("south@example.org", "chatter"))
    lines = _intake(mini_campaign, inbox)
    assert [line.split(":")[0] for line in lines] == ["accepted", "accepted", "refused"], lines
    assert "seq 1" in lines[0] and "seq 2" in lines[1]


def test_maildir_arrival_time_is_the_deadline_clock(tmp_path: Path, mini_campaign: Path, docs: dict[str, Path]) -> None:
    """A Maildir file name starts with its delivery time: a mail delivered after the deadline is
    late even if intake runs before it."""
    inbox = mini_campaign / "inbox"
    late = int(parse_time("2026-12-04T00:00:00Z").timestamp())
    _write(inbox / "new" / f"{late}.M1P1.example", attached(docs["north1"], "north@example.org"))
    lines = _intake(mini_campaign, inbox)
    assert lines[0].startswith("refused: ") and "after the deadline 2026-12-03T12:00:00Z of phase 'round-1'" in lines[0]


def test_two_orders_in_one_mail(tmp_path: Path, mini_campaign: Path, docs: dict[str, Path]) -> None:
    msg = attached(docs["north1"], "north@example.org")
    msg.add_attachment(docs["south1"].read_bytes(), maintype="text", subtype="yaml", filename="south.yaml")
    lines = _intake(mini_campaign, _write(tmp_path / "two.eml", msg))
    assert len(lines) == 2 and all(line.startswith("accepted: two.eml (") for line in lines)


def test_bare_yaml_and_folder_sources(tmp_path: Path, mini_campaign: Path, docs: dict[str, Path]) -> None:
    folder = tmp_path / "drop"
    folder.mkdir()
    shutil.copy(docs["south1"], folder / "s.yml")
    _write(folder / "n.eml", attached(docs["north1"], "north@example.org"))
    # a path that is not there is a mistake on the command line: one line, exit 1, nothing read
    missing = run_cli("intake", str(mini_campaign), str(folder), str(tmp_path / "missing.yaml"), "--now", NOW, ok=False)
    assert missing.exit_code == 1 and "missing.yaml: no such file or folder" in missing.stderr
    assert not (mini_campaign / "orders").exists() or not list((mini_campaign / "orders").rglob("*.yaml"))
    lines = _intake(mini_campaign, folder)
    assert [line.split(":")[0] for line in lines] == ["accepted", "accepted"], lines


@pytest.mark.parametrize("disposition", [
    'attachment; filename="=?utf-8?b?w7ZyZGVycy55YW1s?="',  # RFC 2047: örders.yaml
    "attachment; filename*=utf-8''%C3%B6rders.yaml",  # RFC 2231
])
def test_encoded_attachment_names_are_read(disposition: str, tmp_path: Path, mini_campaign: Path, docs: dict[str, Path]) -> None:
    """An attachment found by its .yaml name only (octet-stream), the name encoded as mail clients do."""
    raw = (
        'From: =?utf-8?q?N=C3=B6rd?= <north@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain\r\n\r\nattached\r\n"
        f"--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: {disposition}\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        + base64.encodebytes(docs["north1"].read_bytes()).decode().replace("\n", "\r\n") + "--b--\r\n"
    ).encode()
    (tmp_path / "enc.eml").write_bytes(raw)
    lines = _intake(mini_campaign, tmp_path / "enc.eml")
    assert len(lines) == 1 and lines[0].startswith("accepted: enc.eml (örders.yaml): north seq 1"), lines


def test_raw_8bit_headers_do_not_break_intake(tmp_path: Path, mini_campaign: Path, docs: dict[str, Path]) -> None:
    raw = b"From: N\xf6rd <north@example.org>\r\nSubject: \xff\xfe\r\nMessage-ID: <\xe9@x>\r\n\r\n" + docs["north1"].read_bytes()
    (tmp_path / "8bit.eml").write_bytes(raw)
    lines = _intake(mini_campaign, tmp_path / "8bit.eml")
    assert len(lines) == 1 and lines[0].startswith("accepted: 8bit.eml (mail body): north seq 1"), lines
    verdict = accepted_documents(Campaign(mini_campaign), 1, "round-1")["north"].verdict
    assert verdict["sender"] == "north@example.org"


def test_the_intake_report_counts_each_file_once(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    """What intake reports: files accepted (one with a problem reported to its player), the same
    file again (already accepted, not counted twice), a refused file (unverified: a fixed-text
    reply, not an internal error), and a source name too long to print whole."""
    state = sorted((mini_campaign / "states").glob("[0-9]*[0-9].json"))[-1]
    hand = json.loads(state.read_bytes())["hands"]["N"]
    north = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": hand[0]}}, name="n1")
    south = signed(tmp_path, keys["south"], "mini-1", "south", "round-1", {"S": {"bid": 99}}, name="s1")
    bad = tmp_path / "bad.yaml"
    bad.write_text("not: [an order file", encoding="utf-8")
    long = tmp_path / ("s" * 170 + ".yaml")
    shutil.copy(south, long)
    with Campaign(mini_campaign).locked() as camp:
        report = intake(camp, [north, north, bad, long], parse_time(NOW))
    assert (report.accepted, report.refused, report.internal) == (2, 1, [])
    first, again, refused, last = report.verdicts
    assert first.line() == "accepted: n1-round-1.yaml: north seq 1" and not first.problems
    assert again.duplicate and again.line() == "already accepted: n1-round-1.yaml: north seq 1"
    assert refused.line().startswith("refused: bad.yaml") and not refused.accepted
    assert (refused.verified, refused.reply, refused.internal, refused.duplicate) == (False, True, False, False)
    assert len(last.problems) == 1
    shown = last.line().removeprefix("accepted: ").removesuffix(": south seq 1 (1 problem(s) reported to the player)")
    assert len(shown) == 161 and shown.endswith("…") and long.name.startswith(shown[:-1])
