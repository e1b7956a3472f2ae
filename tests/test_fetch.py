"""``pbem fetch`` against a real IMAP server (dovecot on loopback): every message stored once."""

from __future__ import annotations

import imaplib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import require_service
from imapserver import ImapServer, dovecot_available
from smtpserver import free_port

from pbem.cli import main
from pbem.core.fetch import STATE_FILE, Account, fetch_lock, message_key, plan_fetch


def require_dovecot() -> None:
    """Skip without dovecot or root on a developer's machine; fail under ``CI=true``."""
    require_service(dovecot_available(), "needs dovecot (apt-get install dovecot-imapd) and root")


@pytest.fixture
def dovecot_present() -> None:
    require_dovecot()


needs_dovecot = pytest.mark.usefixtures("dovecot_present")
KEY = "maria-1741@127.0.0.1:143/INBOX"


@pytest.mark.parametrize(
    ("server", "unseen", "account", "stored", "expected"),
    [
        # nothing known yet: fetch all
        ([1, 2, 3], [1, 2, 3], None, [], ((1, 2, 3), (), (), False)),
        # 1 and 2 recorded, 2 still unseen (crash after record): flag 2, fetch 3
        ([1, 2, 3], [2, 3], Account(7, [1, 2]), [1, 2], ((3,), (), (2,), False)),
        # 3 stored but not recorded (crash after store): record and flag it, fetch nothing
        ([1, 2, 3], [3], Account(7, [1, 2]), [1, 2, 3], ((), (3,), (3,), False)),
        # new UIDVALIDITY: the old record is void
        ([1, 2], [], Account(6, [1, 2]), [], ((1, 2), (), (), True)),
    ],
)
def test_plan_fetch(server: list[int], unseen: list[int], account: Account | None,
                    stored: list[int], expected: tuple) -> None:
    names = {message_key(KEY, 7, uid) for uid in stored}
    plan = plan_fetch(server, unseen, account, 7, names, KEY)
    assert (plan.fetch, plan.record, plan.flag, plan.reset) == expected


