"""A real SMTP server for tests: aiosmtpd on 127.0.0.1, in a thread, recording what it accepts.

Variants by keyword: ``refuse`` (recipients answered 550), ``defer`` (450), ``drop_after`` (abort the connection
at the MAIL command after that many accepted messages, ``drops`` times), ``outage`` (abort every
transaction until switched off), ``users`` (AUTH required), ``tls`` (STARTTLS required, with a
self-signed certificate from :func:`make_certificate`; ``implicit_tls`` for TLS from the start). Hooks ``on_mail``/``on_rcpt``/``on_data``
run in the server thread with the number of messages accepted so far and may return ``"abort"``
to drop the connection at that point (after, for example, killing the client); ``on_accept``
runs after a message is recorded, before the 250 goes out.
"""

from __future__ import annotations

import asyncio
import datetime
import email
import socket
import ssl
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

Hook = Callable[[int], Any]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def make_certificate(folder: Path, name: str = "localhost") -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1/localhost: (certificate PEM, key PEM)."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / f"{name}.crt", folder / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key_file.chmod(0o600)
    return cert_file, key_file


@dataclass(frozen=True)
class Accepted:
    """One message the server said 250 to."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    content: bytes
    user: str | None

    @property
    def message_id(self) -> str:
        return str(email.message_from_bytes(self.content).get("Message-ID", "")).strip()


class _Handler:
    def __init__(self, owner: SmtpServer) -> None:
        self.owner = owner

    def _abort(self, server: Any) -> str:
        server.transport.abort()
        return "421 4.3.0 connection dropped by the test server"

    async def handle_MAIL(self, server, session, envelope, address, options):  # noqa: ANN001
        o = self.owner
        with o.lock:
            n = len(o.accepted)
            drop = o.outage or (o.drop_after is not None and n >= o.drop_after and o.drops > 0)
            if drop and not o.outage:
                o.drops -= 1
        if o.on_mail and o.on_mail(n) == "abort":
            return self._abort(server)
        if drop:
            o.dropped += 1
            return self._abort(server)
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, options):  # noqa: ANN001
        o = self.owner
        if o.on_rcpt and o.on_rcpt(len(o.accepted)) == "abort":
            return self._abort(server)
        if address in o.refuse:
            o.refused.append(address)
            return "550 5.1.1 no such user here"
        if address in o.defer:
            return "450 4.2.1 mailbox busy, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: ANN001
        o = self.owner
        if o.on_data and o.on_data(len(o.accepted)) == "abort":
            return self._abort(server)
        user = None
        if session.auth_data is not None:
            user = session.auth_data.login.decode()
        with o.lock:
            o.accepted.append(
                Accepted(envelope.mail_from, tuple(envelope.rcpt_tos), envelope.content, user)
            )
        if o.on_accept:
            o.on_accept(len(o.accepted))
        if o.delay:
            await asyncio.sleep(o.delay)
        return "250 2.0.0 accepted"


class SmtpServer:
    """Context manager: ``with SmtpServer(refuse={"x@y"}) as srv: ... srv.port``."""

    def __init__(
        self,
        *,
        refuse: set[str] | frozenset[str] = frozenset(),
        defer: set[str] | frozenset[str] = frozenset(),
        drop_after: int | None = None,
        drops: int = 1,
        users: dict[str, str] | None = None,
        tls: tuple[Path, Path] | None = None,
        implicit_tls: bool = False,
        on_mail: Hook | None = None,
        on_rcpt: Hook | None = None,
        on_data: Hook | None = None,
        on_accept: Hook | None = None,
        delay: float = 0.0,
    ) -> None:
        self.refuse, self.defer = set(refuse), set(defer)
        self.drop_after, self.drops = drop_after, drops
        self.outage = False
        self.users = users
        self.on_mail, self.on_rcpt, self.on_data = on_mail, on_rcpt, on_data
        self.on_accept = on_accept
        self.delay = delay
        self.accepted: list[Accepted] = []
        self.refused: list[str] = []
        self.dropped = 0
        self.lock = threading.Lock()
        self.port = free_port()
        kwargs: dict[str, Any] = {}
        if users is not None:
            kwargs.update(authenticator=self._authenticate, auth_required=True,
                          auth_require_tls=tls is not None)
        if tls is not None:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(str(tls[0]), str(tls[1]))
            if implicit_tls:  # TLS from the first byte, as on port 465
                kwargs.update(ssl_context=context)
            else:
                kwargs.update(tls_context=context, require_starttls=True)
        self._kwargs = kwargs
        self.controller = Controller(_Handler(self), hostname="127.0.0.1", port=self.port,
                                     **kwargs)

    def _authenticate(self, server, session, envelope, mechanism, auth_data):  # noqa: ANN001
        ok = (
            isinstance(auth_data, LoginPassword)
            and self.users is not None
            and self.users.get(auth_data.login.decode()) == auth_data.password.decode()
        )
        return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)

    def __enter__(self) -> SmtpServer:
        for attempt in range(5):
            try:
                self.controller.start()
                return self
            except OSError:  # someone took the free port first: take another one
                if attempt == 4:
                    raise
                self.port = free_port()
                self.controller = Controller(_Handler(self), hostname="127.0.0.1",
                                             port=self.port, **self._kwargs)
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def count_by_message_id(self) -> Counter[str]:
        """How often each Message-ID was accepted (once per transaction)."""
        with self.lock:
            return Counter(m.message_id for m in self.accepted)

    def deliveries(self) -> Counter[tuple[str, str]]:
        """How often each (Message-ID, recipient) pair was accepted."""
        with self.lock:
            return Counter((m.message_id, r) for m in self.accepted for r in m.rcpt_tos)
