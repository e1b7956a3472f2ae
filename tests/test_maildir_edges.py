"""A Maildir is read safely whatever lies in it: only regular files are read, opened without
following links or blocking (symbolic links, FIFOs and folders are refused in one line each and
moved out of new/, and the campaign goes on); a name already in cur/ is never overwritten; a
mail of too many MIME parts is refused at once. Security findings L3 and L4."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import NOW, TESTS
from orders_util import signed
from test_intake_mail import _write, attached, inline

from pbem.core.campaign import parse_time
from pbem.core.mailin import MAX_PARTS

MINI = str(TESTS / "pbem_mini.py")


_MEASURED = (
    "import atexit, os, resource, runpy, sys\n"
    "atexit.register(lambda: os.write(2, b'\\nmaxrss: %d\\n' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))\n"
    "sys.argv = sys.argv[1:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def _pbem(*args: str, timeout: float = 60) -> tuple[subprocess.CompletedProcess[str], float, int]:
    """Run the CLI; return the result, its wall time and its peak memory (KiB)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS.parent), os.environ.get("PYTHONPATH", "")]))
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-c", _MEASURED, MINI, *args], capture_output=True, text=True, env=env, timeout=timeout)
    elapsed = time.monotonic() - start
    err, _, rss = result.stderr.rpartition("maxrss: ")
    result.stderr = err
    return result, elapsed, int(rss.strip() or 0)


