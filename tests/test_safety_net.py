"""The safety net: nothing one player sends stops the campaign for the others.

- A mail that used to crash intake (security finding H2) sits in the Maildir with valid mails
  of two other players: one ``pbem run`` takes in the valid ones, refuses the bad one, moves
  every mail out of ``new/``, and the phase resolves at its deadline.
- If checking a file raises anyway (a bug in a game's checks), that file alone is refused as an
  internal error, its mail leaves ``new/``, and the GM sees it in ``pbem run`` and ``pbem status``.
- If resolving raises on one power's orders, the phase is resolved with that power's default
  orders, the record says why, the GM is told, and the audit's replay reaches the same state.

The last two use a copy of the test game with a deliberate bug: the shipped games have none we
know of, which is the point of the shape checks.
"""

from __future__ import annotations

import email.policy
import json
import subprocess
import sys
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from conftest import NOW, make_keys, run_cli
from minigame import MiniGame
from orders_util import signed

from pbem.common.fair import PhaseRng
from pbem.games import register
from pbem.games.base import OrderProblem, Resolution


class BuggyMini(MiniGame):
    """The test game with two bugs: its check hashes the bid (a list crashes it), and its
    rules divide by zero on an order with ``note: boom``."""

    name = "buggy"

    def validate(self, state: dict[str, Any], power: str, orders: Any) -> list[OrderProblem]:
        if isinstance(orders, dict) and orders.get("bid") in frozenset(state["hands"][power]):
            return []
        return super().validate(state, power, orders)

    def resolve(self, state: dict[str, Any], orders: dict[str, Any], rng: PhaseRng) -> Resolution:
        for power_orders in orders.values():
            if isinstance(power_orders, dict) and power_orders.get("note") == "boom":
                power_orders["ratio"] = 1 // 0
        return super().resolve(state, orders, rng)


register("buggy", BuggyMini())


def _mail(folder: Path, name: str, sender: str, attachment: bytes) -> None:
    m = EmailMessage(policy=email.policy.SMTP)
    m["From"], m["To"], m["Subject"], m["Message-ID"] = sender, "gm@example.org", "orders", f"<{name}@example.org>"
    m.set_content("my orders")
    m.add_attachment(attachment, maintype="text", subtype="yaml", filename="orders.yaml")
    (folder / "new" / name).write_bytes(m.as_bytes())


def _buggy_campaign(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    keys = make_keys(tmp_path / "keys", ("north", "south"))
    camp = tmp_path / "camp"
    run_cli("new", str(camp), "--deal-now", "--game", "buggy", "--scenario", "short", "--id", "b-1", "--outage-share", "0",
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}",
            "--deadline", "stage=48h", "--now", NOW)
    return camp, keys


def test_a_file_whose_check_raises_is_refused_alone_and_the_gm_is_told(tmp_path: Path) -> None:
    camp, keys = _buggy_campaign(tmp_path)
    hand = json.loads((camp / "states" / "000000.json").read_bytes())["hands"]
    bad = signed(tmp_path, keys["north"], "b-1", "north", "round-1", {"N": {"bid": [1, 2]}})
    good = signed(tmp_path, keys["south"], "b-1", "south", "round-1", {"S": {"bid": hand["S"][0]}})
    inbox = camp / "inbox"
    _mail(inbox, "1796122800.M1P1.host", "north@example.org", bad.read_bytes())
    _mail(inbox, "1796122801.M2P1.host", "south@example.org", good.read_bytes())
    out = run_cli("run", str(camp), "--now", NOW).output
    assert "1 accepted, 1 refused" in out, out
    assert "ATTENTION: refused by an internal error (see pbem status)" in out and "TypeError" in out, out
    assert not list((inbox / "new").iterdir())  # both mails left new/: the next run reads on
    status = run_cli("status", str(camp), "--now", NOW).output
    assert "ATTENTION: refused/" in status and "internal error TypeError" in status, status
    assert "S      south            orders in (seq 1)" in status
    (reply,) = list((camp / "outbox").glob("refused-*.eml"))
    text = reply.read_text()
    assert "To: north@example.org" in text and "could not be checked (an internal error of pbem)" in text
    assert "TypeError" not in text  # the details are for the GM
    # the next run is not stuck, and north can still send orders that work
    again = signed(tmp_path, keys["north"], "b-1", "north", "round-1", {"N": {"bid": hand["N"][0]}}, seq=2, name="n2")
    _mail(inbox, "1796122802.M3P1.host", "north@example.org", again.read_bytes())
    assert "1 phase(s) resolved, 1 accepted" in run_cli("run", str(camp), "--now", NOW).output