@pytest.fixture(autouse=True)
def no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in ("PBEM_IMAP_USER", "PBEM_IMAP_PASSWORD"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def dovecot():
    require_dovecot()
    with ImapServer(spare_users=40) as srv:
        yield srv


@pytest.fixture
def imap(dovecot: ImapServer) -> ImapServer:
    """A fresh, empty mailbox on the module's dovecot, for one test."""
    return dovecot.mailbox_of_new_user()


def order_mail(i: int) -> bytes:
    return (
        f"From: Player {i} <player{i}@example.org>\r\n"
        "To: maria-1741@example.org\r\n"
        f"Subject: orders 1741-1 seat {i}\r\n"
        f"Message-ID: <orders-{i}@players.example.org>\r\n"
        "\r\n"
        f"pbem: 1\r\ncampaign: maria-1741\r\nseq: {i}\r\n"
    ).encode()


def security(srv: ImapServer) -> str:
    return "ssl" if srv.ssl else "starttls" if srv.starttls else "none"


def campaign(tmp_path: Path, srv: ImapServer, mode: int = 0o644, extra: str = "") -> Path:
    root = tmp_path / "maria-1741"
    root.mkdir()
    settings = root / "mail.yaml"
    settings.write_text(
        f"imap:\n  host: 127.0.0.1\n  port: {srv.port}\n  security: {security(srv)}"
        f"\n  user: {srv.user}\n  mailbox: INBOX\n{extra}"
    )
    settings.chmod(mode)
    return root


def fetch(root: Path, srv: ImapServer, *args: str):
    return CliRunner().invoke(main, ["fetch", str(root), *args],
                              env={"PBEM_IMAP_PASSWORD": srv.password})


def inbox_messages(root: Path) -> list[bytes]:
    files = sorted((root / "inbox" / "new").iterdir()) + sorted((root / "inbox" / "cur").iterdir())
    return sorted(path.read_bytes() for path in files)


def test_fetch_stores_every_message_once_and_flags_it(tmp_path: Path, imap: ImapServer) -> None:
    imap.append(*(order_mail(i) for i in range(1, 4)))
    root = campaign(tmp_path, imap)
    result = fetch(root, imap)
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 3
    assert inbox_messages(root) == sorted(order_mail(i) for i in range(1, 4))
    assert all("\\Seen" in flags for flags in imap.flags().values())
    record = json.loads((root / "inbox" / STATE_FILE).read_text())
    [(key, account)] = record["accounts"].items()
    assert key == f"{imap.user}@127.0.0.1:{imap.port}/INBOX" and account["uids"] == [1, 2, 3]
    assert list((root / "inbox" / "tmp").iterdir()) == []


def test_rerun_fetches_nothing_and_a_later_message_is_fetched(tmp_path: Path,
                                                              imap: ImapServer) -> None:
    imap.append(order_mail(1), order_mail(2))
    root = campaign(tmp_path, imap)
    assert fetch(root, imap).exit_code == 0
    again = fetch(root, imap)
    assert again.exit_code == 0 and again.stdout == ""
    assert len(inbox_messages(root)) == 2
    imap.append(order_mail(3))
    later = fetch(root, imap)
    assert later.exit_code == 0
    assert later.stdout.count("fetched new/") == 1 and "<orders-3@" in later.stdout
    assert inbox_messages(root) == sorted(order_mail(i) for i in range(1, 4))


def test_file_name_starts_with_the_time_the_server_received_the_mail(
    tmp_path: Path, imap: ImapServer
) -> None:
    """Intake reads the arrival time from the Maildir name: the server's time, not ours."""
    arrived = datetime(2026, 1, 15, 11, 59, 30, tzinfo=UTC)
    client = imap.connect()
    client.append("INBOX", "", imaplib.Time2Internaldate(arrived.timestamp()), order_mail(1))
    client.logout()
    root = campaign(tmp_path, imap)
    assert fetch(root, imap).exit_code == 0
    [path] = (root / "inbox" / "new").iterdir()
    assert path.name.split(".")[0] == str(int(arrived.timestamp()))
    assert path.name.endswith(".pbem") and ":" not in path.name


def test_messages_read_by_a_human_are_still_fetched(tmp_path: Path, imap: ImapServer) -> None:
    imap.append(order_mail(1), order_mail(2))
    client = imap.connect()
    client.select("INBOX")
    client.uid("STORE", "1", "+FLAGS", "(\\Seen)")
    client.logout()
    root = campaign(tmp_path, imap)
    assert fetch(root, imap).exit_code == 0
    assert len(inbox_messages(root)) == 2


def test_message_moved_to_cur_by_intake_is_not_fetched_again(tmp_path: Path,
                                                             imap: ImapServer) -> None:
    imap.append(order_mail(1))
    root = campaign(tmp_path, imap)
    assert fetch(root, imap).exit_code == 0
    [path] = (root / "inbox" / "new").iterdir()
    path.rename(root / "inbox" / "cur" / f"{path.name}:2,S")
    (root / "inbox" / STATE_FILE).unlink()  # even without the record, the name is recognised
    again = fetch(root, imap)
    assert again.exit_code == 0 and again.stdout == ""
    assert len(inbox_messages(root)) == 1


def test_crash_after_store_before_record_and_flag(tmp_path: Path, imap: ImapServer) -> None:
    """As a crash leaves it: the message is in new/, the record and the server do not know."""
    imap.append(*(order_mail(i) for i in range(1, 4)))
    root = campaign(tmp_path, imap)
    assert fetch(root, imap).exit_code == 0
    state_path = root / "inbox" / STATE_FILE
    record = json.loads(state_path.read_text())
    for account in record["accounts"].values():
        account["uids"] = [1]
    state_path.write_text(json.dumps(record))
    imap.unflag_all()
    result = fetch(root, imap)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "2 message(s) stored by an interrupted run" in result.stderr
    assert inbox_messages(root) == sorted(order_mail(i) for i in range(1, 4))
    assert all("\\Seen" in flags for flags in imap.flags().values())
    record = json.loads(state_path.read_text())
    assert next(iter(record["accounts"].values()))["uids"] == [1, 2, 3]


def test_crash_after_record_before_flag(tmp_path: Path, imap: ImapServer) -> None:
    imap.append(order_mail(1), order_mail(2))
    root = campaign(tmp_path, imap)
    assert fetch(root, imap).exit_code == 0
    imap.unflag_all()
    result = fetch(root, imap)
    assert result.exit_code == 0 and result.stdout == ""
    assert len(inbox_messages(root)) == 2
    assert all("\\Seen" in flags for flags in imap.flags().values())


def test_expunged_uids_are_forgotten_and_nothing_is_fetched_twice(tmp_path: Path,
                                                                  imap: ImapServer) -> None:
    imap.append(*(order_mail(i) for i in range(1, 4)))
    root = campaign(tmp_path, imap)
    assert fetch(root, imap).exit_code == 0
    client = imap.connect()
    client.select("INBOX")
    client.uid("STORE", "1", "+FLAGS", "(\\Deleted)")
    client.expunge()
    client.logout()
    imap.append(order_mail(4))
    result = fetch(root, imap)
    assert result.exit_code == 0 and result.stdout.count("fetched new/") == 1
    record = json.loads((root / "inbox" / STATE_FILE).read_text())
    assert next(iter(record["accounts"].values()))["uids"] == [2, 3, 4]
    assert inbox_messages(root) == sorted(order_mail(i) for i in range(1, 5))


def test_new_uidvalidity_recognises_stored_messages_by_content(tmp_path: Path,
                                                                  imap: ImapServer) -> None:
    imap.append(order_mail(1), order_mail(2))
    root = campaign(tmp_path, imap)
    assert fetch(root, imap).exit_code == 0
    state_path = root / "inbox" / STATE_FILE
    record = json.loads(state_path.read_text())
    for account in record["accounts"].values():
        account["uidvalidity"] += 1  # what the client sees when the mailbox was rebuilt
    state_path.write_text(json.dumps(record))
    imap.append(order_mail(3))
    result = fetch(root, imap)
    assert result.exit_code == 0, result.output
    assert "UIDVALIDITY changed" in result.stderr
    assert result.stdout.count("fetched new/") == 1
    assert inbox_messages(root) == sorted(order_mail(i) for i in range(1, 4))
    assert not next(iter(json.loads(state_path.read_text())["accounts"].values())).get("recheck_below")


def _same_id(sender: str, body: str) -> bytes:
    return (f"From: {sender}\r\nTo: maria-1741@example.org\r\nSubject: o\r\n"
            f"Message-ID: <orders@fritz.example>\r\n\r\n{body}\r\n").encode()


def test_a_reused_message_id_never_drops_a_mail(tmp_path: Path, imap: ImapServer) -> None:
    """Security M5: a stranger who sends first with the Message-ID a player will use (or a
    client that reuses one) does not make the player's orders vanish."""
    stranger = _same_id("stranger@attacker.example", "pbem: 1")
    player = _same_id("frederick@example.org", "pbem: 1\r\ncampaign: maria-1741\r\nseq: 2")
    imap.append(stranger, player)
    root = campaign(tmp_path, imap)
    result = fetch(root, imap)
    assert result.exit_code == 0, result.output
    assert "already in the inbox" not in result.stderr and result.stdout.count("fetched new/") == 2
    assert inbox_messages(root) == sorted([stranger, player])
    record = json.loads((root / "inbox" / STATE_FILE).read_text())
    assert "message_ids" not in record, "the record holds only what is on the server"


def test_after_a_real_uidvalidity_change_only_the_same_content_is_skipped(tmp_path: Path,
                                                                        imap: ImapServer) -> None:
    """The mailbox is deleted and made again on dovecot (a new UIDVALIDITY) with the same
    messages: those are not stored twice; a new message under an old Message-ID is stored, and
    so is a message that arrives after the change."""
    client = imap.connect()
    assert client.create("Orders")[0] == "OK"
    client.logout()
    first = [order_mail(1), order_mail(2)]
    imap.append(*first, mailbox="Orders")
    root = campaign(tmp_path, imap)
    assert fetch(root, imap, "--mailbox", "Orders").exit_code == 0
    state_path = root / "inbox" / STATE_FILE
    before = next(iter(json.loads(state_path.read_text())["accounts"].values()))["uidvalidity"]
    client = imap.connect()
    assert client.delete("Orders")[0] == "OK" and client.create("Orders")[0] == "OK"
    client.logout()
    reused = order_mail(2).replace(b"seq: 2", b"seq: 3")  # same Message-ID, other content
    imap.append(*first, reused, order_mail(4), mailbox="Orders")
    result = fetch(root, imap, "--mailbox", "Orders")
    assert result.exit_code == 0, result.output
    account = next(iter(json.loads(state_path.read_text())["accounts"].values()))
    assert account["uidvalidity"] != before
    assert "UIDVALIDITY changed" in result.stderr
    assert result.stdout.count("fetched new/") == 2, result.output
    assert inbox_messages(root) == sorted([*first, reused, order_mail(4)])
    assert not account.get("recheck_below"), "the content check ends with the run that did it"
    # later runs, and later messages under a known Message-ID, are as usual
    imap.append(order_mail(1), mailbox="Orders")
    again = fetch(root, imap, "--mailbox", "Orders")
    assert again.exit_code == 0 and again.stdout.count("fetched new/") == 1
    assert len(inbox_messages(root)) == 5


def test_password_in_a_readable_settings_file_is_refused(tmp_path: Path,
                                                         imap: ImapServer) -> None:
    imap.append(order_mail(1))
    root = campaign(tmp_path, imap, mode=0o644, extra=f"  password: {imap.password}\n")
    result = CliRunner().invoke(main, ["fetch", str(root)])
    assert result.exit_code == 1 and "chmod 600" in result.stderr
    assert not (root / "inbox").exists()
    (root / "mail.yaml").chmod(0o600)
    result = CliRunner().invoke(main, ["fetch", str(root)])
    assert result.exit_code == 0, result.output
    assert len(inbox_messages(root)) == 1


def test_wrong_password_is_one_line(tmp_path: Path, imap: ImapServer) -> None:
    root = campaign(tmp_path, imap)
    result = CliRunner().invoke(main, ["fetch", str(root)], env={"PBEM_IMAP_PASSWORD": "no"})
    assert result.exit_code == 1
    assert "AUTHENTICATIONFAILED" in result.stderr and "Traceback" not in result.output


def test_second_fetch_is_told_who_holds_the_inbox(tmp_path: Path, imap: ImapServer) -> None:
    root = campaign(tmp_path, imap)
    (root / "inbox").mkdir()
    with fetch_lock(root / "inbox"):
        result = fetch(root, imap)
    assert result.exit_code == 1
    assert f"another pbem fetch (pid {os.getpid()})" in result.stderr


@needs_dovecot
@pytest.mark.parametrize("mode", ["ssl", "starttls"])
def test_tls_with_a_self_signed_certificate(tmp_path: Path, mode: str) -> None:
    with ImapServer(**{mode: True}) as srv:
        srv.append(order_mail(1))
        root = campaign(tmp_path, srv)
        untrusted = fetch(root, srv)
        assert untrusted.exit_code == 1 and "does not verify" in untrusted.stderr
        assert srv.cert is not None
        trusted = fetch(root, srv, "--cafile", str(srv.cert))
        assert trusted.exit_code == 0, trusted.output
        assert inbox_messages(root) == [order_mail(1)]


# -- a real SIGKILL while the server's answer is held back ----------------------------------------


class HoldingProxy:
    """TCP proxy to the IMAP server that stops forwarding the client's commands once one
    contains ``pattern`` — the client then waits for an answer that never comes."""

    def __init__(self, target: int, pattern: bytes) -> None:
        self.target, self.pattern = target, pattern
        self.port = free_port()
        self.held = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", self.port))
        self.sockets: list[socket.socket] = [self.listener]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self.sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False),
                             daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, from_client: bool) -> None:
        try:
            while data := src.recv(65536):
                if from_client and self.pattern in data:
                    self.held.set()
                    return
                dst.sendall(data)
        except OSError:
            return

    def close(self) -> None:
        for sock in self.sockets:
            sock.close()


