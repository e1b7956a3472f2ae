"""The exception tree of pbem.

Exceptions mean "this input cannot be processed"; the CLI turns each into one line on stderr
and exit status 1. An order that was processed but failed is not an exception: it becomes a
void result with a reason inside the game's events (see ``pbem.games.base.OrderProblem``).
"""

from __future__ import annotations

import os
import unicodedata

ECHO_LIMIT = 80


def _escape(char: str) -> str:
    if char in "\n\r\t" or unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
        code = ord(char)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
    return char


def one_line(text: str) -> str:
    """``text`` with control and format characters (Unicode Cc, Cf, such as U+202E, and line
    breaks) written as escapes, so it prints as one line that reads in its logical order."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(_escape(c) for c in text)


def echo(value: object, limit: int = ECHO_LIMIT) -> str:
    """A value that came from a player's file or mail, fit to quote back in a message: escaped
    as :func:`one_line` does and cut at ``limit`` characters (marked with an ellipsis)."""
    text = str(value)
    if text.isascii() and text.isprintable():  # nothing to escape: each character is one
        return text if len(text) <= limit else text[:limit] + "…"
    out: list[str] = []
    used = 0
    for char in text:
        piece = _escape(char)
        if used + len(piece) > limit:
            out.append("…")
            break
        out.append(piece)
        used += len(piece)
    return "".join(out)


class PbemError(Exception):
    """Root of every error pbem reports to a user.

    ``source`` names the file (or mail) the problem is in, ``line`` the 1-based line where known,
    and ``field`` a path into the document such as ``orders.moves[2].path``.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.line = line
        self.field = field
        # the message before its values were filled in, and the values (a gettext msgid and its
        # %-parameters), so a reply can say it in the reader's language
        self.said: tuple[str, dict[str, object]] | None = None

    def in_language(self, lang: str) -> str | None:
        """The message, field included, in ``lang`` for an error that can say it itself;
        ``None`` for the others (see ``pbem.core.replies.say``)."""
        return None

    def located(self, source: str | None = None) -> PbemError:
        """Return this error with ``source`` filled in if it had none."""
        if self.source is None and source is not None:
            self.source = source
        return self

    def __str__(self) -> str:
        where = ""
        if self.source:
            where = echo(self.source, 2 * ECHO_LIMIT)
            if self.line:
                where += f", line {self.line}"
            where += ": "
        elif self.line:
            where = f"line {self.line}: "
        field = f"{echo(self.field)}: " if self.field else ""
        return f"{where}{field}{self.message}"


class OrderFileError(PbemError):
    """An order file that cannot be read: not YAML, wrong shape, too big, hostile."""


class SignatureError(PbemError):
    """A signature that is missing, malformed or does not verify with the roster key."""


class OrderError(PbemError):
    """An order document that is well-formed and signed but not acceptable now
    (wrong campaign, phase, replayed seq, late)."""


class DataError(PbemError):
    """Broken game data: a map, deck, scenario or case file. May carry many problems."""

    def __init__(self, message: str, problems: list[str] | None = None, **kw: object) -> None:
        self.problems = list(problems or [])
        if self.problems:
            message = message + "\n" + "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(message, **kw)  # type: ignore[arg-type]


class CampaignError(PbemError):
    """A campaign folder that is missing, locked, or inconsistent."""


class AuditError(PbemError):
    """The archive does not check: names the first record or file that does not match."""


class KeyFileError(PbemError):
    """A key file that is missing, unreadable, world-readable or of the wrong kind."""


def describe_os_error(exc: OSError) -> str:
    """An operating-system error (disk full, read-only, permission) as one line: the file or
    files it concerns and what the system said (``/camp/archive/000007.json: No space left on
    device``)."""
    what = exc.strerror or str(exc) or type(exc).__name__
    names = [os.fsdecode(n) for n in (exc.filename, exc.filename2) if n is not None]
    return f"{' -> '.join(names)}: {what}" if names else what
