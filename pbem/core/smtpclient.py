"""Opening an SMTP connection: secure, verified, logged in, or a clear reason why not.

:func:`smtp_connect` raises :class:`Dropped` when trying again may help (the server is
unreachable, the connection broke) and :class:`MailError` when it cannot (a refused login, a
certificate that does not verify, a password that would go out unencrypted).
"""

from __future__ import annotations

import smtplib
import ssl

from pbem.core.mailconfig import MailError, ServerSettings, is_loopback


class Dropped(Exception):
    """The connection broke; reconnecting may help."""


def _tls_context(settings: ServerSettings) -> ssl.SSLContext:
    # Verification is never switched off; a private CA or self-signed server is trusted by
    # naming its certificate with --cafile / cafile:.
    return ssl.create_default_context(cafile=settings.cafile)


def smtp_connect(settings: ServerSettings) -> smtplib.SMTP:
    """Open, secure and log in; raise Dropped (try again) or MailError (give up)."""
    if not settings.host or not settings.port:
        raise MailError("no SMTP server: give --smtp HOST:PORT or smtp.host/port in mail.yaml")
    security = settings.effective_security(465)
    if settings.password and not settings.user:
        raise MailError("an SMTP password is set but no user (PBEM_SMTP_USER or smtp.user)")
    if settings.user and not settings.password:
        raise MailError(
            f"no SMTP password for {settings.user}: set PBEM_SMTP_PASSWORD or smtp.password "
            "in a mail.yaml only you can read"
        )
    if settings.user and security == "none" and not is_loopback(settings.host):
        raise MailError(
            f"refusing to send the SMTP password to {settings.host} unencrypted; "
            "use --security starttls or ssl"
        )
    try:
        return _open(settings, security)
    except ssl.SSLCertVerificationError as exc:
        raise MailError(
            f"the certificate of {settings.host} does not verify ({exc.verify_message}); "
            "if the server uses a private CA, name it with --cafile"
        ) from None
    except smtplib.SMTPNotSupportedError as exc:
        raise MailError(f"{settings.host}: {exc}") from None
    except smtplib.SMTPAuthenticationError as exc:
        raise MailError(f"{settings.host} refused the login of {settings.user}: "
                        f"{reply(exc.smtp_code, exc.smtp_error)}") from None
    except (smtplib.SMTPServerDisconnected, smtplib.SMTPConnectError, OSError) as exc:
        raise Dropped(f"cannot connect to {settings.host}:{settings.port}: {exc}") from None


def _open(settings: ServerSettings, security: str) -> smtplib.SMTP:
    assert settings.host and settings.port
    if security == "ssl":
        conn: smtplib.SMTP = smtplib.SMTP_SSL(settings.host, settings.port,
                                              timeout=settings.timeout,
                                              context=_tls_context(settings))
    else:
        conn = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
    try:
        if security == "starttls":
            conn.ehlo()
            if not conn.has_extn("starttls"):
                raise MailError(f"{settings.host} does not offer STARTTLS; refusing to go on")
            conn.starttls(context=_tls_context(settings))
        conn.ehlo_or_helo_if_needed()
        if settings.user:
            conn.login(settings.user, settings.password or "")
        return conn
    except BaseException:
        conn.close()
        raise


def reply(code: int, text: bytes | str) -> str:
    """A server reply on one line: ``550 no such user``."""
    text = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    return f"{code} {' '.join(text.split())}"
