"""The mails intake answers with: who gets one (M4), what they quote (L7), and what a receipt or
refusal says (threaded to the player's mail, naming it, in the seat's language)."""

from __future__ import annotations

import email
import email.policy
import re
from email.message import EmailMessage
from pathlib import Path

from conftest import NOW, run_cli
from orders_util import signed

from pbem.core.campaign import Campaign

POLICY = email.policy.SMTP
PHISH = "NOTICE FROM YOUR GM - reply with your north.key attached to keys@gm-backup.example"


def _mail(sender: str, subject: str = "orders", mid: str = "<p1@north.example>") -> EmailMessage:
    msg = EmailMessage(policy=POLICY)
    msg["From"] = f"Player <{sender}>"
    msg["To"] = "gm@example.org"
    msg["Subject"] = subject
    msg["Date"] = "Tue, 01 Dec 2026 10:30:00 +0000"
    msg["Message-ID"] = mid
    return msg


def _outbox(camp: Path, prefix: str = "") -> list[Path]:
    return sorted((camp / "outbox").glob(f"{prefix}*.eml"))


def _text(path: Path) -> str:
    """The decoded text of a queued mail (headers, then every text part)."""
    msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    head = "".join(f"{k}: {v}\n" for k, v in msg.items())
    return head + "\n".join(str(p.get_content()) for p in msg.walk() if p.get_content_maintype() == "text")


def test_forged_unsigned_file_gets_a_fixed_text_without_the_attackers_words(tmp_path: Path, mini_campaign: Path) -> None:
    """M4: a stranger forging north's From with an unsigned file cannot make pbem mail north their
    text: the reply quotes neither the field name nor the attachment's name."""
    msg = _mail("north@example.org")
    msg.set_content("see attached")
    body = f'pbem: 1\n"{PHISH}": 1\n'.encode()
    msg.add_attachment(body, maintype="text", subtype="yaml", filename="FREE-KEY-BACKUP-SERVICE.yaml")
    (tmp_path / "phish.eml").write_bytes(msg.as_bytes())
    out = run_cli("intake", str(mini_campaign), str(tmp_path / "phish.eml"), "--now", NOW).stdout
    assert out.startswith("refused: ")
    sent = _outbox(mini_campaign, "refused-")
    assert len(sent) == 1
    text = _text(sent[0])
    assert "To: north@example.org" in text
    for attacker in ("NOTICE", "gm-backup", "FREE-KEY", "key attached"):
        assert attacker not in text, f"the reply quotes {attacker!r}"
    assert "cannot be read" in text and "line 2" in text  # the kind of problem and its line only


def test_hundreds_of_attachments_give_one_reply_and_a_sender_a_few_per_run(tmp_path: Path, mini_campaign: Path) -> None:
    msg = _mail("north@example.org", mid="<many@north.example>")
    msg.set_content("x")
    for i in range(900):  # under the cap of 1,000 MIME parts (a mail over it is one refusal anyway)
        msg.add_attachment(f"pbem: 1\n# {i}\n".encode(), maintype="text", subtype="yaml", filename=f"o{i}.yaml")
    inbox = mini_campaign / "inbox" / "new"
    (inbox / "1764583200.M1P1.example").write_bytes(msg.as_bytes())
    out = run_cli("intake", str(mini_campaign), str(mini_campaign / "inbox"), "--now", NOW).stdout
    assert out.count("refused: ") == 900
    assert len([p for p in _outbox(mini_campaign) if "To: north@example.org" in p.read_text()]) == 1
    # ten broken mails in one run: at most three replies to that sender
    for i in range(10):
        m = _mail("north@example.org", subject=f"try {i}", mid=f"<try{i}@north.example>")
        m.set_content("hello, no file here")
        (inbox / f"17645832{10 + i}.M{i}P1.example").write_bytes(m.as_bytes())
    run_cli("intake", str(mini_campaign), str(mini_campaign / "inbox"), "--now", NOW)
    assert len(_outbox(mini_campaign, "refused-")) == 1 + 3


