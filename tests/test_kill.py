"""Crash safety: ``pbem intake`` and ``pbem resolve`` killed with SIGKILL at many moments, then
``pbem audit`` accepts the campaign and rerunning the same command (same ``--now``) ends in a
campaign folder byte-identical to an uninterrupted run (every file but ``lock``). DESIGN: "A crash
anywhere leaves the campaign either before or after the phase, and running the same command again
finishes the job with the same result."

The kill moments are of two kinds:

* deterministic: this file doubles as a harness (``python tests/test_kill.py N pbem-args...``)
  that runs the mini-game CLI and sends itself SIGKILL just before its N-th call of
  ``os.fsync``/``os.replace``/``os.rename`` or of a group commit's flush — before and after
  every atomic write's rename and every Maildir move, so at each boundary a file appears;
* timed: the real command killed from outside after evenly spaced fractions of its measured run
  time.
"""

from __future__ import annotations

import os
import signal
import sys

if __name__ == "__main__":  # the harness: count file-system commits, die at the N-th
    _kill_at = int(sys.argv[1])
    _calls = [0]

    def _counting(fn):  # type: ignore[no-untyped-def]
        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            _calls[0] += 1
            if _calls[0] == _kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return fn(*args, **kwargs)

        return wrapper

    for _name in ("fsync", "replace", "rename"):
        setattr(os, _name, _counting(getattr(os, _name)))
    import pbem.core.atomic as _atomic

    _atomic._flush = _counting(_atomic._flush)  # a group commit's flush (one syncfs) is a moment too
    import atexit
    import runpy

    atexit.register(lambda: os.write(2, f"\nfs-calls: {_calls[0]}\n".encode()))
    _mini = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pbem_mini.py")
    sys.argv = [_mini, *sys.argv[2:]]
    runpy.run_path(_mini, run_name="__main__")
    raise SystemExit(0)

import json  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from email.message import EmailMessage  # noqa: E402
from email.policy import SMTP  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from conftest import NOW, run_cli  # noqa: E402
from orders_util import signed  # noqa: E402

from pbem.core.audit import audit  # noqa: E402
from pbem.core.campaign import Campaign, parse_time  # noqa: E402
from pbem.core.intake import intake  # noqa: E402
from pbem.core.phase import resolve  # noqa: E402

HARNESS = Path(__file__).resolve()
TIMED_KILLS = 8


def _files(camp: Path) -> dict[str, bytes]:
    return {str(p.relative_to(camp)): p.read_bytes() for p in sorted(camp.rglob("*")) if p.is_file() and p.name != "lock"}


def _hands(camp: Path) -> dict[str, list[int]]:
    last = sorted((camp / "states").glob("[0-9]*[0-9].json"))[-1]
    return json.loads(last.read_bytes())["hands"]


def _mail(sender: str, n: int, attachment: bytes | None = None, body: str = "") -> bytes:
    msg = EmailMessage(policy=SMTP)
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = sender, "gm@example.org", f"orders {n}", f"<k{n}@example.org>"
    msg.set_content(body or "orders attached\n")
    if attachment is not None:
        msg.add_attachment(attachment, maintype="text", subtype="yaml", filename="orders.yaml")
    return msg.as_bytes(policy=SMTP)


def _run(args: list[str], kill_at: int = 0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(HARNESS), str(kill_at), *args], capture_output=True, text=True, timeout=60)


