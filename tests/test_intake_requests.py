"""Intake across runs (DESIGN: pause and resume, rollback, replace-player, entropy): signed
requests and the majority they make, the key a seat's files are named and counted by, the files
a rollback set aside and the entropy a seat still owes. Real signed files, the campaigns and
helpers of ``test_intake_checks.py``, intake in process."""

from __future__ import annotations

import gc
import json
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

from conftest import NOW, run_cli
from test_intake_checks import (  # noqa: F401 - the module's campaigns (fixtures) and helpers
    DEADLINE,
    World,
    camp_copy,
    commit,
    mail,
    reveal,
    round2,
    run,
    sign,
    texts,
    world,
)

from pbem.common.canonical import sha256_hex
from pbem.core.accepted import chosen_documents
from pbem.core.campaign import Campaign

# -- signed requests: pause, resume, resend ---------------------------------------------------------


def request(tmp_path: Path, w: World, seat: str, kind: str, seq: int, key: str | None = None, phase: str = "round-1") -> Path:
    return sign(tmp_path, w.keys, seat, f"{seat}-{kind}-{seq}-{key or seat}", key=key, request={"kind": kind}, seq=seq, phase=phase)


def records(camp: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_bytes()) for p in sorted((camp / "archive").glob("*.json"))]


def test_a_pause_takes_a_signed_majority_and_cites_each_request(world: World, tmp_path: Path) -> None:  # noqa: F811 - the fixtures imported above
    """DESIGN pause: the game pauses once a majority of the players sign a pause request; the
    record carries each request, so a public copy of the archive proves the majority."""
    camp = camp_copy(world.round1, tmp_path)
    north = request(tmp_path, world, "north", "pause", 1)
    report = run(camp, mail(tmp_path, "m1", "north@example.org", north))
    assert [v.line() for v in report.verdicts] == ["accepted: m1.eml (north-pause-1-north.yaml): north seq 1"]
    assert report.verdicts[0].message == "pause request accepted" and report.verdicts[0].request == "pause"
    rdir = camp / "orders" / "0001-round-1" / "requests"
    assert (rdir / "north.pause.000001.yaml").read_bytes() == north.read_bytes()
    assert [r["kind"] for r in records(camp)] == ["create"], "one of two players is not a majority"
    (receipt,) = texts(camp, "request")
    assert "To: north@example.org" in receipt and "Your request to pause the game (seq 1) is recorded" in receipt
    again = run(camp, mail(tmp_path, "m1", "north@example.org", north))
    assert again.verdicts[0].line() == "already accepted: m1.eml (north-pause-1-north.yaml): north seq 1" and again.accepted == 0
    south = request(tmp_path, world, "south", "pause", 1)
    run(camp, mail(tmp_path, "m2", "south@example.org", south), now="2026-12-01T13:00:00Z")
    pause = records(camp)[-1]
    assert pause["kind"] == "pause" and pause["phase"] == "round-1" and pause["phase_number"] == 1
    assert pause["resolved_at"] == "2026-12-01T13:00:00Z"
    assert pause["requests"] == {seat: {"file": f"orders/0001-round-1/requests/{seat}.pause.000001.yaml",
                                        "sha256": sha256_hex(f.read_bytes()), "text": f.read_text()}
                                 for seat, f in (("north", north), ("south", south))}
    notices = texts(camp, "notice")
    assert len(notices) == 2 and any("To: south@example.org" in t for t in notices)
    # a second majority for the pause that is in force adds nothing
    for seat in ("north", "south"):
        run(camp, request(tmp_path, world, seat, "pause", 2))
    assert [r["kind"] for r in records(camp)] == ["create", "pause"]


def test_a_file_taken_after_a_pause_in_the_same_run_is_pinned_to_the_pause(world: World, tmp_path: Path) -> None:  # noqa: F811 - the fixtures imported above
    """The receipt names the archive head a file was accepted on ('pbem audit --pin' checks it):
    orders taken after a pause record that the same run appended are pinned to that record."""
    camp = camp_copy(world.round1, tmp_path)
    before = Campaign(camp).pin()
    orders = sign(tmp_path, world.keys, "north", "n", orders={"N": {"bid": world.hands["N"][0]}})
    run(camp, request(tmp_path, world, "north", "pause", 1), request(tmp_path, world, "south", "pause", 1),
        mail(tmp_path, "m1", "north@example.org", orders))
    assert records(camp)[-1]["kind"] == "pause"
    head = Campaign(camp).pin()
    assert head != before
    verdict = json.loads((camp / "orders" / "0001-round-1" / "north.000001.yaml.verdict.json").read_bytes())
    assert verdict["archive_head"] == head
    (receipt,) = texts(camp, "receipt")
    assert head in receipt