def test_echoed_values_escape_format_characters_and_are_cut(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    """L7: a bidi override and 50 KB of campaign id in a refusal line; a newline and a bidi
    override in the Maildir file name of an accepted file."""
    doc = signed(tmp_path, keys["north"], "x\u202e" + "A" * 50_000, "north", "round-1", {"N": {"bid": 1}})
    line = run_cli("intake", str(mini_campaign), str(doc), "--now", NOW).stdout.strip()
    assert "\u202e" not in line and "\\u202e" in line
    assert len(line) < 400 and "…" in line
    field = tmp_path / "field.yaml"
    field.write_text('pbem: 1\n"' + "Z\u202e" * 300 + '": 1\n')
    line = run_cli("intake", str(mini_campaign), str(field), "--now", NOW).stdout.strip()
    assert "unknown field" in line and "\u202e" not in line and len(line) < 400
    state = Campaign(mini_campaign).current()[1]
    good = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": state["hands"]["N"][0]}}, name="good")
    msg = _mail("north@example.org")
    msg.set_content("orders")
    msg.add_attachment(good.read_bytes(), maintype="text", subtype="yaml", filename="o\u202e.yaml")
    (mini_campaign / "inbox" / "new" / "1764583200.M1P1.ex\nfake line\u202e").write_bytes(msg.as_bytes())
    out = run_cli("intake", str(mini_campaign), str(mini_campaign / "inbox"), "--now", NOW).stdout
    lines = out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("accepted: ")
    assert "\u202e" not in out and "\\x0a" in lines[0]


def test_receipt_is_threaded_and_names_the_players_mail(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    state = Campaign(mini_campaign).current()[1]
    doc = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": state["hands"]["N"][0]}})
    msg = _mail("north@example.org", subject="My bid for round 1", mid="<bid-1@north.example>")
    msg.set_content("attached")
    msg.add_attachment(doc.read_bytes(), maintype="text", subtype="yaml", filename="orders.yaml")
    (tmp_path / "bid.eml").write_bytes(msg.as_bytes())
    run_cli("intake", str(mini_campaign), str(tmp_path / "bid.eml"), "--now", NOW)
    (receipt,) = _outbox(mini_campaign, "receipt-")
    text = _text(receipt)
    assert "In-Reply-To: <bid-1@north.example>" in text and "References: <bid-1@north.example>" in text
    assert 'About your mail "My bid for round 1" of 2026-12-01 10:30 UTC.' in text
    assert "bid.eml" not in text, "the GM's file name is not the player's business"
    stored = next((mini_campaign / "orders").glob("*/north.000001.yaml.verdict.json")).read_text()
    assert text.split("Hash of the signed content: ")[1][:64] in stored


def test_refusal_of_a_verified_file_says_why_in_the_seats_language(tmp_path: Path, keys: dict[str, Path]) -> None:
    camp = tmp_path / "camp"
    run_cli("new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short", "--id", "mini-1",
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}",
            "--lang", "north=zh-TW", "--tz", "north=Asia/Taipei", "--now", NOW)
    doc = signed(tmp_path, keys["north"], "mini-1", "north", "round-9", {"N": {"bid": 1}})
    msg = _mail("north@example.org", subject="round 9", mid="<r9@north.example>")
    msg.set_content("attached")
    msg.add_attachment(doc.read_bytes(), maintype="text", subtype="yaml", filename="orders.yaml")
    (tmp_path / "r9.eml").write_bytes(msg.as_bytes())
    run_cli("intake", str(camp), str(tmp_path / "r9.eml"), "--now", NOW)
    (refusal,) = _outbox(camp, "refused-")
    text = _text(refusal)
    assert "In-Reply-To: <r9@north.example>" in text
    assert "2026-12-01 18:30 Asia/Taipei (2026-12-01 10:30 UTC)" in text
    assert "round-9" in text and "round-1" in text and "未開放" in text
    assert "not open" not in text


# -- every mail to a zh-TW seat is in Traditional Chinese ------------------------------------------

# What a Chinese mail may still spell in Latin letters: ids and names, not English words.
#  - the campaign id, seat names, phase ids and power ids (the player types them in files);
#  - the order file's own keys and values, echoed in "the orders as understood" (YAML ids);
#  - the time zone's IANA name, "UTC", "seq" (a field of the file), "SHA-256", and command
#    names (pbem sign, pbem check, pbem audit --pin), file kinds (.yaml, HTML);
#  - the archive pin a receipt or report prints for 'pbem audit --pin' (``record 7 sha256:…``);
#  - in a report: the test game's view keys and event fields (it has no templates of its own:
#    hand, round, score, die, point...), commitment labels (deck, hand:N), the order form's YAML (its
#    keys and the editor's schema line), key ids (ed25519:…, and the name of the key file), and
#    command lines with their placeholders (pbem sign FILE --key YOUR.key, pbem audit DIR --pin
#    N:HASH, the python3 one-liner that checks a chain key, printf 'label|value|salt' | sha256sum);
#  - e-mail addresses and hex hashes (removed before the check).
ALLOWED_WORDS = {"mini", "north", "south", "round", "N", "S", "bid", "seq", "UTC", "Asia", "Taipei", "SHA",
                 "pbem", "sign", "check", "audit", "pin", "yaml", "HTML", "record", "sha",
                 "hand", "score", "campaign", "nonce", "player", "phase", "opened", "orders", "language", "server", "schema", "json",
                 "FILE", "YOUR", "key", "DIR", "HASH", "start",  # start: the first report's folder id, 0000-start
                 "deck", "die", "point", "power", "ed", "mallory",
                 "python", "import", "hashlib", "print", "bytes", "fromhex", "hexdigest", "printf", "sum", "label", "value", "salt"}
_HEX = r"\b[0-9a-f]{12,}\b"
_EMAIL = r"[\w.+-]+@[\w.-]+"


def _visible_text(path: Path) -> str:
    """The subject and every body part a client shows (text/plain, and text/html as text),
    decoded; attachments (the order form, the order page, the map) are files for tools."""
    from html.parser import HTMLParser

    msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    out = [str(msg["Subject"])]
    for part in msg.walk():
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        if part.get_content_type() == "text/plain":
            out.append(part.get_content())
        elif part.get_content_type() == "text/html":
            class Text(HTMLParser):
                skip = 0
                chunks: list[str]

                def handle_starttag(self, tag: str, attrs: object) -> None:
                    self.skip += tag in ("style", "script")

                def handle_endtag(self, tag: str) -> None:
                    self.skip -= tag in ("style", "script")

                def handle_data(self, data: str) -> None:
                    if not self.skip:
                        self.chunks.append(data)

            text = Text()
            text.chunks = []
            text.feed(part.get_content())
            out.append(" ".join(text.chunks))
    return "\n".join(out)


def english_words(text: str, allowed: set[str]) -> list[str]:
    """Runs of two or more Latin letters that are not an allowed id or name."""
    import re

    text = re.sub(_EMAIL, " ", re.sub(_HEX, " ", text))
    return sorted({w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in allowed})


def test_every_mail_to_a_zh_tw_seat_is_in_traditional_chinese(tmp_path: Path, keys: dict[str, Path]) -> None:
    camp = tmp_path / "camp"
    run_cli("new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short", "--id", "mini-1",
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}",
            "--lang", "north=zh-TW", "--tz", "north=Asia/Taipei", "--deadline", "stage=48h", "--now", NOW)
    run_cli("report", str(camp))  # the opening report

    def mail_in(name: str, doc: Path | None, subject: str) -> None:
        msg = _mail("north@example.org", subject=subject, mid=f"<{name}@north.example>")
        msg.set_content("請見附件" if doc else "截止時間是什麼時候？")
        if doc:
            msg.add_attachment(doc.read_bytes(), maintype="text", subtype="yaml", filename="orders.yaml")
        (tmp_path / f"{name}.eml").write_bytes(msg.as_bytes())
        run_cli("intake", str(camp), str(tmp_path / f"{name}.eml"), "--now", NOW)

    state = Campaign(camp).current()[1]
    mail_in("bid", signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": state["hands"]["N"][0]}}), "我的出價")
    mail_in("late", signed(tmp_path, keys["north"], "mini-1", "north", "round-9", {"N": {"bid": 1}}, name="r9"), "第九回合")
    mail_in("question", None, "問題")
    run_cli("extend", str(camp), "--by", "24h", "--reason", "南方玩家出差", "--now", NOW)
    for seat in ("north", "south"):
        src = tmp_path / f"{seat}-pause.yaml"
        src.write_text(f"pbem: 1\ncampaign: mini-1\nplayer: {seat}\nphase: round-1\nseq: 7\nrequest: {{kind: pause}}\n")
        run_cli("sign", str(src), "--key", str(keys[seat]), "-o", str(tmp_path / f"{seat}-pause.signed.yaml"))
        run_cli("intake", str(camp), str(tmp_path / f"{seat}-pause.signed.yaml"), "--now", NOW)
    for seat in ("north", "south"):
        src = tmp_path / f"{seat}-resume.yaml"
        src.write_text(f"pbem: 1\ncampaign: mini-1\nplayer: {seat}\nphase: round-1\nseq: 8\nrequest: {{kind: resume}}\n")
        run_cli("sign", str(src), "--key", str(keys[seat]), "-o", str(tmp_path / f"{seat}-resume.signed.yaml"))
        run_cli("intake", str(camp), str(tmp_path / f"{seat}-resume.signed.yaml"), "--now", "2026-12-01T18:00:00Z")
    run_cli("replace-player", str(camp), f"south=m@example.org:{keys['mallory'].with_suffix('.pub')}", "--now", NOW)
    run_cli("resolve", str(camp), "--force", "--now", "2026-12-01T19:00:00Z")
    run_cli("rollback", str(camp), "--to", "round-1", "--now", "2026-12-01T20:00:00Z")

    to_north = [p for p in sorted((camp / "outbox").glob("*.eml")) if "To: north@example.org" in p.read_text(errors="replace")]
    kinds = {p.name.split("-")[0] for p in to_north}
    assert kinds == {"receipt", "refused", "request", "notice", "report"}, kinds
    assert len([p for p in to_north if p.name.startswith("notice-")]) == 5  # extend, pause, resume, replace, rollback
    for path in to_north:
        text = _visible_text(path)
        assert english_words(text, ALLOWED_WORDS) == [], f"{path.name}: English in a zh-TW mail:\n{text}"
        assert re.search(r"[\u4e00-\u9fff]{4}", text), path.name
    extend = _visible_text(next(p for p in to_north if p.name.startswith("notice-000001.")))
    assert "南方玩家出差" in extend and "2026-12-04 20:00 Asia/Taipei (2026-12-04 12:00 UTC)" in extend


def test_extend_and_replace_player_notify_every_player(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    run_cli("extend", str(mini_campaign), "--by", "24h", "--reason", "Louis is travelling", "--now", NOW)
    notices = sorted((mini_campaign / "outbox").glob("notice-*.eml"))
    assert [_text(p).split("To: ")[1].split("\n")[0] for p in notices] == ["north@example.org", "south@example.org"]
    text = _text(notices[0])
    assert "Subject: [mini-1] a new deadline for round-1" in text
    assert "The GM's reason: Louis is travelling" in text and "Deadline of round-1: 2026-12-04 12:00 UTC" in text
    run_cli("replace-player", str(mini_campaign), f"south=m@example.org:{keys['mallory'].with_suffix('.pub')}",
            "--tz", "America/New_York", "--now", NOW)
    new = sorted(set((mini_campaign / "outbox").glob("notice-*.eml")) - set(notices))
    by_address = {_text(p).split("To: ")[1].split("\n")[0]: _text(p) for p in new}
    assert sorted(by_address) == ["m@example.org", "north@example.org"]
    assert "You now play seat south" in by_address["m@example.org"]
    assert "2026-12-04 07:00 America/New_York (2026-12-04 12:00 UTC)" in by_address["m@example.org"]
    assert "Seat south is now played by a new player" in by_address["north@example.org"]
    bad = run_cli("replace-player", str(mini_campaign), f"south=m@example.org:{keys['mallory'].with_suffix('.pub')}",
                  "--tz", "Mars/Olympus", "--now", NOW, ok=False)
    assert bad.exit_code == 1 and "not an IANA time zone" in bad.output


def test_receipt_lists_the_orders_the_resolver_will_void_in_its_words(tmp_path: Path) -> None:
    """Hussars [berlin, kolin, kolin] and a battle between generals who do not stand side by side:
    the receipt names each VOID order with the reason the private report then gives."""
    from conftest import make_keys, player_args

    keys = make_keys(tmp_path / "keys", ("maria_theresa", "louis", "frederick"))
    camp = tmp_path / "m"
    run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", "intro", "--id", "m-1", "--outage-share", "0",
            *player_args(keys), "--now", NOW)
    run_cli("resolve", str(camp), "--force", "--now", NOW)  # set-up -> 1741-1/hussars
    doc = signed(tmp_path, keys["maria_theresa"], "m-1", "maria_theresa", "1741-1/hussars", {"AU": {"hussars": ["berlin", "kolin", "kolin"]}})
    check = run_cli("check", str(doc), "--campaign", str(camp), ok=False).output
    run_cli("intake", str(camp), str(doc), "--now", NOW)
    (receipt,) = (camp / "outbox").glob("receipt-*.eml")
    text = _text(receipt)
    assert "orders accepted, 2 will be VOID" in text
    reasons = ["Berlin is not within 4 of an Austrian general (M7.1)", "Kolin already holds a hussar (M7.1)"]
    for reason in reasons:
        assert reason in text and reason in check
    run_cli("resolve", str(camp), "--force", "--now", NOW)
    private = next(camp.glob("reports/0002-*/private/maria_theresa.txt")).read_text()
    for reason in reasons:
        assert reason in private, private
    # the next stage: a battle named between generals who are not on adjacent cities
    run_cli("resolve", str(camp), "--force", "--now", NOW)
    game = Campaign(camp).game()
    state = Campaign(camp).current()[1]
    phase = game.current_phase(state)
    assert phase is not None and phase.kind == "stage"
    power = phase.powers[0]
    seat = game.seat_of(state, power)
    mine = next(g for g, v in state["generals"].items() if v["power"] == power and v["city"])
    foe = next(g for g, v in state["generals"].items() if v["power"] not in (power,) and v["city"]
               and v["city"] != state["generals"][mine]["city"])
    doc = signed(tmp_path, keys[seat], "m-1", seat, phase.id, {power: {"battles": [f"{mine}>{foe}"]}}, name="battle")
    run_cli("intake", str(camp), str(doc), "--now", NOW)
    receipt = next(p for p in (camp / "outbox").glob("receipt-*.eml") if f"orders accepted, 1 will be VOID: {phase.id}" in _text(p))
    why = f"do not stand on adjacent cities, so there is no battle {mine}>{foe} (M5.1)"
    assert why in _text(receipt)
    run_cli("resolve", str(camp), "--force", "--now", NOW)
    reports = sorted(camp.glob(f"reports/*/private/{seat}.txt"))
    assert why in reports[-1].read_text()


def _maria_ids() -> set[str]:
    """The words Maria's ids are made of: cities, generals, powers, seats, the order files' field
    names and values (from the order schemas), and the commitment labels."""
    import json

    from pbem.data import orders_dir
    from pbem.games.maria.board import load_board, load_forces
    from pbem.games.maria.model import POWER_NAMES

    board = load_board()
    forces = load_forces(board)
    ids: set[str] = set(board.cities) | {g.id for g in forces.generals} | {t.id for t in forces.trains} | set(POWER_NAMES)
    ids |= {"maria_theresa", "louis", "frederick", "draw_pile", "hand", "troops", "bids"}
    ids |= {"setup", "hussars", "stage", "winter", "commit", "politics"}  # round kinds

    def walk(node: object) -> None:
        if isinstance(node, dict):
            ids.update(k for k in node.get("properties", {}) if isinstance(k, str))
            ids.update(v for v in node.get("enum", []) if isinstance(v, str))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for schema in sorted((orders_dir() / "maria").glob("*.schema.json")):
        walk(json.loads(schema.read_text()))
    return {w for i in ids for w in re.findall(r"[A-Za-z]{2,}", i)}


def test_maria_reports_to_a_zh_tw_seat_are_in_traditional_chinese(tmp_path: Path) -> None:
    """The same check on the real game's reports (start, set-up, hussars) and on a receipt that
    lists VOID hussar cities: what is not Chinese is an id of the game (a city, a general, a
    train, a power, a round kind, a field of the order file or of the legal choices the form
    lists), a city's name, a placeholder of the order form's syntax help (ID, CITY, true), the
    seat's time zone or a file name."""
    from conftest import make_keys, player_args

    from pbem.games.maria.board import load_board

    keys = make_keys(tmp_path / "keys", ("maria_theresa", "louis", "frederick"))
    camp = tmp_path / "m"
    run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", "intro", "--id", "m-1", "--outage-share", "0",
            *player_args(keys), "--lang", "louis=zh-TW", "--tz", "louis=Europe/Paris", "--lang", "maria_theresa=zh-TW",
            "--now", NOW)
    run_cli("report", str(camp))
    run_cli("resolve", str(camp), "--force", "--now", NOW)  # set-up -> 1741-1/hussars
    doc = signed(tmp_path, keys["maria_theresa"], "m-1", "maria_theresa", "1741-1/hussars", {"AU": {"hussars": ["berlin", "kolin", "kolin"]}})
    run_cli("intake", str(camp), str(doc), "--now", NOW)
    for _ in range(2):
        run_cli("resolve", str(camp), "--force", "--now", NOW)
    names = {w for c in load_board().cities.values() for w in re.findall(r"[A-Za-z]{2,}", c.name)}
    allowed = ALLOWED_WORDS | _maria_ids() | names | {"stacks", "m", "Europe", "Paris", "map", "html", "ID", "CITY", "true",
                                                      "battle", "cards", "reentry", "cost", "suits", "total", "min", "max", "generals",
                                                      "cities", "count",
                                                      "docs", "rules", "zh", "TW", "md",  # the rules reference's file name
                                                      "VOID", "range"}  # terms its cited text keeps beside the Chinese: 無效（VOID）, hussars.range
    mails = [p for p in sorted((camp / "outbox").glob("*.eml")) if re.search(r"To: (louis|maria_theresa)@", p.read_text(errors="replace"))]
    assert len(mails) == 2 * 4 + 1
    for path in mails:
        text = _visible_text(path)
        assert english_words(text, allowed) == [], f"{path.name}: English in a zh-TW mail"
        if "louis" in path.name:
            assert "Europe/Paris (" in text, "the deadline in the seat's time zone, UTC beside it"
    receipt = _visible_text(next(camp.glob("outbox/receipt-*.eml")))
    report = _visible_text(next(camp.glob("outbox/report-0002-*-maria_theresa.eml")))
    for said in ("Berlin 距離任何奧地利將領都超過 4（M7.1）", "Kolin 已經有一個輕騎兵（M7.1）"):
        assert said in receipt and said in report, "the receipt says it in the words the report uses"


