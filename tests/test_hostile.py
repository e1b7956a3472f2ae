"""Hostile input: every file of the corpus under ``tests/hostile/`` is refused by ``pbem intake``
with a clear one-line message, no traceback, exit status 0 (intake ran; the refusal is its
verdict, reported on stdout as ``refused: ...`` and counted on stderr), and nothing accepted
before it changes. The two validly encoded mails are accepted. A forged ``From`` gets no reply.

A bounded fuzz test feeds random bytes and random mutations of a valid signed file to intake:
it never crashes, and it never accepts a mutated file whose meaning changed.
"""

from __future__ import annotations

import email
import email.policy
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from conftest import NOW, run_cli
from hostile.make_corpus import CAMPAIGN, EMAILS, build_big, corpus_key, order_data, signed_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core.campaign import Campaign, parse_time
from pbem.core.envelope import parse_order_document
from pbem.core.intake import intake
from pbem.core.phase import resolve

TESTS = Path(__file__).parent
CORPUS = TESTS / "hostile"
PWNED_IN_CORPUS = b"/tmp/pbem-hostile-pwned"
"""The file the corpus's python tags would create; each test rewrites it to a path of its own."""

# file -> the phrase its refusal must contain (one per candidate the file yields, in order)
REFUSED: dict[str, list[str]] = {
    "billion_laughs.yaml": ["anchors (&a0) are not allowed"],
    "alias_without_anchor.yaml": ["aliases (*camp) are not allowed"],
    "merge_key_alias.yaml": ["anchors (&b) are not allowed"],
    "deep_flow.yaml": ["nests deeper than 20 levels"],
    "deep_block.yaml": ["nests deeper than 20 levels"],
    "huge_document.yaml": ["the limit is 65,536 bytes"],
    "binary_junk.yaml": ["not UTF-8 text"],
    "utf16le.yaml": ["the file is UTF-16 text"],
    "utf16be.yaml": ["the file is UTF-16 text"],
    "latin1.yaml": ["not UTF-8 text (binary data, or another encoding such as Latin-1)"],
    "python_apply.yaml": ["YAML tags (tag:yaml.org,2002:python/object/apply:os.system) are not allowed"],
    "python_name.yaml": ["YAML tags (tag:yaml.org,2002:python/name:os.system) are not allowed"],
    "binary_tag.yaml": ["YAML tags (tag:yaml.org,2002:binary) are not allowed"],
    "custom_tag.yaml": ["YAML tags (!custom) are not allowed"],
    "set_tag.yaml": ["YAML tags (tag:yaml.org,2002:set) are not allowed"],
    "duplicate_keys.yaml": ["the key 'campaign' appears twice"],
    "duplicate_nested_keys.yaml": ["the key 'N' appears twice"],
    "seq_string.yaml": ["'seq' must be a whole number"],
    "seq_float.yaml": ["'seq' must be a whole number"],
    "seq_bool.yaml": ["'seq' must be a whole number"],
    "orders_list.yaml": ["'orders' must be a mapping keyed by power"],
    "no_pbem_line.yaml": ["not a pbem order file: the first line should be 'pbem: 1'"],
    "pbem_version_2.yaml": ["unsupported format version 2"],
    "unknown_field.yaml": ["unknown field 'comment'"],
    "missing_player.yaml": ["the field 'player' is missing"],
    "player_mapping.yaml": ["'player' must be a word, not dict"],
    "entropy_uppercase.yaml": ["'entropy_commit' must be lowercase hex"],
    "top_level_list.yaml": ["must be a YAML mapping"],
    "complex_key.yaml": ["a mapping key must be a plain word or string"],
    "int_key.yaml": ["the key 7 is not a string"],
    "two_documents.yaml": ["more than one YAML document"],
    "control_char.yaml": ["control character (U+001B)"],
    "not_yaml.yaml": ["not valid YAML"],
    "empty.yaml": ["the file is empty"],
    "only_comment.yaml": ["the file is empty"],
    "unsigned.yaml": ["the file is not signed"],
    "signature_corrupted.yaml": ["the signature does not match the content"],
    "signature_not_base64.yaml": ["the signature is not valid base64"],
    "signature_short.yaml": ["the signature has the wrong length"],
    "signature_extra_field.yaml": ["'signature' must have exactly 'key' and 'value'"],
    "orders_changed_after_signing.yaml": ["the signature does not match the content"],
    "signed_by_mallory.yaml": ["signed with a key that is not the roster key of 'north'"],
    "stranger_seat.yaml": ["'mallory' is not a player of this campaign"],
    "other_campaign.yaml": ["this file is for campaign 'other-7', not 'hostile-1'"],
    "resolved_phase.yaml": ["phase 'round-1' is already resolved; the current phase is 'round-2'"],
    "future_phase.yaml": ["phase 'round-3' is not open; the current phase is 'round-2'"],
    "replayed_seq.yaml": ["seq 1 is not above seq 1, which was already accepted"],
    "nan_bid.yaml": ["orders.N.bid: '.nan' is not a finite number"],
    "infinite_bid.yaml": ["orders.N.bid: '-.inf' is not a finite number"],
    "int_5000_digits.yaml": ["orders.N.bid: the number 99999999999999999999… is far too long"],
    "int_base60_bomb.yaml": ["orders.N.bid: the number 1:59:59:59:59:59:59: is too large"],
    "newline_in_campaign.yaml": ["this file is for campaign 'x\\x0aaccepted: fake.yaml: north seq 9', not 'hostile-1'"],
    "newline_in_key.yaml": ["unknown field 'x\\x0aaccepted: y'"],
    "seq_too_large.yaml": ["seq: the number 99999999999999999999 is too large (the limit is 2**63)"],
    "nested_forward.eml": ["the signature does not match the content"],
    "filename_injection.eml": ["filename_injection.eml (evil?accepted: x?[31m.yaml), line 2: orders: YAML tags"],
    "empty_attachment.eml": ["the attachment is empty (0 bytes)"],
    "forged_from_player.eml": ["signed with a key that is not the roster key of 'north'"],
    "forged_from_stranger.eml": ["signed with a key that is not the roster key of 'north'"],
    "no_order.eml": ["no order file found in the mail"],
    "malformed_headers.eml": ["no order file found in the mail"],
    "binary_attachment.eml": ["not UTF-8 text"],
    "bomb_attachment.eml": ["anchors (&a0) are not allowed"],
    "inline_python_tag.eml": ["YAML tags (tag:yaml.org,2002:python/object/apply:os.system) are not allowed"],
    "utf16_attachment.eml": ["the file is UTF-16 text"],
    "attachment_20mb_base64.eml": ["pbem reads mails up to 26,214,400 bytes"],
    "attachment_20mb_8bit.eml": ["the attachment is far over the limit of 65,536 bytes"],
    "three_mails.mbox": [
        "YAML tags (tag:yaml.org,2002:python/object/apply:os.system) are not allowed",
        "anchors (&x) are not allowed",
        "the attachment is empty (0 bytes)",
    ],
    "maildir": [
        "YAML tags (tag:yaml.org,2002:set) are not allowed",
        "control character (U+0000)",
        "the field 'campaign' is missing",
    ],
}
# validly encoded mails: accepted as (seat, seq)
ACCEPTED: dict[str, tuple[str, int]] = {
    "valid_base64.eml": ("south", 1),
    "valid_quoted_printable.eml": ("north", 2),
    "html_only.eml": ("north", 2),  # read through the text the HTML shows
}
BIG = {"huge_document.yaml", "attachment_20mb_base64.eml", "attachment_20mb_8bit.eml"}
NOT_CORPUS = {"make_corpus.py", "keys", "__pycache__", "README.md"}


