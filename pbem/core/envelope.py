"""Signed order files: the envelope around a game's orders.

An order file is YAML::

    pbem: 1
    campaign: maria-1741
    nonce: 5f0c...             # the campaign nonce from the order form (binds the file to this campaign)
    player: frederick          # the roster seat that sends and signs it
    phase: 1741-1/prussia
    opened: 42                 # only after a rollback: the record that reopened the phase (the form gives it)
    seq: 3                     # a higher seq replaces a lower one within the phase
    entropy_reveal: 7d0e4c...  # the value committed in this seat's previous file (absent at first)
    entropy_commit: 91ab2f...  # SHA-256 of a fresh value, revealed next time
    orders: {...}              # game-specific
    signature: {key: "ed25519:<hex>", value: "<base64>"}

The signature is Ed25519 over the canonical form (:mod:`pbem.common.canonical`) of every field
but ``signature``. Re-indenting, CRLF line endings or reordering keys keep it valid; any change
of meaning breaks it. Other signed requests (``resend``, ``pause``) use the same envelope with a
``request:`` field instead of ``orders:``.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from cryptography.exceptions import InvalidSignature

from pbem.common.canonical import canonical, sha256_hex
from pbem.common.safeyaml import DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, Document, decode_text, load_document
from pbem.core import yamlfast
from pbem.core.keys import PrivateKey, PublicKey
from pbem.errors import OrderFileError, SignatureError, echo

FORMAT_VERSION = 1
FIELD_ORDER = (
    "pbem",
    "campaign",
    "nonce",
    "player",
    "phase",
    "opened",
    "seq",
    "entropy_reveal",
    "entropy_commit",
    "orders",
    "request",
    "signature",
)
_FIELDS = frozenset(FIELD_ORDER)
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_HEXVALUE = re.compile(r"^[0-9a-f]{32,128}$")


@dataclass(frozen=True, init=False)
class OrderDocument:
    """A parsed (not yet verified) order file."""

    raw: bytes
    source: str
    document: Document | yamlfast.Read
    campaign: str
    player: str
    phase: str
    seq: int
    orders: Any
    request: Any
    entropy_reveal: str | None
    entropy_commit: str | None
    key_id: str | None
    signature: bytes | None
    data: dict[str, Any] = field(init=False, repr=False, compare=False)  # the document's data (a mapping)

    def __init__(self, raw: bytes, source: str, document: Document | yamlfast.Read, campaign: str, player: str, phase: str,
                 seq: int, orders: Any, request: Any, entropy_reveal: str | None, entropy_commit: str | None,
                 key_id: str | None, signature: bytes | None) -> None:
        # the fields set at once (a frozen dataclass's own __init__ sets each through
        # object.__setattr__, which cost as much as checking the envelope)
        self.__dict__.update(
            raw=raw, source=source, document=document, campaign=campaign, player=player, phase=phase, seq=seq,
            orders=orders, request=request, entropy_reveal=entropy_reveal, entropy_commit=entropy_commit,
            key_id=key_id, signature=signature, data=document.data)

    @property
    def signed(self) -> bytes:
        """The bytes the signature covers (:func:`signing_bytes`), computed once: intake both
        verifies them and hashes them (kept in the instance's dictionary: functools'
        cached_property takes a lock on every first use)."""
        found: bytes | None = self.__dict__.get("_signed")
        if found is None:
            found = self.__dict__["_signed"] = signing_bytes(self.data)
        return found

    @property
    def body_hash(self) -> str:
        """SHA-256 of the signed content: what receipts echo and records cite."""
        return sha256_hex(self.signed)

    @property
    def raw_hash(self) -> str:
        """SHA-256 of the file's bytes as received."""
        return sha256_hex(self.raw)

    def line_of(self, path: str) -> int | None:
        return self.document.line_of(path)


def signing_bytes(data: dict[str, Any]) -> bytes:
    """The bytes a signature covers: the canonical form of every field but ``signature``."""
    body = dict(data)
    body.pop("signature", None)
    return canonical(body)


def _problem(doc: Document | yamlfast.Read, source: str, path: str, message: str) -> OrderFileError:
    return OrderFileError(message, source=source, line=doc.line_of(path), field=path)


def _load(raw: bytes, source: str, max_bytes: int, max_depth: int) -> Document | yamlfast.Read:
    """The restricted loader's document of ``raw``: read directly when it is of the usual shape
    (:mod:`pbem.core.yamlfast`), else by the loader."""
    if len(raw) <= max_bytes:
        found = yamlfast.read(decode_text(raw, source), source, max_depth)  # (the loader's refusal of a file not text)
        if found is not None:
            return found
    return load_document(raw, source, max_bytes=max_bytes, max_depth=max_depth)


