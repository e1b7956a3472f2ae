"""Audience safety (M11.1, M12.2): no public file and no other seat's private file or mail holds
a secret of a seat.

Two proofs over every report of 20 bot games per game:

- search: every secret (``game.secrets(state)``: hands, troop numbers, the deck) and every salt
  that opens a commitment is searched for, with word boundaries, in the bytes each audience
  receives; only the owner's files may hold it;
- non-interference: changing one seat's secret in the state and rendering again must leave every
  byte for every other audience unchanged (this catches a leak in any format, including a
  troop number that a text search cannot tell apart from other numbers).
"""

from __future__ import annotations

import copy
import email
import email.policy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_report_games import play_bot_game

from pbem.core.campaign import Campaign, derive_keys
from pbem.core.canonical import canonical
from pbem.core.seal import derive_salt
from pbem.games.base import Secret
from pbem.render.publish import Bundle, render_record

GAMES = 20


def _mutate_mini(state: dict[str, Any], secret: Secret) -> dict[str, Any]:
    s = copy.deepcopy(state)
    if secret.label.startswith("hand:"):
        power = secret.label.split(":", 1)[1]
        s["hands"][power] = [v + 20 for v in s["hands"][power]]
    elif secret.label == "deck":
        s["deck"] = [v + 40 for v in reversed(s["deck"])]
    return s