def _corpus_names() -> list[str]:
    return sorted(p.name for p in CORPUS.iterdir() if p.name not in NOT_CORPUS) + sorted(BIG)


def _sign_into(folder: Path, name: str, data: dict) -> Path:
    path = folder / name
    path.write_text(signed_text(data))
    return path


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Campaign ``hostile-1`` with round-1 resolved and north's round-2 orders (seq 1) accepted."""
    root = tmp_path_factory.mktemp("hostile")
    camp = root / "camp"
    players = [f"--player={seat}={EMAILS[seat]}:{CORPUS / 'keys' / (seat + '.pub')}" for seat in ("north", "south")]
    run_cli("new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short", "--id", CAMPAIGN, *players, "--now", NOW)
    docs = [_sign_into(root, f"{seat}-r1.yaml", order_data(seat, phase="round-1")) for seat in ("north", "south")]
    assert run_cli("intake", str(camp), *map(str, docs), "--now", NOW).stdout.count("accepted:") == 2
    with Campaign(camp).locked() as c:
        assert resolve(c, parse_time(NOW)).record["phase"] == "round-1"
    first = _sign_into(root, "north-r2.yaml", order_data("north", seq=1))
    assert "accepted:" in run_cli("intake", str(camp), str(first), "--now", NOW).stdout
    return camp