def _bids(tmp: Path, keys: dict[str, Path]) -> dict[str, Path]:
    return {
        "north": signed(tmp, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": 1}}),
        "south": signed(tmp, keys["south"], "mini-1", "south", "round-1", {"S": {"bid": 3}}),
    }


def test_links_fifos_and_folders_in_new_are_refused_and_do_not_stall(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    bids = _bids(tmp_path, keys)
    new = mini_campaign / "inbox" / "new"
    t0 = int(parse_time(NOW).timestamp())
    outside = _write(tmp_path / "outside.eml", attached(bids["south"], "south@example.org"))
    (new / f"{t0}.M1P1.host").symlink_to("/nonexistent")
    (new / f"{t0}.M2P1.host").symlink_to(outside)  # a link is not followed, even to a good mail
    os.mkfifo(new / f"{t0}.M3P1.host")
    (new / f"{t0}.M4P1.host").mkdir()
    _write(new / f"{t0}.M5P1.host", attached(bids["north"], "north@example.org"))
    result, elapsed, _ = _pbem("intake", str(mini_campaign), str(mini_campaign / "inbox"), "--now", NOW, timeout=60)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["refused"] * 4 + ["accepted"], lines
    assert "symbolic link" in lines[0] and "symbolic link" in lines[1]
    assert "FIFO" in lines[2] and "folder" in lines[3]
    assert all("not a regular file" in line for line in lines[:4])
    assert list(new.iterdir()) == [], "every entry leaves new/, so the next run does not meet it again"
    assert outside.is_file() and len(list((mini_campaign / "refused").iterdir())) == 4
    again, _, _ = _pbem("intake", str(mini_campaign), str(mini_campaign / "inbox"), "--now", NOW)
    assert again.stdout == "" and again.returncode == 0


def test_name_collisions_in_cur_never_overwrite(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    bids = _bids(tmp_path, keys)
    inbox = mini_campaign / "inbox"
    t0 = int(parse_time(NOW).timestamp())
    first = _write(inbox / "new" / f"{t0}.X:2,a", attached(bids["north"], "north@example.org")).read_bytes()
    second = _write(inbox / "new" / f"{t0}.X:2,b", inline(bids["south"], "south@example.org")).read_bytes()
    kept = _write(inbox / "cur" / f"{t0}.Y:2,RS", attached(bids["north"], "north@example.org", "base64")).read_bytes()
    third = _write(inbox / "new" / f"{t0}.Y", attached(bids["south"], "south@example.org", "base64")).read_bytes()
    result, _, _ = _pbem("intake", str(mini_campaign), str(inbox), "--now", NOW)
    assert result.returncode == 0, result.stderr
    assert list((inbox / "new").iterdir()) == []
    contents = sorted(p.read_bytes() for p in (inbox / "cur").iterdir())
    assert contents == sorted([first, second, kept, third]), "no mail is lost"
    assert (inbox / "cur" / f"{t0}.Y:2,RS").read_bytes() == kept


def _bomb(path: Path, size: int) -> Path:
    part = b"--w\n\nx\n"
    head = b"From: north@example.org\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=w\n\n"
    path.write_bytes(head + part * ((size - 200) // len(part)) + b"--w--\n")
    return path


def test_a_mime_part_bomb_is_refused_at_once_in_little_memory(tmp_path: Path, mini_campaign: Path) -> None:
    """25 MB of 3.7 million empty parts: one refusal line in well under a second, no reply."""
    new = mini_campaign / "inbox" / "new"
    t0 = int(parse_time(NOW).timestamp())
    _bomb(new / f"{t0}.M1P1.host", 25 * 2**20 - 1024)
    queued = sorted((mini_campaign / "outbox").iterdir())
    baseline, _, base_rss = _pbem("status", str(mini_campaign), "--now", NOW)
    assert baseline.returncode == 0
    result, elapsed, rss = _pbem("intake", str(mini_campaign), str(mini_campaign / "inbox"), "--now", NOW)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("refused: ") and f"more than {MAX_PARTS:,} parts" in lines[0], lines
    # the command's own start-up (Python, the game) is the baseline; the mail adds little to it
    print(f"part bomb: {elapsed:.2f} s, {rss / 1024:.0f} MiB peak ({base_rss / 1024:.0f} MiB for pbem status)")
    assert elapsed < 5.0, f"{elapsed:.1f} s"
    assert rss - base_rss < 150 * 1024, f"{(rss - base_rss) / 1024:.0f} MiB over the baseline"
    assert sorted((mini_campaign / "outbox").iterdir()) == queued, "no reply for a mail nobody can be sure of"


def _many_parts(doc: bytes, parts: int) -> bytes:
    """A multipart mail of ``parts`` parts in all: the container, the order file, small files."""
    head = b"From: north@example.org\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n"
    yaml = b"--b\nContent-Type: text/yaml\nContent-Disposition: attachment; filename=o.yaml\n\n" + doc + b"\n"
    files = b"".join(b"--b\nContent-Type: application/octet-stream\n\nx\n" for _ in range(parts - 2))
    return head + yaml + files + b"--b--\n"


def test_the_part_cap_keeps_ordinary_mails(tmp_path: Path, keys: dict[str, Path]) -> None:
    from pbem.core.mailin import _extract_bytes

    doc = _bids(tmp_path, keys)["north"].read_bytes()
    found = _extract_bytes(_many_parts(doc, MAX_PARTS), "big.eml", 64 * 1024, None)
    assert [c.problem for c in found] == [None] and found[0].raw is not None and found[0].raw.startswith(b"pbem: 1")
    over = _extract_bytes(_many_parts(doc, MAX_PARTS + 1), "big.eml", 64 * 1024, None)
    assert len(over) == 1 and over[0].problem is not None and f"more than {MAX_PARTS:,} parts" in over[0].problem
    bomb = _bomb(tmp_path / "bomb.eml", 25 * 2**20 - 1024).read_bytes()
    start = time.perf_counter()
    refused = _extract_bytes(bomb, "bomb.eml", 64 * 1024, None)
    assert time.perf_counter() - start < 0.5 and len(refused) == 1 and refused[0].sender is None


def test_pbem_run_is_not_stalled_by_a_fifo(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    bids = _bids(tmp_path, keys)
    new = mini_campaign / "inbox" / "new"
    t0 = int(parse_time(NOW).timestamp())
    os.mkfifo(new / f"{t0}.M1P1.host")
    _write(new / f"{t0}.M2P1.host", attached(bids["north"], "north@example.org"))
    result, elapsed, _ = _pbem("run", str(mini_campaign), "--quiet", "--now", NOW, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 accepted, 1 refused" in result.stdout and "SKIPPED" not in result.stdout
    assert list(new.iterdir()) == []