def _boundaries(args: list[str], camp: Path) -> int:
    """How many fs commits the uninterrupted command makes (run on a scratch copy)."""
    proc = _run(args)
    assert proc.returncode == 0, proc.stderr
    return int(re.findall(r"fs-calls: (\d+)", proc.stderr)[-1])


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Keys, a mini campaign in its last round with a Maildir of mails, and one in its last round
    with every order in (ready to resolve, which also appends the end record)."""
    root = tmp_path_factory.mktemp("kill")
    keys = {}
    for name in ("north", "south", "mallory"):
        run_cli("keygen", name, "-o", str(root / "keys"))
        keys[name] = root / "keys" / f"{name}.key"
    camp = root / "camp"
    run_cli(
        "new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short", "--id", "mini-1",
        "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
        "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}", "--now", NOW,
    )
    for rnd in (1, 2):
        hands = _hands(camp)
        docs = [signed(root, keys["north"], "mini-1", "north", f"round-{rnd}", {"N": {"bid": hands["N"][0]}}),
                signed(root, keys["south"], "mini-1", "south", f"round-{rnd}", {"S": {"bid": hands["S"][0]}})]
        with Campaign(camp).locked() as c:
            assert intake(c, docs, parse_time(NOW)).accepted == 2
            resolve(c, parse_time(NOW))
    hands = _hands(camp)
    n1 = signed(root, keys["north"], "mini-1", "north", "round-3", {"N": {"bid": hands["N"][0]}}, name="n1")
    n2 = signed(root, keys["north"], "mini-1", "north", "round-3", {"N": {"bid": hands["N"][-1]}}, name="n2")
    s1 = signed(root, keys["south"], "mini-1", "south", "round-3", {"S": {"bid": hands["S"][0]}}, name="s1")
    s2 = signed(root, keys["south"], "mini-1", "south", "round-3", {"S": {"bid": hands["S"][1]}}, name="s2")
    forged = signed(root, keys["mallory"], "mini-1", "north", "round-3", {"N": {"bid": 0}}, name="forged")
    t0 = int(parse_time(NOW).timestamp())
    mails = {
        f"{t0 + 1}.M1P1.kill": _mail("north@example.org", 1, n1.read_bytes()),
        f"{t0 + 2}.M2P1.kill": _mail("south@example.org", 2, body="Hello,\n\n" + s1.read_text()),
        f"{t0 + 3}.M3P1.kill": _mail("north@example.org", 3, forged.read_bytes()),
        f"{t0 + 4}.M4P1.kill": _mail("south@example.org", 4, body="no orders here\n"),
        f"{t0 + 5}.M5P1.kill": _mail("north@example.org", 5, n2.read_bytes()),
    }
    for name, data in mails.items():
        (camp / "inbox" / "new" / name).write_bytes(data)
    extra = root / "south-late.yaml"
    shutil.copy(s2, extra)
    ready = root / "ready"
    shutil.copytree(camp, ready)
    with Campaign(ready).locked() as c:
        intake(c, [ready / "inbox", extra], parse_time(NOW))
    return {"root": root, "intake": camp, "extra": extra, "resolve": ready}


PUBLISHED = re.compile(r"^(reports/|outbox/report-)")


def _kill_and_recover(kind: str, setup: dict[str, Path], tmp_path: Path, boundary_kills: int) -> tuple[int, list[str], list[str]]:
    """Kill the command at every moment; return the number of moments, the moments after which
    the rerun's files differ outside the published reports, and those where any file differs."""
    base = setup[kind]

    def args(camp: Path) -> list[str]:
        if kind == "intake":
            return ["intake", str(camp), str(camp / "inbox"), str(setup["extra"]), "--now", NOW]
        return ["resolve", str(camp), "--now", NOW]

    # a first run fills pbem's cache folder (compiled templates, map tiles), so the reference run
    # makes the fs commits every later run makes
    warm = tmp_path / "warm"
    shutil.copytree(base, warm)
    assert _run(args(warm)).returncode == 0
    reference = tmp_path / "reference"
    shutil.copytree(base, reference)
    started = time.monotonic()
    total = _boundaries(args(reference), reference)
    duration = time.monotonic() - started
    expected = _files(reference)
    assert expected != _files(base), "the command did nothing"
    step = max(1, -(-total // boundary_kills))
    moments: list[tuple[str, float]] = [("boundary", n) for n in range(1, total + 1, step)]
    moments += [("timed", duration * (i + 1) / (TIMED_KILLS + 1)) for i in range(TIMED_KILLS)]
    core_failures, failures = [], []
    for i, (how, when) in enumerate(moments):
        camp = tmp_path / f"m{i}"
        shutil.copytree(base, camp)
        if how == "boundary":
            proc = _run(args(camp), kill_at=int(when))
            assert proc.returncode == -signal.SIGKILL, f"boundary {when} of {total}: not killed ({proc.returncode}): {proc.stderr[-2000:]}"
        else:
            p = subprocess.Popen([sys.executable, str(HARNESS), "0", *args(camp)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(when)
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=60)
        audit(Campaign(camp))  # raises AuditError naming the first mismatch
        rerun = run_cli(*args(camp), ok=False)
        assert rerun.exit_code == 0, f"{how} {when}: rerun failed: {rerun.output}"
        got = _files(camp)
        diff = sorted(k for k in set(got) | set(expected) if got.get(k) != expected.get(k))
        if diff:
            failures.append(f"{how} kill at {when:.3f}: {diff}")
        if [k for k in diff if not PUBLISHED.match(k)]:
            core_failures.append(f"{how} kill at {when:.3f}: {diff}")
    print(f"{kind}: {len(moments)} kill moments ({total} boundaries, every {step}th, + {TIMED_KILLS} timed), run {duration:.2f}s")
    return len(moments), core_failures, failures


def test_intake_killed_at_every_boundary_recovers(setup: dict[str, Path], tmp_path: Path) -> None:
    count, core_failures, failures = _kill_and_recover("intake", setup, tmp_path, 40)
    assert count >= 20
    assert failures == []


@pytest.fixture(scope="module")
def resolve_kills(setup: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[int, list[str], list[str]]:
    return _kill_and_recover("resolve", setup, tmp_path_factory.mktemp("resolve"), 16)


def test_resolve_killed_at_every_boundary_recovers(resolve_kills: tuple[int, list[str], list[str]]) -> None:
    """Archive, states, orders, seed, inbox and receipts end byte-identical after any kill."""
    count, core_failures, _ = resolve_kills
    assert count >= 15
    assert core_failures == []


def test_resolve_killed_rerun_also_finishes_publishing(resolve_kills: tuple[int, list[str], list[str]]) -> None:
    _, _, failures = resolve_kills
    assert failures == []