@pytest.mark.parametrize("pattern", [b"UID STORE 1 ", b"UID STORE 3 ", b"UID FETCH 2 "])
def test_sigkill_while_the_server_answer_is_pending(tmp_path: Path, imap: ImapServer,
                                                    pattern: bytes) -> None:
    imap.append(*(order_mail(i) for i in range(1, 5)))
    root = campaign(tmp_path, imap)
    proxy = HoldingProxy(imap.port, pattern)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "xdg"), PBEM_IMAP_PASSWORD=imap.password)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pbem", "fetch", str(root), "--imap", f"127.0.0.1:{proxy.port}"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    try:
        assert proxy.held.wait(30), proc.communicate(timeout=5)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        proxy.close()
    assert proc.returncode == -signal.SIGKILL
    before = len(inbox_messages(root))
    assert before == {b"UID STORE 1 ": 1, b"UID STORE 3 ": 3, b"UID FETCH 2 ": 1}[pattern]
    result = fetch(root, imap)
    assert result.exit_code == 0, result.output
    assert result.stdout.count("fetched new/") == 4 - before
    assert inbox_messages(root) == sorted(order_mail(i) for i in range(1, 5))
    assert all("\\Seen" in flags for flags in imap.flags().values())


@needs_dovecot
def test_pbem_run_fetches_then_takes_in_the_orders(tmp_path: Path, imap: ImapServer, keys: dict[str, Path],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``pbem run`` fetches a campaign's mailbox when its mail.yaml names an IMAP server, and the
    orders fetched are taken in by the same run; a dead server is reported and the run goes on."""
    from email.message import EmailMessage

    from conftest import NOW, run_cli
    from orders_util import signed

    root = tmp_path / "games"
    camp = root / "mini-1"
    run_cli("new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short", "--id", "mini-1",
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}",
            "--deadline", "stage=48h", "--now", NOW)
    hand = json.loads((camp / "states" / "000000.json").read_bytes())["hands"]["N"]
    doc = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": hand[0]}})
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "north@example.org", "gm@example.org", "orders"
    msg["Message-ID"] = "<north-1@players.example.org>"
    msg.set_content("orders attached")
    msg.add_attachment(doc.read_bytes(), maintype="text", subtype="yaml", filename="orders.yaml")
    imap.append(msg.as_bytes())
    (camp / "mail.yaml").write_text(f"imap:\n  host: 127.0.0.1\n  port: {imap.port}\n"
                                    f"  security: {security(imap)}\n  user: {imap.user}\n")
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", imap.password)
    out = run_cli("run", str(root), "--now", NOW, "-q").output
    assert f"{camp}: 1 fetched, 0 phase(s) resolved, 1 accepted, 0 refused" in out, out
    assert "waiting for S" in out
    again = run_cli("run", str(root), "--now", NOW, "-q").output
    assert f"{camp}: 0 fetched, 0 phase(s) resolved, 0 accepted" in again, again
    (camp / "mail.yaml").write_text(f"imap:\n  host: 127.0.0.1\n  port: {free_port()}\n  security: none\n"
                                    f"  user: {imap.user}\n")
    dead = run_cli("run", str(root), "--now", NOW, "-q").output
    assert f"{camp}: fetch failed: " in dead and "0 phase(s) resolved, 0 accepted" in dead, dead


@needs_dovecot
def test_a_mail_over_the_size_limit_is_not_fetched_and_its_sender_hears_why(tmp_path: Path,
                                                                          imap: ImapServer) -> None:
    """Only the header of a mail over intake's limit is fetched (memory and disk stay bounded);
    intake refuses it with the size, addressed to its sender, and the next mail comes in whole."""
    from pbem.core.mailin import MAX_MAIL_BYTES, read_sources

    padding = b"QUJD" * ((MAX_MAIL_BYTES + 4096) // 4)
    huge = (b"From: Player 1 <player1@example.org>\r\nTo: maria-1741@example.org\r\n"
            b"Subject: my orders and a big picture\r\nMessage-ID: <huge-1@players.example.org>\r\n"
            b"Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            + b"\r\n".join(padding[i:i + 76] for i in range(0, len(padding), 76)) + b"\r\n")
    imap.append(huge, order_mail(2))
    root = campaign(tmp_path, imap)
    result = fetch(root, imap)
    assert result.exit_code == 0, result.output
    assert "over the limit" in result.stderr and "only its header is stored" in result.stderr
    stored = sorted((root / "inbox" / "new").iterdir())
    assert len(stored) == 2 and max(p.stat().st_size for p in stored) < 4096
    candidates = [c for s in read_sources([root / "inbox"]) for c in s.candidates]
    big = next(c for c in candidates if c.sender == "player1@example.org")
    assert big.problem is not None and big.problem.startswith(f"the mail is {len(huge):,} bytes")
    assert f"pbem reads mails up to {MAX_MAIL_BYTES:,} bytes" in big.problem
    assert sorted(imap.flags()) == [1, 2] and all("\\Seen" in f for f in imap.flags().values())
    assert fetch(root, imap).stdout == ""  # recorded: never fetched again


def test_mailbox_names_are_sent_in_modified_utf7() -> None:
    from pbem.core.fetch import mailbox_utf7

    # RFC 3501 5.1.3's own example, and '&' escaped
    assert mailbox_utf7("~peter/mail/台北/日本語") == "~peter/mail/&U,BTFw-/&ZeVnLIqe-"
    assert mailbox_utf7("Orders & Co") == "Orders &- Co" and mailbox_utf7("INBOX") == "INBOX"


@needs_dovecot
def test_fetch_from_a_mailbox_with_a_chinese_name(tmp_path: Path, imap: ImapServer) -> None:
    client = imap.connect()
    try:
        assert client.create('"&VH1O5A-"')[0] == "OK"  # 命令
        assert client.append('"&VH1O5A-"', "", None, order_mail(1))[0] == "OK"
    finally:
        client.logout()
    root = tmp_path / "maria-1741"
    root.mkdir()
    (root / "mail.yaml").write_text(
        f"imap:\n  host: 127.0.0.1\n  port: {imap.port}\n  security: {security(imap)}\n"
        f"  user: {imap.user}\n  mailbox: 命令\n", encoding="utf-8")
    result = fetch(root, imap)
    assert result.exit_code == 0, result.output
    assert inbox_messages(root) == [order_mail(1)]
