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

from pbem.core.campaign import Campaign, parse_time
from pbem.core.intake import intake
from pbem.core.phase import resolve

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


def test_every_archived_file_kind_is_covered(campaigns: dict[str, Path]) -> None:
    names = _archived(campaigns["finished"])
    for pattern in (r"archive/00000[0-4]\.json", r"orders/0001-round-1/north\.000001\.yaml$", r"orders/0001-round-1/north\.000002\.yaml$",
                    r"\.verdict\.json$", r"states/00000[1-3]\.json", r"states/00000[1-3]\.events\.json", r"states/000000\.json",
                    r"secret/seed"):
        assert any(re.search(pattern, n) for n in names), pattern


def test_any_change_to_an_archived_file_is_named(campaigns: dict[str, Path], tmp_path: Path) -> None:
    checked, problems = 0, []
    for i, (label, base, name, what, changed) in enumerate(_tampered_copies(campaigns, tmp_path)):
        camp = tmp_path / f"c{i}"
        shutil.copytree(base, camp)
        (camp / name).write_bytes(changed)
        problem = _audit_failure(camp, name, f"{what} ({label})")
        if problem:
            problems.append(problem)
        shutil.rmtree(camp)
        checked += 1
    assert checked > 100
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