@pytest.fixture(scope="module")
def big_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_big(tmp_path_factory.mktemp("big"))


def _snapshot(camp: Path) -> dict[str, bytes]:
    out = {}
    for sub in ("orders", "archive"):
        for p in sorted((camp / sub).rglob("*")):
            if p.is_file():
                out[str(p.relative_to(camp))] = p.read_bytes()
    return out


def _source(name: str, tmp: Path, big_files: dict[str, Path]) -> Path:
    """The corpus file ``name`` as intake should see it (a Maildir is copied: intake moves mails)."""
    if name in big_files:
        return big_files[name]
    if name == "maildir":
        target = tmp / "maildir"
        shutil.copytree(CORPUS / "maildir", target)
        for sub in ("cur", "tmp"):
            (target / sub).mkdir(exist_ok=True)
        return target
    raw = (CORPUS / name).read_bytes()
    if PWNED_IN_CORPUS in raw:  # the command a YAML tag would run touches a file of this test only
        copy = tmp / name
        copy.write_bytes(raw.replace(PWNED_IN_CORPUS, str(tmp / "pwned").encode()))
        return copy
    return CORPUS / name


def test_corpus_is_complete_and_small() -> None:
    names = _corpus_names()
    assert set(names) == set(REFUSED) | set(ACCEPTED), "every corpus file needs an expected verdict"
    assert len(names) >= 30
    committed = sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file())
    assert committed < 200_000


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_hostile_file_is_refused(name: str, template: Path, tmp_path: Path, big_files: dict[str, Path]) -> None:
    camp = tmp_path / "camp"
    shutil.copytree(template, camp)
    before = _snapshot(camp)
    result = run_cli("intake", str(camp), str(_source(name, tmp_path, big_files)), "--now", NOW, ok=False)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    lines = result.stdout.splitlines()
    expected = REFUSED[name]
    assert len(lines) == len(expected), result.stdout
    for line, phrase in zip(lines, expected, strict=True):
        assert line.startswith("refused: "), line
        assert phrase in line, f"{name}: expected {phrase!r} in {line!r}"
        assert len(line) < 400
    assert f"0 accepted, {len(expected)} refused" in result.stderr
    assert _snapshot(camp) == before, "a refused file changed the orders or the archive"
    assert not (tmp_path / "pwned").exists(), "a YAML tag ran a command"
    assert len(list((camp / "refused").glob("*.json"))) == len(expected)


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_validly_encoded_mail_is_accepted(name: str, template: Path, tmp_path: Path) -> None:
    camp = tmp_path / "camp"
    shutil.copytree(template, camp)
    before = _snapshot(camp)
    out = run_cli("intake", str(camp), str(CORPUS / name), "--now", NOW).stdout
    seat, seq = ACCEPTED[name]
    assert out.startswith(f"accepted: {name}") and f"{seat} seq {seq}" in out, out
    after = _snapshot(camp)
    assert {k: v for k, v in after.items() if k in before} == before, "accepting changed an earlier file"
    stored = [k for k in after if k not in before and k.endswith(f"{seat}.{seq:06d}.yaml")]
    assert len(stored) == 1
    doc = parse_order_document(after[stored[0]], stored[0])
    assert doc.player == seat and doc.seq == seq


def test_forged_from_gets_no_reply(template: Path, tmp_path: Path) -> None:
    """A mail From north's address carrying a file signed by mallory is refused without a reply."""
    camp = tmp_path / "camp"
    shutil.copytree(template, camp)
    before = set((camp / "outbox").glob("*.eml"))
    for name in ("forged_from_player.eml", "forged_from_stranger.eml"):
        out = run_cli("intake", str(camp), str(CORPUS / name), "--now", NOW).stdout
        assert out.startswith("refused: ") and "not the roster key of 'north'" in out
    new = sorted(set((camp / "outbox").glob("*.eml")) - before)
    assert new == [], f"a forged mail made pbem write {[_recipients(p) for p in new]}"


