"""``pbem audit`` detects tampering with any archived file (DESIGN: every step lands in an
append-only, hash-chained archive from which anyone can re-check the whole game).

For each kind of file — archive records, accepted order files (the ones resolved and the ones a
higher seq superseded), verdicts, state snapshots, event files, ``secret/seed`` — a one-byte
change and, separately, a change that keeps the JSON/YAML meaning (an added space) make the audit
fail with exit status 1 and a message naming that file. So do a record deleted from the middle
and records put in another order.

The one-byte changes are made inside hash-like values (runs of 32+ hex digits: hashes, keys,
signatures, the seed) and, for files other than the newest record, also at the middle byte. The
newest record is anchored only by what was published from it (its hash is in the reports), so a
change to its time stamp is out of the audit's reach; every value in it that can be checked is.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import NOW, run_cli
from orders_util import signed

from pbem.common.canonical import canonical
from pbem.core.audit import audit, check_sent
from pbem.core.campaign import Campaign, parse_time, record_hash
from pbem.core.intake import intake
from pbem.core.phase import resolve
from pbem.errors import AuditError, CampaignError

HEX_RUN = re.compile(rb"[0-9a-f]{32,}")


def _hands(camp: Path) -> dict[str, list[int]]:
    last = sorted((camp / "states").glob("[0-9]*[0-9].json"))[-1]
    return json.loads(last.read_bytes())["hands"]


def _play(root: Path, camp: Path, keys: dict[str, Path], rounds: list[int]) -> None:
    for rnd in rounds:
        hands = _hands(camp)
        docs = []
        if rnd == 1:  # a first file that a higher seq supersedes
            docs.append(signed(root, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": hands["N"][1]}}, name="n-old"))
        docs.append(signed(root, keys["north"], "mini-1", "north", f"round-{rnd}", {"N": {"bid": hands["N"][0]}}))
        docs.append(signed(root, keys["south"], "mini-1", "south", f"round-{rnd}", {"S": {"bid": hands["S"][-1]}}))
        with Campaign(camp).locked() as c:
            assert intake(c, docs, parse_time(NOW)).accepted == len(docs)
            resolve(c, parse_time(NOW))


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``finished``: a whole mini game (3 phases and the end record); ``running``: after phase 1."""
    root = tmp_path_factory.mktemp("tamper")
    out = {}
    for name, rounds in (("running", [1]), ("finished", [1, 2, 3])):
        keys = {}
        for seat in ("north", "south"):  # fresh keys: pbem sign numbers seq per key
            run_cli("keygen", seat, "-o", str(root / f"{name}-keys"))
            keys[seat] = root / f"{name}-keys" / f"{seat}.key"
        camp = root / name
        run_cli(
            "new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short", "--id", "mini-1",
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}", "--now", NOW,
        )
        (root / f"{name}-docs").mkdir()
        _play(root / f"{name}-docs", camp, keys, rounds)
        assert "audit passed" in run_cli("audit", str(camp)).stdout
        out[name] = camp
    kinds = [json.loads(p.read_bytes())["kind"] for p in sorted((out["finished"] / "archive").glob("*.json"))]
    assert kinds == ["create", "phase", "phase", "phase", "end"]
    return out


def _archived(camp: Path) -> list[str]:
    """Every file the audit vouches for, relative to the campaign folder."""
    names = [p for p in sorted(camp.rglob("*")) if p.is_file()]
    keep = re.compile(r"^(archive/\d+\.json|states/\d+(\.events)?\.json|orders/[^/]+/[a-z]+\.\d+\.yaml(\.verdict\.json)?|secret/seed)$")
    return [str(p.relative_to(camp)) for p in names if keep.match(str(p.relative_to(camp)))]


def _newest_record(camp: Path) -> str:
    return str(sorted((camp / "archive").glob("*.json"))[-1].relative_to(camp))