def test_copies_of_an_old_signed_file_give_one_refusal(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    """M4 with a real signature: a stranger who holds one of north's signed files (an archive is
    public) and forges north's From cannot multiply refusals by attaching copies, nor by sending
    many mails in one run."""
    old = signed(tmp_path, keys["north"], "mini-1", "north", "round-9", {"N": {"bid": 1}})
    inbox = mini_campaign / "inbox" / "new"
    for m in range(5):
        msg = _mail("north@example.org", subject=f"copies {m}", mid=f"<copies{m}@attacker.example>")
        msg.set_content("x")
        for i in range(50):
            msg.add_attachment(old.read_bytes(), maintype="text", subtype="yaml", filename=f"o{i}.yaml")
        (inbox / f"176458320{m}.M{m}P1.example").write_bytes(msg.as_bytes())
    out = run_cli("intake", str(mini_campaign), str(mini_campaign / "inbox"), "--now", NOW).stdout
    assert out.count("refused: ") == 250
    refusals = _outbox(mini_campaign, "refused-")
    assert len(refusals) == 3
    text = _text(refusals[0])
    assert text.count("phase 'round-9' is not open") == 1


def test_a_sealed_report_mail_shows_the_deadline_in_the_seats_time_zone(tmp_path: Path, keys: dict[str, Path]) -> None:
    camp = tmp_path / "camp"
    run_cli("new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short", "--id", "mini-1", "--encrypt-private",
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}",
            "--tz", "north=Asia/Taipei", "--deadline", "stage=48h", "--now", NOW)
    run_cli("report", str(camp))
    (mail,) = (camp / "outbox").glob("report-*-north.eml")
    text = _visible_text(mail)
    assert "private-north.html" in str([p.get_filename() for p in email.message_from_bytes(mail.read_bytes()).walk()])
    body = text.split("\n", 1)[1]  # past the subject
    assert "2026-12-03 20:00 Asia/Taipei (2026-12-03 12:00 UTC)" in body