def _recipients(path: Path) -> str:
    return str(email.message_from_bytes(path.read_bytes(), policy=email.policy.default)["To"])


def test_broken_mail_from_a_player_gets_an_error_reply(template: Path, tmp_path: Path) -> None:
    """The other side of the forged-From rule: a real player's broken file is answered."""
    camp = tmp_path / "camp"
    shutil.copytree(template, camp)
    run_cli("intake", str(camp), str(CORPUS / "empty_attachment.eml"), "--now", NOW)
    replies = [p for p in (camp / "outbox").glob("refused-*.eml")]
    assert len(replies) == 1
    text = replies[0].read_text()
    assert f"To: {EMAILS['north']}" in text and "the attachment is empty" in text


def test_whole_corpus_in_one_subprocess(template: Path, tmp_path: Path) -> None:
    """The real command over every committed corpus file at once: exit 0, one line each, no traceback."""
    camp = tmp_path / "camp"
    shutil.copytree(template, camp)
    names = [n for n in sorted(REFUSED) if n not in BIG]
    sources = [str(_source(n, tmp_path, {})) for n in names]
    proc = subprocess.run(
        [sys.executable, str(TESTS / "pbem_mini.py"), "intake", str(camp), *sources, "--now", NOW],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stdout.splitlines()
    assert len(lines) == sum(len(REFUSED[n]) for n in names)
    assert all(line.startswith("refused: ") for line in lines)
    assert proc.stderr.strip().endswith(f"0 accepted, {len(lines)} refused")


# -- fuzz -------------------------------------------------------------------------------------

VALID = signed_text(order_data("north", seq=2, bid=4)).encode()


def meaning(raw: bytes) -> object:
    """What a file says, read by PyYAML's own safe loader (independent of pbem's loader and of
    the canonical form the signature covers), every value tagged with its type: 4, 4.0, '4'
    and True are four meanings."""
    def typed(x: object) -> object:
        if isinstance(x, dict):
            return ("map", sorted((str(k), typed(v)) for k, v in x.items()))
        if isinstance(x, list):
            return ("seq", [typed(v) for v in x])
        return (type(x).__name__, x)
    data = yaml.safe_load(raw.decode("utf-8"))
    assert isinstance(data, dict)
    return typed({k: v for k, v in data.items() if k != "signature"})


VALID_MEANING = meaning(VALID)


@pytest.fixture(scope="module")
def fuzz_root(tmp_path_factory: pytest.TempPathFactory, template: Path) -> Path:
    return tmp_path_factory.mktemp("fuzz")


_counter = iter(range(10**9))


def _intake_bytes(template: Path, root: Path, data: bytes, suffix: str) -> tuple[Campaign, list]:
    n = next(_counter)
    work = root / f"w{n}"
    shutil.copytree(template, work / "camp")
    src = work / f"input{suffix}"
    src.write_bytes(data)
    with Campaign(work / "camp").locked() as camp:
        report = intake(camp, [src], datetime(2026, 12, 1, 12, tzinfo=UTC))
    return camp, report.verdicts


def _mutate(data: bytes, ops: list[tuple[int, int, int]]) -> bytes:
    out = bytearray(data)
    for kind, pos, value in ops:
        if not out:
            break
        i = pos % len(out)
        if kind == 0:
            out[i] = value
        elif kind == 1:
            out.insert(i, value)
        elif kind == 2:
            del out[i]
        elif kind == 3:  # duplicate a line
            start = out.rfind(b"\n", 0, i) + 1
            end = out.find(b"\n", i)
            end = len(out) if end < 0 else end + 1
            out[start:start] = out[start:end]
        else:  # swap a character with its neighbour
            j = (i + 1) % len(out)
            out[i], out[j] = out[j], out[i]
    return bytes(out)


def _check_verdicts(camp: Campaign, verdicts: list) -> None:
    for v in verdicts:
        assert "\n" not in v.message
        if v.accepted:
            stored = sorted((camp.orders_dir).rglob(f"{v.seat}.{v.seq:06d}.yaml"))
            assert meaning(stored[-1].read_bytes()) == VALID_MEANING, "a file whose meaning changed was accepted"


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(ops=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=4))
def test_fuzz_mutated_signed_file_never_accepted_with_new_meaning(template: Path, fuzz_root: Path, ops: list) -> None:
    data = _mutate(VALID, ops)
    camp, verdicts = _intake_bytes(template, fuzz_root, data, ".yaml")
    assert len(verdicts) == 1
    _check_verdicts(camp, verdicts)