MUTATORS: dict[str, Callable[[dict[str, Any], Secret], dict[str, Any]]] = {"mini": _mutate_mini}
# (game, scenario): the games whose bot games the audience proofs run over.
CASES = [("mini", "short")]


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def campaigns(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> list[Campaign]:
    game, scenario = request.param
    base = tmp_path_factory.mktemp(f"audience-{game}")
    langs = {}
    out = []
    for i in range(GAMES):
        camp = play_bot_game(base / f"g{i}", game, scenario, 100 + i, langs=langs, publish=True)
        out.append(camp)
        # alternate the languages so both are proven
        langs = {s: ("zh-TW" if (i + j) % 2 else "en") for j, s in enumerate(sorted(camp.roster()))}
    return out


def _tokens(value: Any) -> list[str]:
    """The forms a secret value could take in a report: its canonical JSON, and for a list its
    items as text (strings one by one; numbers as the comma-separated run the reports print)."""
    out = [canonical(value).decode()]
    if isinstance(value, list) and value:
        if all(isinstance(v, str) for v in value):
            out += [v for v in value if len(v) >= 2]
        elif len(value) >= 2:
            out.append(", ".join(str(v) for v in value))
    if isinstance(value, dict) and value:
        out.append(", ".join(f"{k}: {v}" for k, v in sorted(value.items())))
    return out


def _found(token: str, data: str) -> bool:
    return re.search(r"(?<![\w])" + re.escape(token) + r"(?![\w])", data) is not None if token[0].isalnum() else token in data


def _audience_bytes(camp: Campaign, key: str) -> dict[str, dict[str, str]]:
    """Per audience (``public`` or a seat): every file and mail that audience receives, as text."""
    folder = camp.reports_dir / key
    out: dict[str, dict[str, str]] = {"public": {}}
    for p in sorted(folder.rglob("*")):
        if not p.is_file():
            continue
        rel = str(p.relative_to(folder))
        who = "public" if "/" not in rel or rel.startswith("forms/") and rel.endswith(".json") else p.stem
        out.setdefault(who, {})[rel] = p.read_text(encoding="utf-8")
    for mail in sorted(camp.outbox.glob(f"report-{key}-*.eml")):
        seat = mail.stem[len(f"report-{key}-"):]
        msg = email.message_from_bytes(mail.read_bytes(), policy=email.policy.SMTP)
        body = "\n".join(p.get_content() if p.get_content_maintype() == "text" else p.get_content().decode("utf-8", "replace")
                         for p in msg.walk() if not p.is_multipart())
        out.setdefault(seat, {})[mail.name] = body
    return out


def test_secrets_and_salts_reach_only_their_owner(campaigns: list[Campaign]) -> None:
    checked = 0
    for camp in campaigns:
        game = camp.game()
        secret_key = derive_keys(camp.seed())["secret"]
        seats = set(camp.roster())
        phases = [r for r in camp.effective_records() if r["kind"] in ("create", "phase")]
        salts: dict[str, list[str]] = {}  # owner -> every salt of theirs in the game
        for rec in phases:
            if rec["kind"] == "phase":
                for s in game.secrets(camp.read_state(rec["index"])):
                    salts.setdefault(str(s.owner), []).append(derive_salt(secret_key, f"{rec['phase_number']}|{s.label}"))
        for rec in phases:
            from pbem.render.publish import report_key

            key = report_key(rec)
            received = _audience_bytes(camp, key)
            assert set(received) == seats | {"public"}, f"{camp.root}/{key}: audiences {sorted(received)}"
            state = camp.read_state(rec["index"])
            for secret in game.secrets(state):
                owner = str(secret.owner)
                tokens = _tokens(secret.value) + salts.get(owner, [])
                for who, files in received.items():
                    if who == owner:
                        continue
                    for name, text in files.items():
                        for token in tokens:
                            assert not _found(token, text), f"{camp.root}/{key}/{name} ({who}) holds {secret.label} of {owner}: {token}"
                            checked += 1
    assert checked > 1000


def test_owner_does_receive_its_secrets(campaigns: list[Campaign]) -> None:
    """The search would prove nothing if no report ever printed a secret: each owner's private
    report holds its own secrets and salts."""
    camp = campaigns[0]
    game = camp.game()
    rec = [r for r in camp.effective_records() if r["kind"] == "phase"][0]
    state = camp.read_state(rec["index"])
    from pbem.render.publish import report_key

    received = _audience_bytes(camp, report_key(rec))
    secret_key = derive_keys(camp.seed())["secret"]
    for secret in game.secrets(state):
        if secret.owner is None:
            continue
        salt = derive_salt(secret_key, f"{rec['phase_number']}|{secret.label}")
        own = "\n".join(received[secret.owner].values())
        assert salt in own and canonical(secret.value).decode() in own


def _differences(a: Bundle, b: Bundle, audience: str) -> list[str]:
    diffs = [k for k in sorted(set(a.for_audience(audience)) | set(b.for_audience(audience)))
             if a.for_audience(audience).get(k) != b.for_audience(audience).get(k)]
    if audience in a.mails:
        if a.mails[audience][1].as_bytes() != b.mails[audience][1].as_bytes():
            diffs.append(a.mails[audience][0])
    return diffs


def test_one_seats_secret_changes_no_other_audience(campaigns: list[Campaign]) -> None:
    mutated_any = 0
    for camp in campaigns[:8]:
        game = camp.game()
        mutate = MUTATORS[camp.create_record()["game"]]
        seats = sorted(camp.roster())
        for rec in [r for r in camp.effective_records() if r["kind"] in ("create", "phase")]:
            state = camp.read_state(rec["index"])
            original = render_record(camp, rec["index"])
            for secret in game.secrets(state):
                changed = mutate(state, secret)
                if changed == state:
                    continue
                again = render_record(camp, rec["index"], state=changed)
                for audience in ["public", *seats]:
                    if audience == secret.owner:
                        continue
                    diffs = _differences(original, again, audience)
                    assert not diffs, f"{camp.root} record {rec['index']}: changing {secret.label} changed {audience}'s {diffs}"
                if secret.owner is not None:
                    assert _differences(original, again, secret.owner), f"{secret.label}: the owner's report does not show it"
                mutated_any += 1
    assert mutated_any >= 8 * 3


def test_void_order_is_told_only_to_its_sender(tmp_path: Path) -> None:
    """M12.2: a VOID order and its reason appear only in the sender's private report."""
    from pbem.render.report import visible_events

    events = [{"type": "bid", "power": "N"}, {"type": "void", "power": "S", "audience": "south", "order": "bid", "reason": "not in hand"},
              {"type": "void", "power": "N", "audience": ["north"]}]
    assert [e["type"] for e in visible_events(events, "public")] == ["bid"]
    assert [e.get("power") for e in visible_events(events, "south")] == ["N", "S"]
    assert [e.get("power") for e in visible_events(events, "north")] == ["N", "N"]