def test_a_resume_counts_the_time_paused_and_a_seat_counts_its_latest_request(world: World, tmp_path: Path) -> None:  # noqa: F811 - the fixtures imported above
    """DESIGN pause: a majority of resume requests ends the pause and adds the time paused to
    the deadline; each seat counts with its latest request (by seq); a request whose seq is not
    above the seat's last is a replay."""
    camp = camp_copy(world.round1, tmp_path)
    # resume first, then pause: the pause (seq 2) is north's latest, though 'pause' sorts first
    run(camp, request(tmp_path, world, "north", "resume", 1), request(tmp_path, world, "north", "pause", 2))
    assert [r["kind"] for r in records(camp)] == ["create"], "a resume while nothing is paused does nothing"
    replay = request(tmp_path, world, "north", "resume", 2)
    report = run(camp, mail(tmp_path, "m1", "north@example.org", replay))
    assert report.verdicts[0].message == \
        "m1.eml (north-resume-2-north.yaml): seq: seq 2 is not above your last request's seq 2; this looks like a replay"
    assert report.verdicts[0].verified
    (refusal,) = texts(camp, "refused")
    assert "seq 2 is not above your last request's seq 2" in refusal
    run(camp, request(tmp_path, world, "south", "pause", 1))
    assert records(camp)[-1]["kind"] == "pause"
    # a day later both resume; while paused, late orders are on time
    later = "2026-12-04T12:00:00Z"  # a day past the deadline
    orders = sign(tmp_path, world.keys, "north", "late", orders={"N": {"bid": world.hands["N"][0]}})
    assert run(camp, orders, now=later).verdicts[0].accepted
    run(camp, request(tmp_path, world, "north", "resume", 3), request(tmp_path, world, "south", "resume", 2), now="2026-12-02T12:00:00Z")
    resume = records(camp)[-1]
    assert resume["kind"] == "resume" and resume["seconds"] == 24 * 3600 and sorted(resume["requests"]) == ["north", "south"]
    assert Campaign(camp).deadline("stage") == DEADLINE + timedelta(hours=24)


def test_a_resume_dated_before_its_pause_adds_no_time(world: World, tmp_path: Path) -> None:  # noqa: F811 - the fixtures imported above
    """A clock set back (a GM's --now before the pause) never shortens the deadline."""
    camp = camp_copy(world.round1, tmp_path)
    run(camp, request(tmp_path, world, "north", "pause", 1), request(tmp_path, world, "south", "pause", 1), now="2026-12-01T14:00:00Z")
    run(camp, request(tmp_path, world, "north", "resume", 2), request(tmp_path, world, "south", "resume", 2))
    assert records(camp)[-1]["kind"] == "resume" and records(camp)[-1]["seconds"] == 0


def test_a_resend_request_mails_the_latest_report_again(world: World, round2: Path, tmp_path: Path) -> None:  # noqa: F811 - the fixtures imported above
    """README: a player who lost the report asks for it again with a signed resend request."""
    camp = camp_copy(round2, tmp_path)
    f = request(tmp_path, world, "north", "resend", 1, phase="round-2")
    report = run(camp, mail(tmp_path, "m1", "north@example.org", f))
    assert report.verdicts[0].message == "resend request accepted"
    key = sha256_hex(f.read_bytes())[:24]
    assert [p.name for p in (camp / "outbox").glob("resend-*.eml")] == [f"resend-{key}.eml"]
    (receipt,) = texts(camp, "request")
    assert "another copy of your last report (seq 1)" in receipt


def test_after_a_new_player_takes_a_seat_only_the_new_key_counts(world: World, tmp_path: Path) -> None:  # noqa: F811 - the fixtures imported above
    """L5: after replace-player the new player's files are named by their key and their seqs
    compare among themselves; the old player's requests no longer count for a majority."""
    camp = camp_copy(world.round1, tmp_path)
    run(camp, request(tmp_path, world, "south", "pause", 4))  # the old south player
    run_cli("replace-player", str(camp), f"south=mal@example.org:{world.keys['mallory'].with_suffix('.pub')}", "--now", NOW)
    new_key = Campaign(camp).roster()["south"].key.sign_id
    tag = new_key.rpartition(":")[2][:12]
    run(camp, request(tmp_path, world, "north", "pause", 1))
    assert [r["kind"] for r in records(camp)][-1] == "roster", "the old player's pause does not count"
    report = run(camp, mail(tmp_path, "m1", "mal@example.org", request(tmp_path, world, "south", "pause", 1, key="mallory")))
    assert report.verdicts[0].line() == "accepted: m1.eml (south-pause-1-mallory.yaml): south seq 1"
    rdir = camp / "orders" / "0001-round-1" / "requests"
    assert sorted(p.name for p in rdir.iterdir()) == [
        "north.pause.000001.yaml", "south.pause.000001." + tag + ".yaml", "south.pause.000004.yaml"]
    assert records(camp)[-1]["kind"] == "pause" and sorted(records(camp)[-1]["requests"]) == ["north", "south"]
    replay = run(camp, request(tmp_path, world, "south", "resume", 1, key="mallory"))
    assert "seq 1 is not above your last request's seq 1" in replay.verdicts[0].message
    orders = sign(tmp_path, world.keys, "south", "mal-orders", key="mallory", orders={"S": {"bid": world.hands["S"][0]}})
    assert run(camp, mail(tmp_path, "m2", "mal@example.org", orders)).verdicts[0].line() == "accepted: m2.eml (mal-orders.yaml): south seq 1"
    assert (camp / "orders" / "0001-round-1" / f"south.000001.{tag}.yaml").read_bytes() == orders.read_bytes()
    (receipt,) = [t for t in texts(camp, "receipt") if "To: mal@example.org" in t]
    assert "orders accepted: round-1 seq 1" in receipt