YAML_TOKENS = [
    b"!!python/object/apply:os.system ", b"!x ", b"&a ", b"*a", b"<<: ", b".nan", b"-.inf", b"1.0e+999", b"9" * 5000,
    b"1:59:59", b"0x1F", b"0o17", b"~", b"null", b"yes", b"2026-11-30", b"{", b"}", b"[", b"]", b"? ", b"- ", b"'", b'"',
    b"\\u0000", b"---\n", b"...\n", b"%YAML 1.1\n", b"%TAG ! tag:x,2000:\n", b"\t", b"\r", b"\n  ", b"\x00", b"\xff",
    "\u2028".encode(), "\ufeff".encode(), b"#", b": ", b"|\n", b">-\n",
]


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(edits=st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(YAML_TOKENS)), min_size=1, max_size=3))
def test_fuzz_yaml_tokens_in_a_signed_file(template: Path, fuzz_root: Path, edits: list) -> None:
    """YAML syntax dropped into a valid signed file: never a crash, never a changed meaning accepted."""
    data = VALID
    for pos, token in edits:
        i = pos % (len(data) + 1)
        data = data[:i] + token + data[i:]
    camp, verdicts = _intake_bytes(template, fuzz_root, data, ".yaml")
    assert len(verdicts) == 1
    _check_verdicts(camp, verdicts)


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.binary(max_size=2048), suffix=st.sampled_from([".yaml", ".eml", ""]))
def test_fuzz_random_bytes_never_crash(template: Path, fuzz_root: Path, data: bytes, suffix: str) -> None:
    camp, verdicts = _intake_bytes(template, fuzz_root, data, suffix)
    assert verdicts and not any(v.accepted for v in verdicts)
    _check_verdicts(camp, verdicts)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(ops=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=3))
def test_fuzz_mutated_mail_never_crashes(template: Path, fuzz_root: Path, ops: list) -> None:
    mail = (CORPUS / "valid_quoted_printable.eml").read_bytes()
    camp, verdicts = _intake_bytes(template, fuzz_root, _mutate(mail, ops), ".eml")
    assert verdicts
    for v in verdicts:
        assert "\n" not in v.message
        if v.accepted:
            stored = sorted(camp.orders_dir.rglob(f"{v.seat}.{v.seq:06d}.yaml"))[-1]
            assert meaning(stored.read_bytes()) == meaning(signed_text(order_data("north", seq=2)).encode())


def test_keys_in_corpus_match_the_fixed_keys() -> None:
    for name in EMAILS:
        assert (CORPUS / "keys" / f"{name}.pub").read_text().strip() == corpus_key(name).public().line()


def test_corpus_is_reproducible(tmp_path: Path) -> None:
    from hostile.make_corpus import write_corpus

    write_corpus(tmp_path)
    for p in sorted(tmp_path.rglob("*")):
        if p.is_file():
            assert (CORPUS / p.relative_to(tmp_path)).read_bytes() == p.read_bytes(), p.name


@pytest.mark.parametrize(
    ("mutation", "accepted"),
    [
        (lambda b: b.replace(b"\n", b"\r\n"), True),  # line ends: same meaning
        (lambda b: b"# my orders\n" + b, True),  # a comment: same meaning
        (lambda b: b.replace(b"seq: 2", b"seq:   2"), True),
        (lambda b: b.replace(b"bid: 4", b"bid: 5"), False),  # meaning changed
        (lambda b: b.replace(b"bid: 4", b"bid: '4'"), False),  # a string is not a number
        (lambda b: b.replace(b"seq: 2", b"seq: 3"), False),
        (lambda b: b.replace(b"player: north", b"player: south"), False),
    ],
)
def test_mutations_of_a_signed_file(template: Path, fuzz_root: Path, mutation, accepted: bool) -> None:  # type: ignore[no-untyped-def]
    """The fuzz property's two sides, pinned: a change of form is accepted, a change of meaning never."""
    data = mutation(VALID)
    assert data != VALID
    camp, verdicts = _intake_bytes(template, fuzz_root, data, ".yaml")
    assert [v.accepted for v in verdicts] == [accepted], verdicts[0].message
    _check_verdicts(camp, verdicts)
