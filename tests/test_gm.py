"""Deadlines, grace, extensions, pauses, autopilot, the outage guard, replace-player, rollback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import NOW, run_cli
from orders_util import signed, write_orders

DEADLINE = "2026-12-03T12:00:00Z"  # NOW + 48h (stage deadline of the mini_campaign fixture)


def _state(camp: Path) -> dict[str, Any]:
    rec = json.loads(max((camp / "archive").glob("*.json")).read_bytes())
    index = rec.get("state_of", rec["index"]) if "state_hash" in rec else None
    if index is None:
        states = sorted(p for p in (camp / "states").glob("[0-9]*.json") if "events" not in p.name)
        return json.loads(states[-1].read_bytes())
    return json.loads((camp / "states" / f"{index:06d}.json").read_bytes())


def _bid(tmp: Path, camp: Path, keys: dict[str, Path], seat: str, phase: str = "round-1", name: str | None = None) -> Path:
    power = seat[0].upper()
    return signed(tmp, keys[seat], "mini-1", seat, phase, {power: {"bid": _state(camp)["hands"][power][0]}}, name=name)


def _records(camp: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_bytes()) for p in sorted((camp / "archive").glob("*.json"))]


def test_deadline_refuses_late_orders_and_status_shows_it(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    assert f"deadline {DEADLINE}" in run_cli("status", str(mini_campaign), "--now", NOW).output
    late = run_cli("intake", str(mini_campaign), str(_bid(tmp_path, mini_campaign, keys, "north")), "--now", "2026-12-03T12:00:01Z")
    assert "after the deadline 2026-12-03T12:00:00Z" in late.output
    assert not list((mini_campaign / "orders").glob("*/*.yaml"))


def test_extend_moves_the_deadline_and_is_recorded(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    out = run_cli("extend", str(mini_campaign), "--by", "24h", "--reason", "holiday", "--now", NOW).output
    assert "deadline now 2026-12-04T12:00:00Z" in out
    ok = run_cli("intake", str(mini_campaign), str(_bid(tmp_path, mini_campaign, keys, "north")), "--now", "2026-12-04T11:00:00Z")
    assert "accepted:" in ok.output
    assert _records(mini_campaign)[-1]["kind"] == "extend"
    assert "audit passed" in run_cli("audit", str(mini_campaign)).output


def test_grace_accepts_late_orders_and_delays_resolution(tmp_path: Path, keys: dict[str, Path]) -> None:
    camp = tmp_path / "g"
    run_cli("new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short", "--id", "mini-1",
            "--player", f"north=n@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=s@example.org:{keys['south'].with_suffix('.pub')}",
            "--deadline", "stage=48h", "--grace", "2h", "--now", NOW)
    assert "accepted:" in run_cli("intake", str(camp), str(_bid(tmp_path, camp, keys, "north")), "--now", "2026-12-03T13:00:00Z").output
    assert "not due" in run_cli("resolve", str(camp), "--now", "2026-12-03T13:30:00Z").output
    assert "resolved round-1" in run_cli("resolve", str(camp), "--now", "2026-12-03T14:00:00Z").output


def _request(tmp: Path, keys: dict[str, Path], seat: str, kind: str, seq: int) -> Path:
    src = tmp / f"{seat}-{kind}-{seq}-src.yaml"
    src.write_text(f"pbem: 1\ncampaign: mini-1\nplayer: {seat}\nphase: round-1\nseq: {seq}\nrequest: {{kind: {kind}}}\n")
    out = tmp / f"{seat}-{kind}-{seq}.yaml"
    run_cli("sign", str(src), "--key", str(keys[seat]), "-o", str(out))
    return out


def test_pause_needs_a_signed_majority_and_resume_extends_the_deadline(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    run_cli("intake", str(mini_campaign), str(_request(tmp_path, keys, "north", "pause", 1)), "--now", NOW)
    assert not any(r["kind"] == "pause" for r in _records(mini_campaign)), "one of two players is not a majority"
    run_cli("intake", str(mini_campaign), str(_request(tmp_path, keys, "south", "pause", 1)), "--now", NOW)
    pause = _records(mini_campaign)[-1]
    assert pause["kind"] == "pause" and sorted(pause["requests"]) == ["north", "south"]
    status = run_cli("status", str(mini_campaign), "--now", "2026-12-10T00:00:00Z").output
    assert "paused since" in status
    assert "not due" in run_cli("resolve", str(mini_campaign), "--now", "2026-12-10T00:00:00Z").output
    for seat in ("north", "south"):
        run_cli("intake", str(mini_campaign), str(_request(tmp_path, keys, seat, "resume", 2)), "--now", "2026-12-02T12:00:00Z")
    resume = _records(mini_campaign)[-1]
    assert resume["kind"] == "resume" and resume["seconds"] == 24 * 3600
    assert "deadline 2026-12-04T12:00:00Z" in run_cli("status", str(mini_campaign), "--now", "2026-12-02T12:00:00Z").output
    assert "audit passed" in run_cli("audit", str(mini_campaign)).output


def test_outage_guard_holds_until_the_gm_confirms(mini_campaign: Path) -> None:
    held = run_cli("resolve", str(mini_campaign), "--now", "2026-12-05T00:00:00Z").output
    assert "not due: held: 2 of 2 players sent nothing" in held
    out = run_cli("resolve", str(mini_campaign), "--confirm-missing", "--now", "2026-12-05T00:00:00Z").output
    assert "resolved round-1" in out and "defaults used" in out


def test_autopilot_takes_over_after_missed_deadlines(tmp_path: Path, keys: dict[str, Path]) -> None:
    camp = tmp_path / "a"
    run_cli("new", str(camp), "--deal-now", "--game", "mini", "--scenario", "long", "--id", "mini-1",
            "--player", f"north=n@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=s@example.org:{keys['south'].with_suffix('.pub')}",
            "--deadline", "stage=1h", "--autopilot-after", "2", "--now", NOW)
    for n in range(1, 5):
        doc = _bid(tmp_path, camp, keys, "north", f"round-{n}", name=f"n{n}")
        run_cli("intake", str(camp), str(doc), "--now", NOW)
        run_cli("resolve", str(camp), "--force", "--now", NOW)
    phases = [r for r in _records(camp) if r["kind"] == "phase"]
    assert [r["missing_seats"] for r in phases] == [["south"]] * 4
    assert [r["autopilot"] for r in phases] == [[], [], ["S"], ["S"]]
    assert "4 phases replayed" in run_cli("audit", str(camp)).output
    # the public report says who played the seat
    reports = sorted(p for p in (camp / "reports").iterdir() if p.is_dir() and "round" in p.name)
    told = [(p / "public.txt").read_text(encoding="utf-8") for p in reports]
    assert ["The autopilot played S" in t for t in told] == [False, False, True, True]
    assert ["No orders arrived from S" in t for t in told] == [True, True, False, False]


def test_replace_player_new_key_counts_old_key_refused(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    old_doc = _bid(tmp_path, mini_campaign, keys, "south", name="old")
    run_cli("intake", str(mini_campaign), str(old_doc), "--now", NOW)
    run_cli("replace-player", str(mini_campaign), f"south=m@example.org:{keys['mallory'].with_suffix('.pub')}", "--now", NOW)
    # the old player's pending orders no longer count
    assert "waiting" in run_cli("status", str(mini_campaign), "--now", NOW).output.split("S ")[1].splitlines()[0]
    again = _bid(tmp_path, mini_campaign, keys, "south", name="again")
    assert "not the roster key of 'south'" in run_cli("intake", str(mini_campaign), str(again), "--now", NOW).output
    state = _state(mini_campaign)
    src = write_orders(tmp_path / "m-src.yaml", "mini-1", "south", "round-1", {"S": {"bid": state["hands"]["S"][0]}}, seq=5)
    run_cli("sign", str(src), "--key", str(keys["mallory"]), "-o", str(tmp_path / "m.yaml"))
    assert "accepted:" in run_cli("intake", str(mini_campaign), str(tmp_path / "m.yaml"), "--now", NOW).output
    run_cli("intake", str(mini_campaign), str(_bid(tmp_path, mini_campaign, keys, "north")), "--now", NOW)
    assert "resolved round-1" in run_cli("resolve", str(mini_campaign), "--now", NOW).output
    rec = [r for r in _records(mini_campaign) if r["kind"] == "phase"][0]
    assert rec["orders"]["south"]["seq"] == 5
    assert "audit passed" in run_cli("audit", str(mini_campaign)).output


def test_rollback_reopens_a_phase_keeps_history_and_audits(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    old = {seat: _bid(tmp_path, mini_campaign, keys, seat) for seat in ("north", "south")}
    for doc in old.values():
        run_cli("intake", str(mini_campaign), str(doc), "--now", NOW)
    run_cli("resolve", str(mini_campaign), "--now", NOW)
    for mail in (mini_campaign / "outbox").glob("*.eml"):  # as if pbem send had delivered them
        mail.rename(mini_campaign / "sent" / mail.name)
    first_reports = sorted(p.name for p in (mini_campaign / "sent").glob("report-0001-*.eml"))
    before = _records(mini_campaign)
    first_state = json.loads((mini_campaign / "states" / "000000.json").read_bytes())
    out = run_cli("rollback", str(mini_campaign), "--to", "round-1", "--now", "2026-12-02T09:00:00Z").output
    assert "reopened round-1" in out and "new deadline 2026-12-04T09:00:00Z" in out
    after = _records(mini_campaign)
    assert after[: len(before)] == before, "nothing is deleted or changed"
    assert after[-1]["kind"] == "rollback" and after[-1]["state_hash"] == after[0]["state_hash"]
    assert _state(mini_campaign) == first_state
    # H5: a fresh deadline, and the superseded orders no longer count as orders in
    status = run_cli("status", str(mini_campaign), "--now", "2026-12-02T09:00:00Z").output
    assert "phase round-1" in status and "deadline 2026-12-04T09:00:00Z" in status
    assert "orders in" not in status and "due: no" in status
    assert "not due" in run_cli("resolve", str(mini_campaign), "--now", "2026-12-02T10:00:00Z").output
    # every player is told, with the new deadline
    notices = sorted((mini_campaign / "outbox").glob("notice-*.eml"))
    assert [n.read_text().split("To: ")[1].split("\n")[0].strip() for n in notices] == ["north@example.org", "south@example.org"]
    assert all("2026-12-04 09:00 UTC" in n.read_text() and "seq 2 or more" in n.read_text() for n in notices)
    # an old signed file cannot be replayed into the reopened phase; a new one with a higher seq counts
    assert "looks like a replay" in run_cli("intake", str(mini_campaign), str(old["north"]), "--now", "2026-12-02T10:00:00Z").output
    state = _state(mini_campaign)
    for seat in ("north", "south"):
        power = seat[0].upper()
        doc = signed(tmp_path, keys[seat], "mini-1", seat, "round-1", {power: {"bid": state["hands"][power][-1]}}, seq=2, name=f"{seat}-again")
        assert "accepted: " in run_cli("intake", str(mini_campaign), str(doc), "--now", "2026-12-02T10:00:00Z").output
    again = run_cli("resolve", str(mini_campaign), "--now", "2026-12-02T11:00:00Z").output
    assert "resolved round-1" in again
    recs = _records(mini_campaign)
    assert [recs[-1]["orders"][s]["seq"] for s in ("north", "south")] == [2, 2]
    # the corrected reports are new mails, not skipped because the first ones were sent
    corrected = sorted(p.name for p in (mini_campaign / "outbox").glob("report-0001-*.eml"))
    assert len(corrected) == 2 and not set(corrected) & set(first_reports)
    assert "audit passed" in run_cli("audit", str(mini_campaign)).output


def test_resend_request_mails_the_latest_report_again_once(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    for seat in ("north", "south"):
        run_cli("intake", str(mini_campaign), str(_bid(tmp_path, mini_campaign, keys, seat)), "--now", NOW)
    run_cli("resolve", str(mini_campaign), "--now", NOW)
    reports = sorted((mini_campaign / "outbox").glob("report-*-north.eml"))
    assert reports, "resolving publishes a report mail per seat"
    src = tmp_path / "resend-src.yaml"
    src.write_text("pbem: 1\ncampaign: mini-1\nplayer: north\nphase: round-2\nrequest: {kind: resend}\n")
    run_cli("sign", str(src), "--key", str(keys["north"]), "-o", str(tmp_path / "resend.yaml"))
    for _ in range(2):  # a rerun of the same intake sends no second copy
        run_cli("intake", str(mini_campaign), str(tmp_path / "resend.yaml"), "--now", NOW)
    copies = list((mini_campaign / "outbox").glob("resend-*.eml"))
    assert len(copies) == 1
    text, original = copies[0].read_text(), reports[-1].read_text()
    assert "Subject: [resent]" in text and "To: north@example.org" in text
    assert text.split("Message-ID:")[1].splitlines()[0] != original.split("Message-ID:")[1].splitlines()[0]
    assert text.split("\n\n", 1)[1] == original.split("\n\n", 1)[1], "the same report body"


def test_a_pause_past_the_deadline_can_be_resumed_and_moves_the_deadline(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    """Security H4: lateness during a pause is measured against the deadline plus the time paused."""
    for seat in ("north", "south"):
        run_cli("intake", str(mini_campaign), str(_request(tmp_path, keys, seat, "pause", 1)), "--now", NOW)
    assert _records(mini_campaign)[-1]["kind"] == "pause"
    # four days on, two past the deadline: orders sent while paused are on time
    late = "2026-12-05T12:00:00Z"
    out = run_cli("intake", str(mini_campaign), str(_bid(tmp_path, mini_campaign, keys, "north")), "--now", late).output
    assert "accepted:" in out and "after the deadline" not in out
    for seat in ("north", "south"):
        out = run_cli("intake", str(mini_campaign), str(_request(tmp_path, keys, seat, "resume", 2)), "--now", late).output
        assert out.startswith("accepted:"), out
    resume = _records(mini_campaign)[-1]
    assert resume["kind"] == "resume" and resume["seconds"] == 4 * 86400
    # the two days left at the pause are left after it: 2026-12-03T12:00Z + 4 days
    assert "deadline 2026-12-07T12:00:00Z" in run_cli("status", str(mini_campaign), "--now", late).output
    assert "not due" in run_cli("resolve", str(mini_campaign), "--now", "2026-12-07T11:59:00Z").output
    after = run_cli("intake", str(mini_campaign), str(_bid(tmp_path, mini_campaign, keys, "south")), "--now", "2026-12-07T12:00:01Z").output
    assert "after the deadline 2026-12-07T12:00:00Z" in after
    assert "resolved round-1" in run_cli("resolve", str(mini_campaign), "--now", "2026-12-07T12:00:00Z").output
    assert "audit passed" in run_cli("audit", str(mini_campaign)).output


def test_after_replace_player_seq_counts_only_the_new_key(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    """Security L5: the new player's first file (seq 1) is accepted after the old player's seq 3."""
    for n in range(3):  # pbem sign counts seq per key: 1, 2, 3
        doc = _bid(tmp_path, mini_campaign, keys, "south", name=f"old{n}")
        assert f"south seq {n + 1}" in run_cli("intake", str(mini_campaign), str(doc), "--now", NOW).output
    folder = next((mini_campaign / "orders").iterdir())
    old_files = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    run_cli("replace-player", str(mini_campaign), f"south=m@example.org:{keys['mallory'].with_suffix('.pub')}", "--now", NOW)
    state = _state(mini_campaign)
    src = write_orders(tmp_path / "m-src.yaml", "mini-1", "south", "round-1", {"S": {"bid": state["hands"]["S"][0]}})
    run_cli("sign", str(src), "--key", str(keys["mallory"]), "-o", str(tmp_path / "m.yaml"))
    out = run_cli("intake", str(mini_campaign), str(tmp_path / "m.yaml"), "--now", NOW).output
    assert "accepted: m.yaml: south seq 1" in out, out
    again = run_cli("intake", str(mini_campaign), str(tmp_path / "m.yaml"), "--now", NOW).output
    assert "already accepted: m.yaml: south seq 1" in again, again
    # the old player's accepted files are kept as they were
    assert all((folder / name).read_bytes() == data for name, data in old_files.items())
    receipts = [p.read_text() for p in (mini_campaign / "outbox").glob("receipt-*.eml") if "To: m@example.org" in p.read_text()]
    assert len(receipts) == 1 and "seq 1" in receipts[0]
    run_cli("intake", str(mini_campaign), str(_bid(tmp_path, mini_campaign, keys, "north")), "--now", NOW)
    assert "resolved round-1" in run_cli("resolve", str(mini_campaign), "--now", NOW).output
    rec = [r for r in _records(mini_campaign) if r["kind"] == "phase"][0]
    assert rec["orders"]["south"]["seq"] == 1
    assert "audit passed" in run_cli("audit", str(mini_campaign)).output


def test_resend_after_a_rollback_sends_the_report_in_force(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    run_cli("report", str(mini_campaign))
    for _ in range(2):
        run_cli("resolve", str(mini_campaign), "--force", "--now", NOW)
    for mail in (mini_campaign / "outbox").glob("*.eml"):
        mail.rename(mini_campaign / "sent" / mail.name)
    run_cli("rollback", str(mini_campaign), "--to", "round-1", "--now", NOW)

    def resend(seq: int, phase: str = "round-1") -> str:
        src = tmp_path / f"resend-{seq}-src.yaml"
        src.write_text(f"pbem: 1\ncampaign: mini-1\nplayer: north\nphase: {phase}\nseq: {seq}\nrequest: {{kind: resend}}\n")
        run_cli("sign", str(src), "--key", str(keys["north"]), "-o", str(tmp_path / f"resend-{seq}.yaml"))
        before = set((mini_campaign / "outbox").glob("resend-*.eml"))
        run_cli("intake", str(mini_campaign), str(tmp_path / f"resend-{seq}.yaml"), "--now", NOW)
        (copy,) = set((mini_campaign / "outbox").glob("resend-*.eml")) - before
        return copy.read_text()

    assert "Subject: [resent] [mini-1] " in resend(1)
    assert "round-2" not in resend(2).split("Subject:")[1].splitlines()[0], "not the report of a withdrawn phase"
    run_cli("resolve", str(mini_campaign), "--force", "--now", NOW)
    corrected = next((mini_campaign / "outbox").glob("report-0001-round-1.r*-north.eml")).read_text()
    assert resend(3, "round-2").split("\n\n", 1)[1] == corrected.split("\n\n", 1)[1]


def test_a_rollback_past_a_commitment_keeps_it_pending(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    """Rolled back to round-2, round-1's commitments are still pending: the reopened phase mixes
    an entropy value for each seat and the audit follows the commitments across the rollback."""
    for rnd in ("round-1", "round-2"):
        for seat in ("north", "south"):
            run_cli("intake", str(mini_campaign), str(_bid(tmp_path, mini_campaign, keys, seat, rnd, name=f"{seat}-{rnd}")),
                    "--now", NOW)
        run_cli("resolve", str(mini_campaign), "--force", "--now", NOW)
    run_cli("rollback", str(mini_campaign), "--to", "round-2", "--now", "2026-12-02T09:00:00Z")
    state = _state(mini_campaign)
    for seat in ("north", "south"):
        power = seat[0].upper()
        doc = signed(tmp_path, keys[seat], "mini-1", seat, "round-2", {power: {"bid": state["hands"][power][-1]}},
                     seq=2, name=f"{seat}-again")
        run_cli("intake", str(mini_campaign), str(doc), "--now", "2026-12-02T10:00:00Z")
    run_cli("resolve", str(mini_campaign), "--force", "--now", "2026-12-02T11:00:00Z")
    last = _records(mini_campaign)[-1]
    assert last["kind"] == "phase" and last["phase"] == "round-2"
    assert sorted(last["entropy"]) == ["north", "south"], last["entropy"]
    assert "audit passed" in run_cli("audit", str(mini_campaign)).output


def test_one_campaign_object_sees_a_roster_change_it_appends(mini_campaign: Path, keys: dict[str, Path]) -> None:
    """The roster is read once per state of the records: a change appended through the same
    object is seen at once, and a caller changing the dict it got changes nothing."""
    from pbem.core import gm
    from pbem.core.campaign import Campaign, Seat, parse_time
    from pbem.core.keys import load_public_key

    with Campaign(mini_campaign).locked() as camp:
        before = camp.roster()
        before.pop("north")
        assert set(camp.roster()) == {"north", "south"}
        assert camp.roster()["south"].email == "south@example.org"
        new = Seat("south", "m@example.org", load_public_key(str(keys["mallory"].with_suffix(".pub"))))
        gm.replace_player(camp, new, parse_time(NOW))
        assert camp.roster()["south"].email == "m@example.org"
        assert camp.roster()["south"].key.sign_id == new.key.sign_id