def test_a_pause_begun_after_the_deadline_stops_the_clock_only_from_then(world: World, tmp_path: Path) -> None:  # noqa: F811 - the fixtures imported above
    """H4: lateness during a pause is measured against the deadline plus the time paused so
    far. A pause that began after the deadline (its requests were delivered before it, the GM
    ran later) excuses nothing delivered after the deadline and before the pause, and nothing
    delivered on time becomes late."""
    camp = camp_copy(world.round1, tmp_path)
    inbox = camp / "inbox"

    def deliver(at: timedelta, sender: str, f: Path) -> None:
        when = int((DEADLINE + at).timestamp())
        shutil.copy(mail(tmp_path, f.stem, sender, f), inbox / "new" / f"{when}.M{f.stem}P1.host")

    deliver(timedelta(hours=-3), "north@example.org", request(tmp_path, world, "north", "pause", 1))
    deliver(timedelta(hours=-3), "south@example.org", request(tmp_path, world, "south", "pause", 1))
    deliver(timedelta(hours=-1), "north@example.org", sign(tmp_path, world.keys, "north", "n", orders={"N": {"bid": world.hands["N"][0]}}))
    deliver(timedelta(hours=2), "south@example.org", sign(tmp_path, world.keys, "south", "s", orders={"S": {"bid": world.hands["S"][0]}}))
    report = run(camp, inbox, now=(DEADLINE + timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert records(camp)[-1]["kind"] == "pause" and records(camp)[-1]["resolved_at"] == "2026-12-03T15:00:00Z"
    assert [v.accepted for v in report.verdicts] == [True, True, True, False]
    assert "after the deadline 2026-12-03T12:00:00Z" in report.verdicts[3].message


def test_a_file_for_the_opening_in_force_is_taken(world: World, round2: Path, tmp_path: Path) -> None:  # noqa: F811 - the fixtures imported above
    """A file names the record that opened its phase ('opened'): the latest such record is
    taken, another refused naming the one in force."""
    camp = camp_copy(round2, tmp_path)
    hand = json.loads((camp / "states" / "000001.json").read_bytes())["hands"]["N"]
    ok = sign(tmp_path, world.keys, "north", "ok", phase="round-2", opened=1, orders={"N": {"bid": hand[0]}}, entropy_reveal=reveal("north"))
    old = sign(tmp_path, world.keys, "north", "old", phase="round-2", opened=2, seq=2, orders={"N": {"bid": hand[0]}})
    report = run(camp, ok, old)
    assert report.verdicts[0].line() == "accepted: ok.yaml: north seq 1"
    assert "as reopened by record 2, but the phase now waits as opened by record 1" in report.verdicts[1].message


# -- rollback, entropy reveals ------------------------------------------------------------------------


def test_after_a_rollback_the_set_aside_files_cannot_be_replayed(world: World, round2: Path, tmp_path: Path) -> None:  # noqa: F811 - the fixtures imported above
    """H5: a reopened phase takes only files with a seq above those the rollback set aside."""
    camp = camp_copy(round2, tmp_path)
    run_cli("rollback", str(camp), "--to", "round-1", "--now", NOW)
    old = sign(tmp_path, world.keys, "north", "old", orders={"N": {"bid": world.hands["N"][1]}})
    report = run(camp, old)
    assert "seq 1 is not above seq 1, which was already accepted for round-1; this looks like a replay. " \
           "To replace your orders, send them with seq 2 or more" in report.verdicts[0].message
    new = sign(tmp_path, world.keys, "north", "new", seq=2, orders={"N": {"bid": world.hands["N"][1]}}, entropy_reveal=reveal("north"))
    assert run(camp, new).verdicts[0].line() == "accepted: new.yaml: north seq 2"
    # on the next run the seat's file in the reopened phase (seq 2) outranks the set-aside one (seq 1)
    again = run(camp, new, sign(tmp_path, world.keys, "north", "new-b", seq=2, orders={"N": {"bid": world.hands["N"][2]}}))
    assert [v.line() for v in again.verdicts] == ["already accepted: new.yaml: north seq 2",
                                                  "refused: " + again.verdicts[1].message]
    assert "seq 2 is not above seq 2" in again.verdicts[1].message


def test_a_file_that_does_not_reveal_the_earlier_commitment_is_taken_with_a_warning(world: World, round2: Path, tmp_path: Path) -> None:  # noqa: F811 - the fixtures imported above
    """DESIGN entropy: a file that does not reveal the value its seat committed to in an earlier
    phase is accepted, but the receipt says its orders will not count."""
    camp = camp_copy(round2, tmp_path)
    hand = json.loads((camp / "states" / "000001.json").read_bytes())["hands"]["N"]
    files = {
        "good": dict(entropy_reveal=reveal("north")),
        "missing": dict(),
        "wrong": dict(entropy_reveal=reveal("north", 2)),
    }
    verdicts = {}
    for seq, (name, fields) in enumerate(files.items(), start=1):
        f = sign(tmp_path, world.keys, "north", name, seq=seq, phase="round-2", orders={"N": {"bid": hand[0]}},
                 entropy_commit=commit("north", 2), **fields)
        (verdicts[name],) = run(camp, f).verdicts
    warning = (f" your commitment {commit('north')[:16]}… of an earlier phase; this file's orders will not count "
               "(your defaults are played) unless a file with a higher seq reveals it. "
               "pbem sign and the order page keep the value beside your key")
    assert verdicts["good"].problems == []
    assert verdicts["missing"].problems == ["entropy_reveal: missing" + warning]
    assert verdicts["wrong"].problems == ["entropy_reveal: does not open" + warning]


def test_a_request_carries_no_entropy_and_is_taken_without_it(world: World, tmp_path: Path) -> None:  # noqa: F811 - the fixtures imported above
    """A pause, resume or resend request is published whole in the record it makes: it must not
    reveal a value the seat's next order file will reveal (before that phase resolves) or commit
    one. Intake takes a request without entropy fields; an order file still needs its commitment."""
    camp = camp_copy(world.round1, tmp_path)
    bare = sign(tmp_path, world.keys, "north", "north-pause-bare", request={"kind": "pause"}, entropy_commit=None)
    report = run(camp, mail(tmp_path, "m1", "north@example.org", bare))
    assert [v.line() for v in report.verdicts] == ["accepted: m1.eml (north-pause-bare.yaml): north seq 1"]
    orders = sign(tmp_path, world.keys, "south", "south-bare", orders={"S": {}}, entropy_commit=None)
    refused = run(camp, mail(tmp_path, "m2", "south@example.org", orders))
    assert not refused.verdicts[0].accepted and "entropy_commit" in refused.verdicts[0].message


def test_the_documents_chosen_count_the_keys_of_the_roster_given(world: World, tmp_path: Path) -> None:  # noqa: F811 - the fixtures imported above
    """Intake reads the roster once a run and hands it on: a seat's file counts only under the
    key of the roster given, as under the campaign's own when none is given."""
    camp = camp_copy(world.round1, tmp_path)
    run(camp, sign(tmp_path, world.keys, "north", "n1", orders={"N": {"bid": world.hands["N"][0]}}))
    c = Campaign(camp)
    roster = c.roster()
    assert sorted(chosen_documents(c, 1, "round-1")) == sorted(chosen_documents(c, 1, "round-1", roster=roster)) == ["north"]
    swapped = {**roster, "north": roster["south"]}  # north's seat under south's key
    assert chosen_documents(c, 1, "round-1", roster=swapped) == {}


def test_intake_leaves_the_garbage_collector_as_it_found_it(world: World, tmp_path: Path) -> None:  # noqa: F811 - the fixtures imported above
    """The run freezes what was alive before it out of the cycle collector, and unfreezes it
    after, also when nothing was accepted."""
    camp = camp_copy(world.round1, tmp_path)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    report = run(camp, sign(tmp_path, world.keys, "north", "n1", orders={"N": {"bid": world.hands["N"][0]}}))
    assert report.accepted == 1
    assert gc.isenabled() and gc.get_freeze_count() == 0
    (tmp_path / "junk.yaml").write_text("pbem: [\n")
    assert run(camp, tmp_path / "junk.yaml").refused == 1
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.freeze()  # a caller's own freeze is left as it was
    try:
        frozen = gc.get_freeze_count()
        run(camp, sign(tmp_path, world.keys, "north", "n2", orders={"N": {"bid": world.hands["N"][0]}}, seq=2))
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
