"""Operating-system errors (disk full, read-only file system, a path that is not a folder) are one
line on stderr and exit status 1 in every command, never a traceback; ``pbem run`` names the
campaign and the error on its line and goes on with the others. Security finding L6."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import NOW, TESTS, require_service, run_cli
from orders_util import signed
from smtpserver import SmtpServer

MINI = str(TESTS / "pbem_mini.py")
LATER = "2026-12-05T12:00:00Z"


def _pbem(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS.parent), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, MINI, *args], capture_output=True, text=True, env=env, timeout=120)


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    assert lines[0].startswith("pbem: "), stderr
    return lines[0]


def _bid(tmp: Path, camp: Path, key: Path) -> Path:
    import json

    state = json.loads((camp / "states" / "000000.json").read_bytes())
    return signed(tmp, key, "mini-1", "north", "round-1", {"N": {"bid": state["hands"]["N"][0]}})


def test_intake_of_a_missing_path_is_one_line_and_exit_1(tmp_path: Path, mini_campaign: Path) -> None:
    """Experience finding: ``pbem intake DIR MISSING_PATH`` exits 1 with one line."""
    result = _pbem("intake", str(mini_campaign), str(tmp_path / "nowhere.yaml"))
    assert result.returncode == 1
    assert "nowhere.yaml" in _one_line(result.stderr) and "no such file or folder" in result.stderr
    assert not list((mini_campaign / "refused").glob("*")) if (mini_campaign / "refused").exists() else True


def test_a_path_that_is_not_a_folder_is_one_line_in_resolve(mini_campaign: Path) -> None:
    """A real OS error (ENOTDIR): the reports folder is a file."""
    shutil.rmtree(mini_campaign / "reports", ignore_errors=True)
    (mini_campaign / "reports").write_text("not a folder\n")
    result = _pbem("resolve", str(mini_campaign), "--force", "--now", NOW)
    assert result.returncode == 1
    assert "Not a directory" in _one_line(result.stderr) and "reports" in result.stderr


@pytest.mark.parametrize("command", ["intake", "resolve", "new", "send"])
def test_disk_full_is_one_line_in_every_command(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path],
                                                 monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    """ENOSPC injected at the OS boundary (os.replace, which every atomic write ends with)."""
    from click.testing import CliRunner

    from pbem.cli import main

    bid = _bid(tmp_path, mini_campaign, keys["north"])
    args = {
        "intake": ["intake", str(mini_campaign), str(bid), "--now", NOW],
        "resolve": ["resolve", str(mini_campaign), "--force", "--now", NOW],
        "new": ["new", str(tmp_path / "other"), "--deal-now", "--game", "mini", "--scenario", "short", "--id", "mini-2",
                "--player", f"north=n@example.org:{keys['north'].with_suffix('.pub')}",
                "--player", f"south=s@example.org:{keys['south'].with_suffix('.pub')}", "--now", NOW],
        "send": ["send", str(mini_campaign), "--security", "none", "--retries", "0"],
    }[command]
    server = SmtpServer()
    if command == "send":
        run_cli("intake", str(mini_campaign), str(bid), "--now", NOW)  # queues a receipt
        server.__enter__()
        args += ["--smtp", server.address]

    def full(src: object, dst: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(src))

    monkeypatch.setattr(os, "replace", full)
    monkeypatch.setattr(os, "rename", full)
    try:
        result = CliRunner().invoke(main, args)
    finally:
        if command == "send":
            server.__exit__(None, None, None)
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    line = _one_line(result.stderr)
    assert "No space left on device" in line


def test_run_names_the_campaign_and_the_os_error(tmp_path: Path, keys: dict[str, Path]) -> None:
    root = tmp_path / "root"
    for name in ("a", "b"):
        run_cli("new", str(root / name), "--deal-now", "--game", "mini", "--scenario", "short", "--id", f"mini-{name}",
                "--player", f"north=n@example.org:{keys['north'].with_suffix('.pub')}",
                "--player", f"south=s@example.org:{keys['south'].with_suffix('.pub')}", "--outage-share", "0", "--now", NOW)
    shutil.rmtree(root / "a" / "reports", ignore_errors=True)
    (root / "a" / "reports").write_text("not a folder\n")
    result = _pbem("run", str(root), "--quiet", "--now", LATER)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    bad = next(line for line in lines if line.startswith(str(root / "a")))
    assert "SKIPPED" in bad and "Not a directory" in bad and "reports" in bad and "internal error" not in bad, bad
    good = next(line for line in lines if line.startswith(str(root / "b")))
    assert "1 phase(s) resolved" in good, good
    assert "Traceback" not in result.stderr


def _unshare_ok() -> bool:
    if not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-Urm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
                           capture_output=True, timeout=20)
    return probe.returncode == 0


@pytest.mark.parametrize("trouble", ["full", "read-only"])
def test_a_full_or_read_only_file_system_is_one_line(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path], trouble: str) -> None:
    """A real full (or read-only) tmpfs, mounted in a private mount namespace."""
    require_service(_unshare_ok(), "cannot mount a private tmpfs here (unshare -Urm)")
    run_cli("intake", str(mini_campaign), str(_bid(tmp_path, mini_campaign, keys["north"])), "--now", NOW)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    spoil = f"dd if=/dev/zero of={mnt}/fill bs=4k 2>/dev/null; true" if trouble == "full" else f"mount -o remount,ro {mnt}"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS.parent), os.environ.get("PYTHONPATH", "")]))
    script = (
        f"mount -t tmpfs -o size=8m tmpfs {mnt} && cp -a {mini_campaign} {mnt}/camp && {spoil}; "
        f"{sys.executable} {MINI} resolve {mnt}/camp --force --now {NOW} >{out}/stdout 2>{out}/stderr; echo $? >{out}/rc"
    )
    subprocess.run(["unshare", "-Urm", "sh", "-c", script], env=env, timeout=120, check=True)
    assert (out / "rc").read_text().strip() == "1", (out / "stderr").read_text()
    line = _one_line((out / "stderr").read_text())
    assert ("No space left on device" if trouble == "full" else "Read-only file system") in line, line