def _hex_flips(data: bytes, count: int = 4) -> list[int]:
    """Positions inside hash-like hex runs, spread over the file."""
    spots = [i for m in HEX_RUN.finditer(data) for i in range(m.start(), m.end())]
    if not spots:  # an events file: change its numbers
        spots = [i for i, c in enumerate(data) if chr(c).isdigit()]
    return sorted({spots[k * (len(spots) - 1) // max(1, count - 1)] for k in range(count)})


def _flip_hex(data: bytes, pos: int) -> bytes:
    c = data[pos : pos + 1]
    other = b"0" if c != b"0" else b"1"
    return data[:pos] + other + data[pos + 1 :]


def _flip_bit(data: bytes, pos: int) -> bytes:
    return data[:pos] + bytes([data[pos] ^ 0x01]) + data[pos + 1 :]


def _add_space(name: str, data: bytes) -> bytes:
    """A change that keeps the meaning: a space where JSON or YAML ignores it."""
    if name.endswith(".json"):
        i = data.index(b":")
        return data[: i + 1] + b" " + data[i + 1 :]
    return data.replace(b"\n", b" \n", 1)


def _audit_failure(camp: Path, name: str, what: str) -> str | None:
    """None when the audit fails naming ``name``; else what went wrong."""
    result = run_cli("audit", str(camp), ok=False)
    assert "Traceback" not in result.output
    if result.exit_code != 1:
        return f"{what} in {name}: not detected"
    if name not in result.stderr:
        return f"{what} in {name}: the message names another file: {result.stderr.strip()}"
    return None


def _tampered_copies(campaigns: dict[str, Path], tmp_path: Path):  # type: ignore[no-untyped-def]
    for label, base in sorted(campaigns.items()):
        for name in _archived(base):
            data = (base / name).read_bytes()
            changes = [(f"hex digit at {pos}", _flip_hex(data, pos)) for pos in _hex_flips(data)]
            if name != _newest_record(base) and name != "secret/seed":
                changes.append(("bit flip at the middle byte", _flip_bit(data, len(data) // 2)))
            changes.append(("an added space", _add_space(name, data)))
            for what, changed in changes:
                assert changed != data
                yield label, base, name, what, changed


KINDS = {"records": r"^archive/", "order files": r"^orders/.*\.yaml$", "verdicts": r"\.verdict\.json$",
         "states": r"^states/\d+\.json$", "events": r"^states/\d+\.events\.json$", "seed": r"^secret/seed$"}
"""The archived files by kind; each kind is tampered with in a test of its own."""


def test_every_archived_file_kind_is_covered(campaigns: dict[str, Path]) -> None:
    names = _archived(campaigns["finished"])
    for pattern in (r"archive/00000[0-4]\.json", r"orders/0001-round-1/north\.000001\.yaml$", r"orders/0001-round-1/north\.000002\.yaml$",
                    r"\.verdict\.json$", r"states/00000[1-3]\.json", r"states/00000[1-3]\.events\.json", r"states/000000\.json",
                    r"secret/seed"):
        assert any(re.search(pattern, n) for n in names), pattern
    for label in campaigns:
        for name in _archived(campaigns[label]):
            assert sum(bool(re.search(k, name)) for k in KINDS.values()) == 1, name


@pytest.mark.parametrize("label", ["finished", "running"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_any_change_to_an_archived_file_is_named(campaigns: dict[str, Path], tmp_path: Path, kind: str, label: str) -> None:
    checked, problems = 0, []
    for i, (_, base, name, what, changed) in enumerate(_tampered_copies({label: campaigns[label]}, tmp_path)):
        if not re.search(KINDS[kind], name):
            continue
        camp = tmp_path / f"c{i}"
        shutil.copytree(base, camp)
        (camp / name).write_bytes(changed)
        problem = _audit_failure(camp, name, f"{what} ({label})")
        if problem:
            problems.append(problem)
        shutil.rmtree(camp)
        checked += 1
    assert checked >= 3
    assert problems == [], "\n".join(problems)


def test_record_deleted_from_the_middle(campaigns: dict[str, Path], tmp_path: Path) -> None:
    camp = tmp_path / "c"
    shutil.copytree(campaigns["finished"], camp)
    (camp / "archive" / "000002.json").unlink()
    result = run_cli("audit", str(camp), ok=False)
    assert result.exit_code == 1
    assert "archive/000002.json" in result.stderr and "missing" in result.stderr


def test_record_deleted_and_the_rest_renumbered(campaigns: dict[str, Path], tmp_path: Path) -> None:
    camp = tmp_path / "c"
    shutil.copytree(campaigns["finished"], camp)
    archive = camp / "archive"
    (archive / "000002.json").unlink()
    (archive / "000003.json").rename(archive / "000002.json")
    (archive / "000004.json").rename(archive / "000003.json")
    result = run_cli("audit", str(camp), ok=False)
    assert result.exit_code == 1
    assert "archive/000002.json" in result.stderr and "says index 3, expected 2" in result.stderr


@pytest.mark.parametrize("pair", [(1, 2), (2, 3), (0, 1), (3, 4)])
def test_records_reordered(campaigns: dict[str, Path], tmp_path: Path, pair: tuple[int, int]) -> None:
    camp = tmp_path / "c"
    shutil.copytree(campaigns["finished"], camp)
    a, b = (camp / "archive" / f"{n:06d}.json" for n in pair)
    data_a, data_b = a.read_bytes(), b.read_bytes()
    a.write_bytes(data_b)
    b.write_bytes(data_a)
    result = run_cli("audit", str(camp), ok=False)
    assert result.exit_code == 1
    assert f"archive/{pair[0]:06d}.json" in result.stderr and f"says index {pair[1]}, expected {pair[0]}" in result.stderr


def test_order_file_deleted(campaigns: dict[str, Path], tmp_path: Path) -> None:
    for name in ("orders/0002-round-2/south.000001.yaml", "orders/0001-round-1/north.000001.yaml"):
        camp = tmp_path / name.replace("/", "_")
        shutil.copytree(campaigns["finished"], camp)
        (camp / name).unlink()
        result = run_cli("audit", str(camp), ok=False)
        assert result.exit_code == 1 and name in result.stderr and "missing" in result.stderr


def test_untouched_campaigns_pass(campaigns: dict[str, Path]) -> None:
    finished = run_cli("audit", str(campaigns["finished"])).stdout
    assert "5 records: hash chain intact" in finished and "3 phases replayed" in finished
    running = run_cli("audit", str(campaigns["running"])).stdout
    assert "2 records: hash chain intact" in running and "1 phases replayed" in running


# -- what the audit reports, pins and a player's own check ----------------------------------------

REPLAYED = "phases replayed: every state, event and commitment hash matches"


def _copy(campaigns: dict[str, Path], name: str, tmp_path: Path) -> Path:
    camp = tmp_path / name
    shutil.copytree(campaigns[name], camp)
    return camp


def test_the_report_says_what_was_checked(campaigns: dict[str, Path]) -> None:
    """Each line counts what was checked: records, order files (the superseded one included),
    phases replayed; a public audit counts phases and public draws and gives each stream seed."""
    fin = audit(Campaign(campaigns["finished"]))
    assert fin.lines() == ["5 records: hash chain intact", "7 order files: hashes and signatures verified",
                           f"3 {REPLAYED}"]
    run = audit(Campaign(campaigns["running"]))
    assert run.lines() == ["2 records: hash chain intact", "3 order files: hashes and signatures verified",
                           f"1 {REPLAYED}"]
    pub = audit(Campaign(campaigns["finished"]), public=True)
    lines = pub.lines()
    assert lines[0] == "5 records: hash chain intact"
    assert re.fullmatch(r"3 phases: public hash-chain keys and the players' entropy verified; [1-9]\d* public draws recomputed", lines[1])
    assert pub.draws > 0 and pub.phases == 3 and pub.order_files == 0 and not pub.replay
    for i, line in enumerate(lines[2:5], start=1):
        assert re.fullmatch(rf"round-{i} \(record {i}\): public stream seed [0-9a-f]{{64}}", line), line
    assert lines[5:] == ["the seed revealed in record 4 matches the anchor and the commitment of record 0",
                         "order files, states and the replay are left to the full audit (they hold secrets until the game ends)"]
    mid = audit(Campaign(campaigns["running"]), public=True)
    assert mid.lines()[1].startswith("1 phases: public hash-chain keys") and len(mid.lines()) == 4


def test_without_the_seed_the_replay_is_skipped(campaigns: dict[str, Path], tmp_path: Path) -> None:
    camp = _copy(campaigns, "running", tmp_path)
    (camp / "secret" / "seed").unlink()
    report = audit(Campaign(camp))
    assert not report.replay and report.replayed == 0
    assert report.lines()[-1] == "replay skipped: the secret seed is revealed only when the game ends"
    assert not any(REPLAYED in line for line in report.lines())


def test_pins_anchor_the_chain(campaigns: dict[str, Path]) -> None:
    camp = Campaign(campaigns["finished"])
    real = record_hash(camp.record_path(2).read_bytes())
    report = audit(camp, pins=[(2, real), (2, real), (0, record_hash(camp.record_path(0).read_bytes()))])
    assert report.lines()[-1] == "2 pin(s) from reports or receipts: every pinned record is there, unchanged"
    with pytest.raises(AuditError) as past:
        audit(camp, pins=[(5, real)])
    assert "record 5 is missing" in past.value.message and "truncated after record 4" in past.value.message
    assert past.value.source and past.value.source.endswith("000005.json")
    with pytest.raises(AuditError) as wrong:
        audit(camp, pins=[(4, real)])
    assert "record 4 is not the record" in wrong.value.message and f"sha256:{record_hash(camp.record_path(4).read_bytes())}" in wrong.value.message
    assert "pin" not in " ".join(audit(camp).lines())


def test_a_players_own_check_of_the_files_sent(campaigns: dict[str, Path], tmp_path: Path) -> None:
    """``pbem audit --sent``: the file used, a later one used, other bytes with the same seq,
    a phase not resolved yet, an unreadable file, and a file newer than the one used."""
    camp = Campaign(campaigns["finished"])
    docs = campaigns["finished"].parent / "finished-docs"
    used, old = docs / "north-round-1.yaml", docs / "n-old-round-1.yaml"
    assert check_sent(camp, [used, old]) == [
        "north-round-1.yaml: record 1 (archive/000001.json) used this file",
        "n-old-round-1.yaml: record 1 (archive/000001.json) used a later file of yours, seq 2"]
    crlf = tmp_path / "crlf.yaml"
    crlf.write_bytes(used.read_bytes().replace(b"\n", b"\r\n"))
    [line] = check_sent(camp, [crlf])
    assert line.startswith("crlf.yaml: record 1 (archive/000001.json) used north's seq 2 with other bytes (sha256:")
    later = docs / "south-round-2.yaml"
    [line] = check_sent(Campaign(campaigns["running"]), [later])
    assert line == "south-round-2.yaml: round-2 is not resolved yet in this archive"
    junk = tmp_path / "junk.yaml"
    junk.write_text("not: [an order file", encoding="utf-8")
    with pytest.raises(AuditError, match="your file does not parse"):
        check_sent(camp, [junk])
    newer = signed(tmp_path, docs.parent / "finished-keys" / "north.key", "mini-1", "north", "round-1",
                   {"N": {"bid": 1}}, seq=9)
    with pytest.raises(AuditError) as exc:
        check_sent(camp, [newer])
    assert exc.value.message.startswith("record 1 (archive/000001.json) resolved round-1 with seq 2 (sha256:")
    assert "not with the file you sent, north's seq 9" in exc.value.message


def _only_record_as_phase(path: Path) -> None:
    for later in sorted(path.parent.glob("00000[1-9].json")):
        later.unlink()
    path.write_bytes(canonical({**json.loads(path.read_bytes()), "kind": "phase"}) + b"\n")


def _two_past_a_gap(path: Path) -> None:
    path.write_bytes(b"{}")
    path.with_name("000009.json").write_bytes(b"{}")


def test_broken_records_are_named(campaigns: dict[str, Path], tmp_path: Path) -> None:
    """A record that is not JSON, one not in canonical form, a record 0 that is no create record
    and a record past
    a gap each fail the audit with what is wrong."""
    cases = {
        "not json": ("archive/000002.json", lambda p: p.write_bytes(b"{not json"), "not valid JSON"),
        "not canonical": ("archive/000002.json", lambda p: p.write_bytes(p.read_bytes().replace(b":", b": ", 1)),
                          "not in canonical form"),
        "record 0 not a create": ("archive/000000.json", _only_record_as_phase, "record 0 is missing or is not a create record"),
        "past a gap": ("archive/000007.json", _two_past_a_gap, "later records are there (from 000007.json)"),
    }
    for what, (name, change, message) in cases.items():
        camp = tmp_path / what.replace(" ", "_")
        shutil.copytree(campaigns["finished"], camp)
        change(camp / name)
        with pytest.raises(AuditError) as exc:
            audit(Campaign(camp))
        assert message in exc.value.message, (what, exc.value.message)
        assert exc.value.source and exc.value.source.endswith(name if what != "past a gap" else "archive/000005.json")


def test_a_folder_that_is_no_campaign_is_named_so(tmp_path: Path) -> None:
    with pytest.raises(CampaignError, match="is not a campaign folder"):
        audit(Campaign(tmp_path))


@pytest.mark.parametrize("snapshot", ["states/000000.json", "states/000001.json"])
def test_without_the_seed_a_changed_snapshot_is_still_named(campaigns: dict[str, Path], tmp_path: Path,
                                                            snapshot: str) -> None:
    """A player's copy has no seed to replay with: the snapshots are checked against their
    records all the same."""
    camp = _copy(campaigns, "running", tmp_path)
    (camp / "secret" / "seed").unlink()
    path = camp / snapshot
    path.write_bytes(_add_space(snapshot, path.read_bytes()))
    with pytest.raises(AuditError) as exc:
        audit(Campaign(camp))
    assert exc.value.source and exc.value.source.endswith(snapshot)


def _rewrite(path: Path, **fields: object) -> None:
    """Rewrite a record in canonical form with some fields changed (or removed, for None)."""
    rec = {k: v for k, v in {**json.loads(path.read_bytes()), **fields}.items() if v is not None}
    path.write_bytes(canonical(rec) + b"\n")


@pytest.mark.parametrize(("index", "field", "named", "message"), [
    (2, "resolved_at", 2, "the record was changed after it was written: its hash no longer matches the 'prev' of record 3"),
    (2, "prev", 2, "the record's 'prev' was changed: it does not chain to the record before it, and the next record does not chain to it"),
    (4, "prev", 3, "the record was changed after it was written, or the 'prev' of the newest record"),
])
def test_a_broken_link_names_the_record_changed(campaigns: dict[str, Path], tmp_path: Path, index: int, field: str,
                                               named: int, message: str) -> None:
    camp = _copy(campaigns, "finished", tmp_path)
    path = camp / "archive" / f"{index:06d}.json"
    _rewrite(path, **{field: "0" * 64 if field == "prev" else "2026-01-01T00:00:00Z"})
    with pytest.raises(AuditError) as exc:
        audit(Campaign(camp))
    assert message in exc.value.message
    assert exc.value.source and exc.value.source.endswith(f"archive/{named:06d}.json")


def test_the_newest_record_is_checked_for_its_draws_and_mix(campaigns: dict[str, Path], tmp_path: Path) -> None:
    """The newest record is anchored only by what was published from it: a rewritten one still
    has to list as many public draws as it counts, and the mix of the values it lists."""
    camp = _copy(campaigns, "running", tmp_path)
    path = camp / "archive" / "000001.json"
    rec = json.loads(path.read_bytes())
    assert rec["public_draws"] > 0
    original = path.read_bytes()
    _rewrite(path, public_draws=rec["public_draws"] + 1)
    with pytest.raises(AuditError, match=f"lists {rec['public_draws']} public draws but counts {rec['public_draws'] + 1}"):
        audit(Campaign(camp), public=True)
    path.write_bytes(original)
    _rewrite(path, entropy_mix="00" * 32)
    with pytest.raises(AuditError, match="the entropy mix is not the mix of the players' values the record lists"):
        audit(Campaign(camp), public=True)
    path.write_bytes(original)
    _rewrite(path, public_dice=None, public_draws=None)
    assert audit(Campaign(camp), public=True).draws == 0
