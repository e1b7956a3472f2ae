"""A real IMAP server for tests: Debian's dovecot on 127.0.0.1 with a throwaway configuration.

Everything lives in one temporary folder (configuration, passwd file, sockets, logs, the
mailbox); nothing system-wide is read or changed (``-c`` names our configuration). dovecot is
started as root in the foreground and stopped with SIGTERM. Mail is stored as the unprivileged
user ``nobody``, since dovecot refuses to run a mail process as root.

``ssl=True`` serves implicit TLS (IMAPS) with a self-signed certificate instead of plain text;
``starttls=True`` serves plain IMAP that requires STARTTLS before login.
"""

from __future__ import annotations

import copy
import imaplib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from smtpserver import free_port, make_certificate

DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"

CONFIG = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = {ssl}
{ssl_files}
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:{root}/mail/%u
mail_uid = {uid}
mail_gid = {gid}
first_valid_uid = {uid}
default_internal_user = dovecot
default_login_user = dovenull
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap_port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps_port}
  }}
}}
service anvil {{
  chroot =
}}
service imap-login {{
  chroot =
}}
"""


class PortTaken(RuntimeError):
    """Another process took the free port between our check and dovecot's bind."""


def dovecot_available() -> bool:
    """True if dovecot is installed and we may start it (it needs root)."""
    return os.path.exists(DOVECOT) and os.geteuid() == 0


class ImapServer:
    """Context manager: ``with ImapServer() as srv: srv.append(raw); srv.port``."""

    def __init__(self, *, user: str = "maria-1741", password: str = "pa55word",
                 ssl: bool = False, starttls: bool = False, spare_users: int = 0) -> None:
        self.user, self.password, self.ssl, self.starttls = user, password, ssl, starttls
        self.spare = [f"spare{i}" for i in range(spare_users)]
        self.root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
        self.port = free_port()
        self.cert: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ImapServer:
        for attempt in range(5):
            try:
                return self._start()
            except PortTaken:
                shutil.rmtree(self.root, ignore_errors=True)
                if attempt == 4:
                    raise
                self.root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
                self.port = free_port()
            except BaseException:
                shutil.rmtree(self.root, ignore_errors=True)
                raise
        return self

    def _start(self) -> ImapServer:
        # dovecot's unprivileged processes must reach their folders: no 0700 parents here
        self.root.chmod(0o755)
        for sub in ("run", "state", "mail"):
            (self.root / sub).mkdir()
        nobody = pwd.getpwnam("nobody")
        os.chown(self.root / "mail", nobody.pw_uid, nobody.pw_gid)
        (self.root / "passwd").write_text("".join(
            f"{user}:{{PLAIN}}{self.password}\n" for user in [self.user, *self.spare]))
        (self.root / "passwd").chmod(0o644)
        ssl_files = ""
        plain_port, ssl_port = self.port, 0
        if self.ssl or self.starttls:
            self.cert, key = make_certificate(self.root)
            ssl_files = f"ssl_cert = <{self.cert}\nssl_key = <{key}\n"
        if self.ssl:
            plain_port, ssl_port = 0, self.port
        config = CONFIG.format(
            root=self.root, uid=nobody.pw_uid, gid=nobody.pw_gid,
            ssl="required" if self.starttls else "yes" if self.ssl else "no",
            ssl_files=ssl_files, imap_port=plain_port, imaps_port=ssl_port,
        )
        (self.root / "dovecot.conf").write_text(config)
        self.process = subprocess.Popen(
            [DOVECOT, "-F", "-c", str(self.root / "dovecot.conf")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                if "Address already in use" in err + self.log():
                    raise PortTaken(err)
                raise RuntimeError(f"dovecot did not start: {err}\n{self.log()}")
            if "Address already in use" in self.log():
                self._stop()
                raise PortTaken(self.log())
            if self._greets():
                return self
            time.sleep(0.05)
        self._stop()
        raise RuntimeError(f"dovecot did not listen on {self.port}\n{self.log()}")

    def _greets(self) -> bool:
        """True once dovecot (not some other listener) greets on our port."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
                if self.ssl:
                    import ssl as _ssl

                    context = _ssl.create_default_context(cafile=str(self.cert))
                    with context.wrap_socket(sock, server_hostname="127.0.0.1") as tls:
                        return tls.recv(64).startswith(b"* OK")
                return sock.recv(64).startswith(b"* OK")
        except OSError:
            return False

    def __exit__(self, *exc: object) -> None:
        if self.process is None:
            return
        self._stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def _stop(self) -> None:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stderr:
            self.process.stderr.close()

    def mailbox_of_new_user(self) -> ImapServer:
        """The same server seen as another user with an empty mailbox, without a restart
        (from the ``spare_users`` written into the passwd file at start)."""
        if not self.spare:
            raise RuntimeError("no spare IMAP user left; start the server with more")
        other = copy.copy(self)
        other.user = self.spare.pop(0)
        other.process = None  # leaving it does not stop the server
        return other

    def log(self) -> str:
        path = self.root / "dovecot.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def connect(self) -> imaplib.IMAP4:
        """A logged-in client of our own, to put mail in and look at flags."""
        if self.ssl:
            import ssl as _ssl

            context = _ssl.create_default_context(cafile=str(self.cert))
            client: imaplib.IMAP4 = imaplib.IMAP4_SSL("127.0.0.1", self.port,
                                                      ssl_context=context)
        else:
            client = imaplib.IMAP4("127.0.0.1", self.port)
            if self.starttls:
                import ssl as _ssl

                client.starttls(_ssl.create_default_context(cafile=str(self.cert)))
        client.login(self.user, self.password)
        return client

    def append(self, *messages: bytes, mailbox: str = "INBOX") -> None:
        """Deliver messages into the mailbox as an MTA would (unseen)."""
        client = self.connect()
        try:
            for raw in messages:
                typ, data = client.append(mailbox, "", None, raw)
                assert typ == "OK", data
        finally:
            client.logout()

    def flags(self, mailbox: str = "INBOX") -> dict[int, str]:
        """UID -> flags of every message."""
        client = self.connect()
        try:
            client.select(mailbox, readonly=True)
            typ, data = client.uid("FETCH", "1:*", "(FLAGS)")
            out: dict[int, str] = {}
            for line in data:
                if not isinstance(line, bytes):
                    continue
                text = line.decode()
                uid = int(text.split("UID ")[1].split()[0].rstrip(")"))
                out[uid] = text.split("FLAGS (")[1].split(")")[0]
            return out
        finally:
            client.logout()

    def unflag_all(self, mailbox: str = "INBOX") -> None:
        """Clear \\Seen everywhere, as if nobody had flagged anything."""
        client = self.connect()
        try:
            client.select(mailbox)
            client.uid("STORE", "1:*", "-FLAGS.SILENT", "(\\Seen)")
        finally:
            client.logout()