def test_orders_on_which_the_rules_raise_are_replaced_by_defaults_and_the_audit_agrees(tmp_path: Path) -> None:
    camp, keys = _buggy_campaign(tmp_path)
    hand = json.loads((camp / "states" / "000000.json").read_bytes())["hands"]
    boom = signed(tmp_path, keys["north"], "b-1", "north", "round-1", {"N": {"bid": hand["N"][-1], "note": "boom"}})
    fine = signed(tmp_path, keys["south"], "b-1", "south", "round-1", {"S": {"bid": hand["S"][-1]}})
    assert run_cli("intake", str(camp), str(boom), str(fine), "--now", NOW).output.count("accepted:") == 2
    out = run_cli("run", str(camp), "--now", NOW).output
    assert "1 phase(s) resolved" in out, out
    assert "ATTENTION: round-1: orders of N set aside: the rules failed on these orders (internal error ZeroDivisionError)" in out
    record = json.loads((camp / "archive" / "000001.json").read_bytes())
    assert set(record["voided"]) == {"N"} and "ZeroDivisionError" in record["voided"]["N"]
    events = json.loads((camp / "states" / "000001.events.json").read_bytes())
    bids = {e["power"]: e["bid"] for e in events if e["type"] == "bid"}
    assert events[0] == {"type": "void", "power": "N", "order": "orders", "audience": "north",
                         "reason": "pbem could not carry out these orders (an internal error); your default orders were used and the GM has been told"}
    assert bids == {"N": min(hand["N"]), "S": hand["S"][-1]}  # N's default order, S's own
    assert "ATTENTION: round-1: orders of N set aside" in run_cli("status", str(camp), "--now", NOW).output
    reports = camp / "reports" / "0001-round-1"
    assert "Your order was VOID (N): orders - pbem could not carry out these orders" in (reports / "private" / "north.txt").read_text()
    assert "VOID" not in (reports / "private" / "south.txt").read_text() + (reports / "public.txt").read_text()
    assert "audit passed" in run_cli("audit", str(camp)).output


def test_poison_mail_does_not_stall_the_campaign(tmp_path: Path) -> None:
    """H2 by mail, through ``python -m pbem run`` as the GM runs it: a list where a piece name
    belongs used to crash intake, leave the mail in new/ and skip the campaign on every run."""
    from test_shape import COMMIT, SEATS, _advance, _new, _write

    keys = make_keys(tmp_path / "keys", SEATS)
    camp = _new(tmp_path, keys)
    _advance(camp, keys, "prussia")
    base = {"pbem": 1, "campaign": "maria-a", "phase": "1741-1/prussia", "seq": 1, "entropy_commit": COMMIT}
    bad = _write(tmp_path, keys, {**base, "player": "frederick", "orders": {
        "PR": {"moves": [{"piece": ["dessauer"], "path": ["birnbaum"]}]}}}, "bad")
    louis = _write(tmp_path, keys, {**base, "player": "louis", "orders": {
        "FR": {"standing": {"hussar_policy": "refuse"}}}}, "louis")
    mt = _write(tmp_path, keys, {**base, "player": "maria_theresa", "orders": {
        "AU": {"standing": {"hussar_policy": "pay"}}}}, "mt")
    inbox = camp / "inbox"
    _mail(inbox, "1799063400.M0P1.host", "frederick@example.org", bad.read_bytes())
    _mail(inbox, "1799063401.M1P1.host", "louis@example.org", louis.read_bytes())
    _mail(inbox, "1799063402.M2P1.host", "maria_theresa@example.org", mt.read_bytes())

    def run(now: str) -> str:
        done = subprocess.run([sys.executable, "-m", "pbem", "run", str(camp), "--now", now],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return done.stdout

    out = run("2027-01-04T13:00:00Z")
    assert "SKIPPED" not in out and "2 accepted, 1 refused" in out and "0 phase(s) resolved" in out, out
    assert not list((inbox / "new").iterdir())
    out = run("2027-02-01T00:00:00Z")  # long after the deadline
    assert "1 phase(s) resolved" in out, out
    record = json.loads(sorted((camp / "archive").glob("*.json"))[-1].read_bytes())
    assert record["phase"] == "1741-1/prussia" and sorted(record["orders"]) == ["louis", "maria_theresa"]
    assert "PR" in record["defaults"]
    assert "audit passed" in run_cli("audit", str(camp)).output


@pytest.fixture(autouse=True)
def _registered() -> None:
    register("buggy", BuggyMini())