def parse_order_document(
    raw: bytes,
    source: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    require_signature: bool = True,
) -> OrderDocument:
    """Parse an order file and check its envelope fields; raise one-line errors."""
    doc = _load(raw, source, max_bytes, max_depth)
    data = doc.data
    if not isinstance(data, dict):
        raise OrderFileError("an order file must be a YAML mapping (key: value lines)", source=source, line=1)
    version = data.get("pbem")
    if type(version) is not int or version != FORMAT_VERSION:  # not True, not 1.0
        if "pbem" not in data:
            raise OrderFileError(
                "this is not a pbem order file: the first line should be 'pbem: 1'",
                source=source,
                line=1,
            )
        raise _problem(doc, source, "pbem", f"unsupported format version {echo(repr(data.get('pbem')))}; write 'pbem: 1'")
    unknown = sorted(set(data) - _FIELDS) if not _FIELDS.issuperset(data) else ()
    if unknown:
        raise _problem(doc, source, unknown[0], f"unknown field '{echo(unknown[0])}' (allowed: {', '.join(FIELD_ORDER)})")

    campaign, player, phase = data.get("campaign"), data.get("player"), data.get("phase")
    if type(campaign) is not str or type(player) is not str or type(phase) is not str:
        campaign, player, phase = _word(doc, source, "campaign"), _word(doc, source, "player"), _word(doc, source, "phase")
    seq = data.get("seq")
    if type(seq) is not int or seq < 1:
        raise _problem(doc, source, "seq", "'seq' must be a whole number 1 or more (raise it each time you resend)")
    if ("orders" in data) == ("request" in data):
        raise OrderFileError("an order file needs 'orders:' (or, for a request, 'request:'), not both", source=source, field="orders")
    orders = data.get("orders")
    if "orders" in data and not isinstance(orders, dict):
        raise _problem(doc, source, "orders", "'orders' must be a mapping keyed by power")
    reveal, commit = data.get("entropy_reveal"), data.get("entropy_commit")
    for name, value, hex_form in (("entropy_reveal", reveal, _HEXVALUE), ("entropy_commit", commit, _HEX64)):
        if value is not None and not (isinstance(value, str) and hex_form.match(value)):
            raise _problem(doc, source, name, f"'{name}' must be lowercase hex ('pbem sign' fills it)")
    key_id = sig = None
    signature = data.get("signature")
    if signature is None:
        if require_signature:
            raise OrderFileError(
                "the file is not signed; sign it with 'pbem sign FILE --key YOUR.key' and send the signed file",
                source=source,
                field="signature",
            )
    else:
        if not isinstance(signature, dict) or len(signature) != 2 or "key" not in signature or "value" not in signature:
            raise _problem(doc, source, "signature", "'signature' must have exactly 'key' and 'value'")
        key_id = str(signature["key"])
        try:
            sig = binascii.a2b_base64(str(signature["value"]), strict_mode=True)  # (base64.b64decode(..., validate=True))
        except (binascii.Error, ValueError):
            raise _problem(doc, source, "signature.value", "the signature is not valid base64; was the file edited after signing?") from None
        if len(sig) != 64:
            raise _problem(doc, source, "signature.value", "the signature has the wrong length; was the file edited after signing?")
    return OrderDocument(
        raw, source, doc, campaign, player, phase, seq, orders, data.get("request"),
        reveal, commit, key_id, sig,
    )


def _word(doc: Document | yamlfast.Read, source: str, name: str) -> str:
    """The field ``name`` of an envelope, a word (a number written as one)."""
    value = doc.data.get(name)
    if value is None:
        raise OrderFileError(f"the field '{name}' is missing", source=source, line=None, field=name)
    if type(value) not in (str, int):
        raise _problem(doc, source, name, f"'{name}' must be a word, not {type(value).__name__}")
    return str(value)


def verify_signature(doc: OrderDocument, key: PublicKey) -> None:
    """Raise :class:`SignatureError` unless ``doc`` is signed by ``key``."""
    if doc.signature is None or doc.key_id is None:
        raise SignatureError("the file is not signed", source=doc.source, field="signature")
    if doc.key_id != key.sign_id:
        raise SignatureError(
            f"signed with a key that is not the roster key of '{doc.player}' "
            f"(signed by {doc.key_id[:20]}…, roster has {key.sign_id[:20]}…)",
            source=doc.source,
            line=doc.line_of("signature.key"),
            field="signature.key",
        )
    try:
        key.verifier().verify(doc.signature, doc.signed)
    except InvalidSignature:
        raise SignatureError(
            "the signature does not match the content: the file was changed after it was signed "
            "(sign it again with 'pbem sign')",
            source=doc.source,
            line=doc.line_of("signature.value"),
            field="signature",
        ) from None


def sign_data(data: dict[str, Any], key: PrivateKey) -> dict[str, Any]:
    """A copy of ``data`` with a fresh signature by ``key`` (fields in the standard order)."""
    body = {k: v for k, v in data.items() if k != "signature"}
    value = base64.b64encode(key.sign(signing_bytes(body))).decode("ascii")
    ordered = {k: body[k] for k in FIELD_ORDER if k in body}
    ordered.update({k: v for k, v in body.items() if k not in ordered})
    ordered["signature"] = {"key": key.public().sign_id, "value": value}
    return ordered


LINE_WIDTH = 72  # what mail clients leave alone (RFC 3676 §4.2 wraps at 78; Thunderbird at 72)
_LONG_WORD = re.compile(r"^( *)([A-Za-z_][A-Za-z0-9_-]*): ([^\s\"'\\\[\]{}&*!|>%@`#,][^\s\"\\]*)$")


def format_document(data: dict[str, Any]) -> str:
    """YAML text of an order document, readable and stable, with no line over 72 characters:
    text is folded at spaces, and a long word (a hash, the signature) is written as a
    double-quoted scalar continued over lines with escaped line breaks (``"abc\\`` then
    ``def"``), which YAML reads as the same string. A mail client then has nothing to wrap."""
    # PyYAML breaks at the first space past its width: leave room for the word that crosses it
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=LINE_WIDTH - 12)
    return "".join(_fold(line) + "\n" for line in text.splitlines())


def _fold(line: str) -> str:
    m = _LONG_WORD.match(line)
    if len(line) <= LINE_WIDTH or not m or not isinstance(yaml.safe_load(m.group(3)), str):
        return line
    indent, key, word = m.groups()
    lines: list[str] = []
    first = f"{indent}{key}: \""
    cont = indent + "  "
    while word:
        lead = cont if lines else first
        room = LINE_WIDTH - len(lead) - 1  # the escaped line break, or the closing quote
        piece, word = word[:room], word[room:]
        lines.append(lead + piece + ("\\" if word else "\""))
    return "\n".join(lines)
