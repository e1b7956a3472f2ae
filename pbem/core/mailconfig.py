"""Mail settings of a campaign: where to send (SMTP) and where to fetch (IMAP) its mail.

Settings come from two YAML files, the campaign's ``DIR/mail.yaml`` over the GM's
``~/.config/pbem/mail.yaml`` (key by key, so the user file can hold the password and the
campaign file the host), then from the environment, then from the command line. Credentials
never come from the command line: anyone on the machine can read another process's argv.

A file that holds a password must be readable by its owner only (mode 0600); otherwise it is
refused, as ssh refuses a private key with loose permissions. The file is checked through the
descriptor it is read from, so it cannot be swapped between the check and the read.

Example ``mail.yaml``::

    smtp:
      host: smtp.example.org
      port: 587
      security: starttls        # starttls | ssl | none
      user: gm@example.org
      password: app-password    # or env PBEM_SMTP_PASSWORD
      from: gm@example.org      # envelope sender; default: the From header of each message
      cafile: /etc/pbem/ca.pem  # trust this CA (self-signed server); verification stays on
    imap:
      host: imap.example.org
      port: 993
      security: ssl
      user: maria-1741@example.org
      password: ...             # or env PBEM_IMAP_PASSWORD
      mailbox: INBOX
"""

from __future__ import annotations

import ipaddress
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pbem.common.safeyaml import load_yaml
from pbem.errors import DataError, PbemError

CAMPAIGN_FILE = "mail.yaml"
SECURITIES = ("starttls", "ssl", "none")
_SMTP_KEYS = {"host", "port", "security", "user", "password", "from", "cafile", "timeout"}
_IMAP_KEYS = {"host", "port", "security", "user", "password", "mailbox", "cafile", "timeout"}


class MailError(PbemError):
    """A mail server that cannot be reached, refuses us, or a mail setting that cannot work."""


@dataclass(frozen=True)
class ServerSettings:
    """How to reach one mail server. ``password`` is never printed (see ``__repr__``)."""

    host: str | None = None
    port: int | None = None
    security: str | None = None
    user: str | None = None
    password: str | None = None
    cafile: str | None = None
    timeout: float = 60.0
    sender: str | None = None  # SMTP only: the envelope sender
    mailbox: str = "INBOX"  # IMAP only

    def __repr__(self) -> str:
        hidden = "***" if self.password else None
        return (
            f"ServerSettings(host={self.host!r}, port={self.port!r}, "
            f"security={self.security!r}, user={self.user!r}, password={hidden!r}, "
            f"cafile={self.cafile!r}, sender={self.sender!r}, mailbox={self.mailbox!r})"
        )

    def effective_security(self, ssl_port: int) -> str:
        """The security asked for, or ``ssl`` on the implicit-TLS port, else ``starttls``."""
        if self.security:
            return self.security
        return "ssl" if self.port == ssl_port else "starttls"


@dataclass(frozen=True)
class MailConfig:
    """The SMTP and IMAP settings of one campaign and the files they were read from."""

    smtp: ServerSettings
    imap: ServerSettings
    sources: tuple[str, ...] = ()


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/pbem/mail.yaml``, by default ``~/.config/pbem/mail.yaml``."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "pbem" / CAMPAIGN_FILE


def read_config_file(path: Path) -> dict[str, Any]:
    """Read one mail settings file; refuse it if it holds a password and others may read it."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise MailError(f"cannot read the mail settings: {exc.strerror}", source=str(path)) from None
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        raw = handle.read(256 * 1024)
    data = load_yaml(raw, str(path)) or {}
    if not isinstance(data, dict):
        raise DataError("mail settings must be a mapping with smtp: and/or imap:", source=str(path))
    problems: list[str] = []
    for key, value in data.items():
        known = {"smtp": _SMTP_KEYS, "imap": _IMAP_KEYS}.get(key)
        if known is None:
            problems.append(f"{key}: unknown section (expected smtp or imap)")
            continue
        if not isinstance(value, dict):
            problems.append(f"{key}: must be a mapping")
            continue
        for sub in sorted(set(value) - known):
            problems.append(f"{key}.{sub}: unknown setting (known: {', '.join(sorted(known))})")
        problems += _settings(value, str(path), key)[1]
    if problems:
        raise DataError("mail settings are not valid", problems, source=str(path))
    has_secret = any(isinstance(s, dict) and s.get("password") for s in data.values())
    if has_secret and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise MailError(
            f"holds a password but its mode is {stat.S_IMODE(mode):04o}; other users could read "
            f"or change it. Run: chmod 600 {path}",
            source=str(path),
        )
    return data


def _settings(section: Mapping[str, Any], source: str, name: str) -> tuple[dict[str, Any], list[str]]:
    """Check the types of one section; return keyword arguments for ServerSettings."""
    out: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in section.items():
        where = f"{name}.{key}"
        if value is None:
            continue
        if key == "port":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 65536:
                problems.append(f"{where}: must be a port number, not {value!r}")
            else:
                out["port"] = value
        elif key == "timeout":
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                problems.append(f"{where}: must be a positive number of seconds")
            else:
                out["timeout"] = float(value)
        elif key == "security":
            if value not in SECURITIES:
                problems.append(f"{where}: must be one of {', '.join(SECURITIES)}, not {value!r}")
            else:
                out["security"] = value
        elif not isinstance(value, str) or not value:
            problems.append(f"{where}: must be a non-empty string")
        elif key == "from":
            out["sender"] = value
        elif key == "cafile":
            # a relative CA file is relative to the settings file that names it
            out["cafile"] = str((Path(source).parent / value).resolve())
        else:
            out[key] = value
    return out, problems


def load_mail_config(
    campaign_dir: Path | str,
    env: Mapping[str, str] | None = None,
    *,
    user_file: Path | None = None,
) -> MailConfig:
    """Merge the user file, the campaign file and the environment into one MailConfig.

    Environment: ``PBEM_SMTP_USER``, ``PBEM_SMTP_PASSWORD``, ``PBEM_IMAP_USER``,
    ``PBEM_IMAP_PASSWORD`` override the files.
    """
    env = os.environ if env is None else env
    files = [user_file or user_config_path(env), Path(campaign_dir) / CAMPAIGN_FILE]
    merged: dict[str, dict[str, Any]] = {"smtp": {}, "imap": {}}
    sources: list[str] = []
    for path in files:
        data = read_config_file(path)  # raises on every problem in the file at once
        if data:
            sources.append(str(path))
        for name in ("smtp", "imap"):
            merged[name].update(_settings(data.get(name) or {}, str(path), name)[0])
    for name in ("smtp", "imap"):
        prefix = f"PBEM_{name.upper()}_"
        for key in ("user", "password"):
            if env.get(prefix + key.upper()):
                merged[name][key] = env[prefix + key.upper()]
    return MailConfig(
        smtp=ServerSettings(**merged["smtp"]),
        imap=ServerSettings(**merged["imap"]),
        sources=tuple(sources),
    )


def with_overrides(settings: ServerSettings, **changes: Any) -> ServerSettings:
    """``settings`` with every change that is not None applied (command-line options)."""
    return replace(settings, **{k: v for k, v in changes.items() if v is not None})


def parse_host_port(text: str) -> tuple[str, int]:
    """Split ``HOST:PORT`` (``[v6]:PORT`` for IPv6 addresses)."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise MailError(f"expected HOST:PORT, got {text!r}")
    return host.strip("[]"), int(port)


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses, where a password cannot be overheard."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
