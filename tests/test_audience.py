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
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape
from test_report_games import play_bot_game

from pbem.common.canonical import canonical
from pbem.core.campaign import Campaign, derive_keys
from pbem.core.publish import Bundle, render_record
from pbem.core.seal import derive_salt
from pbem.data import orders_dir, templates_dir
from pbem.games.base import Secret
from pbem.render import orderpage, rules
from pbem.render.maria import mapview
from pbem.render.report import visible_events
from pbem.render.ror import orderpage as orderpage_ror

GAMES = 20


def _mutate_mini(state: dict[str, Any], secret: Secret) -> dict[str, Any]:
    s = copy.deepcopy(state)
    if secret.label.startswith("hand:"):
        power = secret.label.split(":", 1)[1]
        s["hands"][power] = [v + 20 for v in s["hands"][power]]
    elif secret.label == "deck":
        s["deck"] = [v + 40 for v in reversed(s["deck"])]
    return s


def _mutate_maria(state: dict[str, Any], secret: Secret) -> dict[str, Any]:
    """Another value for one Maria secret, still a consistent state: a hand of other real
    cards (from the draw pile), every troop count of a power one higher, the pile reversed."""
    s = copy.deepcopy(state)
    kind, _, power = secret.label.partition(":")
    if kind == "hand":
        hand = s["cards"]["hands"].get(power, [])
        s["cards"]["hands"][power] = list(s["cards"]["draw"][: len(hand)])
    elif kind == "troops":
        for g in s["generals"].values():
            if g["power"] == power and g["city"] is not None:
                g["troops"] += 1
    elif secret.label == "draw_pile":
        s["cards"]["draw"] = list(reversed(s["cards"]["draw"]))
    return s


def _mutate_ror(state: dict[str, Any], secret: Secret) -> dict[str, Any]:
    """Another value for one Rome secret: a hand of other real cards (from the deck, or the
    hand reversed), a Faction Treasury 7 talents richer, the deck reversed."""
    s = copy.deepcopy(state)
    kind, _, fid = secret.label.partition(":")
    if kind == "hand":
        hand = s["factions"][fid]["hand"]
        deck = list(s.get("deck") or [])
        s["factions"][fid]["hand"] = deck[: len(hand)] if len(deck) >= len(hand) else list(reversed(hand))
    elif kind == "faction_treasury":
        s["factions"][fid]["faction_treasury"] += 7
    elif secret.label == "deck":
        s["deck"] = list(reversed(s["deck"]))
    return s


MUTATORS: dict[str, Callable[[dict[str, Any], Secret], dict[str, Any]]] = {
    "mini": _mutate_mini, "maria": _mutate_maria, "ror": _mutate_ror}
# (game, scenario, phases per game): the bot games the audience proofs run over. Maria's games
# stop after their first rounds (set-up, hussars, three stages, the next hussars) to keep the
# run bounded, except one game played to the end (winters, battles, eliminations, the end).
# Rome's games are short (a revolution, a civil war, the end) and are played whole.
CASES = [
    pytest.param(("mini", "short", 200), id="mini"),
    pytest.param(("maria", "intro", 6), id="maria", marks=pytest.mark.slow),
    pytest.param(("ror", "early", 200), id="ror"),
]
FULL_GAME = {"maria": 5}


def _map_input(key: str, lang: str) -> str:
    """Stands in for drawing the map: the SVG is a pure function of this text (the public map
    view and the highlights), so a secret that is not in it cannot be in the drawing. Checking
    the input is stricter than searching the drawing, and far cheaper."""
    return f"<svg><desc>{key}</desc></svg>"


@pytest.fixture(scope="module", params=CASES)
def campaigns(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Campaign]]:
    game, scenario, phases = request.param
    base = tmp_path_factory.mktemp(f"audience-{game}")
    langs: dict[str, str] = {}
    out = []
    for i in range(GAMES):
        full = FULL_GAME.get(game) == i
        camp = play_bot_game(base / f"g{i}", game, scenario, 100 + i, langs=langs, publish=False, max_phases=1000 if full else phases)
        out.append(camp)
        # alternate the languages so both are proven
        langs = {s: ("zh-TW" if (i + j) % 2 else "en") for j, s in enumerate(sorted(camp.roster()))}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mapview, "_render_map", _map_input)
        _BUNDLES.clear()
        yield out


def _tokens(value: Any) -> list[str]:
    """The forms a secret value could take in a report: its canonical JSON, and for a list its
    items as text (strings one by one; numbers as the comma-separated run the reports print)."""
    if value in ([], {}, None, ""):
        return []  # an empty hand says nothing (and hand sizes are public, M11.3)
    if isinstance(value, int | float):
        return []  # a bare number (a treasury) looks like any other: the non-interference proof covers it
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
    if token not in data:  # the common case, and cheap: most tokens are nowhere in most files
        return False
    return re.search(r"(?<![\w])" + re.escape(token) + r"(?![\w])", data) is not None if token[0].isalnum() else True


_BUNDLES: dict[tuple[str, int], Bundle] = {}


def _bundle(camp: Campaign, index: int) -> Bundle:
    """The rendered reports and mails of one record (in memory: no disk writes to wait for)."""
    key = (str(camp.root), index)
    if key not in _BUNDLES:
        _BUNDLES[key] = render_record(camp, index)
    return _BUNDLES[key]


def _audience_bytes(bundle: Bundle) -> dict[str, dict[str, str]]:
    """Per audience (``public`` or a seat): every file and mail that audience receives, as text.

    The JSON Schema copied beside the order forms is shipped data (its examples name real card
    ids), the same for everyone and never derived from a state, so it is left out."""
    out: dict[str, dict[str, str]] = {"public": {}}
    for rel, (who, data) in bundle.files.items():
        if rel.endswith(".schema.json") or rel.endswith(".png"):
            continue
        out.setdefault(who, {})[rel] = _opened(data.decode("utf-8"))
    for seat, (name, msg) in bundle.mails.items():
        parsed = email.message_from_bytes(msg, policy=email.policy.SMTP)
        body = "\n".join(_opened(p.get_content()) if p.get_content_maintype() == "text" else p.get_content().decode("utf-8", "replace")
                         for p in parsed.walk() if not p.is_multipart() and not (p.get_filename() or "").endswith(".schema.json")
                         and p.get_content_maintype() != "image")
        out.setdefault(seat, {})[name] = body
    return out


# The order page and the map page carry their data, code and map gzip-packed in base 85: the search
# reads what they hold (the packing would hide a secret, and could spell a card id by chance). Map
# images are left out as the map is: they are drawn from the map's input, checked above.
_PACKED = re.compile(r'(<script type="text/plain" id="pbem-(?:pack|map|code)">)(.*?)(</script>)', re.S)


def _opened(text: str) -> str:
    return _PACKED.sub(lambda m: m.group(1) + orderpage.unpack(m.group(2)).decode("utf-8") + m.group(3)
                       if m.group(2).strip() else m.group(0), text)


# pbem check's messages, which the order page repeats, give card ids as examples ("(e.g. H7.2,
# H7, R.3a, R)"): static text, the same for every reader and state, cut out before the search.
PAGE_EXAMPLES = sorted({
    m for f in sorted((templates_dir() / "orderpage").glob("*.js"))
    for m in re.findall(r"\(e\.g\. [^)]*\)", f.read_text(encoding="utf-8"))
} | {  # and their Chinese, which the page carries in its words
    m for zh in orderpage.MESSAGES.values() for m in re.findall(r"（例如 [^）]*）", zh)
})


# The Rome order page carries the printed Faction cards (every Statesman and Concession id, to
# check a card named in a trade) and its round's JSON Schema (whose examples name card ids):
# shipped data, the same in every page, cut out too.
PAGE_TABLES = [json.dumps(table, sort_keys=True, ensure_ascii=False, separators=(",", ":")) for table in [
    orderpage_ror.card_table(),
    *(orderpage_ror.schema(path.name.removesuffix(".schema.json")) for path in sorted((orders_dir() / "ror").glob("*.schema.json")))]]


# A Maria report's glossary explains card ids by example ("A card id such as H7.2 is ..."): the
# rules reference's own words, the same in every report, cut out too.
GLOSSARY = sorted({form for lang in ("en", "zh-TW") for _, text in rules.glossary_items("maria", lang)
                   for form in (text, str(escape(text)))}, key=len, reverse=True)


def _without_examples(text: str) -> str:
    for phrase in PAGE_EXAMPLES + PAGE_TABLES + GLOSSARY:
        text = text.replace(phrase, "")
    return text


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
            key = f"record {rec['index']}"
            received = _audience_bytes(_bundle(camp, rec["index"]))
            assert set(received) == seats | {"public"}, f"{camp.root}/{key}: audiences {sorted(received)}"
            state = camp.read_state(rec["index"])
            # A card played in this phase's public events (a battle card) may have been
            # reshuffled and drawn again before the phase's end: that it was played is public,
            # so such a card is not a token of the hand that holds it now.
            events_path = camp.states_dir / f"{rec['index']:06d}.events.json"
            events = json.loads(events_path.read_bytes()) if events_path.is_file() else []
            played = canonical(visible_events(events, "public")).decode()
            # Rome: both parties to a trade know the cards that changed hands (R2.2, R8.7)
            traded: dict[str, set[str]] = {}
            for e in events:
                if e.get("type") == "trade_cards":
                    for fid in (e["giver"], e["receiver"]):
                        traded.setdefault(state["factions"][fid]["player"], set()).update(
                            e.get("cards", []) + e.get("received", []))
            # Rome: the report that ends the game reveals every hand and Faction Treasury (R8.7)
            revealed = game.name == "ror" and game.result(state) is not None
            for secret in game.secrets(state):
                owner = str(secret.owner)
                tokens = [t for t in _tokens(secret.value) if not (t[:1].isalnum() and f'"{t}"' in played)]
                tokens = [] if revealed else tokens
                tokens += salts.get(owner, [])
                for who, files in received.items():
                    if who == owner:
                        continue
                    for name, raw_text in files.items():
                        text = _without_examples(raw_text)
                        for token in tokens:
                            if token in traded.get(who, ()):
                                continue
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
    received = _audience_bytes(_bundle(camp, rec["index"]))
    secret_key = derive_keys(camp.seed())["secret"]
    owned = 0
    for secret in game.secrets(state):
        if secret.owner is None:
            continue
        salt = derive_salt(secret_key, f"{rec['phase_number']}|{secret.label}")
        own = "\n".join(received[secret.owner].values())
        assert salt in own and canonical(secret.value).decode() in own
        owned += 1
    assert owned > 0, "no secret with an owner: the loop checked nothing"


def _differences(a: Bundle, b: Bundle, audience: str) -> list[str]:
    diffs = [k for k in sorted(set(a.for_audience(audience)) | set(b.for_audience(audience)))
             if a.for_audience(audience).get(k) != b.for_audience(audience).get(k)]
    if audience in a.mails:
        if a.mails[audience][1] != b.mails[audience][1]:
            diffs.append(a.mails[audience][0])
    return diffs


def test_the_games_hold_private_events(campaigns: list[Campaign]) -> None:
    """The proofs cover events addressed to one seat (a VOID order, cards drawn, losses)."""
    private = set()
    for camp in campaigns:
        for p in camp.states_dir.glob("*.events.json"):
            private |= {e["type"] for e in json.loads(p.read_bytes()) if e.get("audience")}
    game = campaigns[0].create_record()["game"]
    expected = {"mini": set(), "maria": {"drawn", "troops", "battle_losses", "recruit_detail", "void"},
                "ror": {"trade_cards", "card_drawn", "void"}}[game]
    assert expected <= private, f"{game}: no {sorted(expected - private)} in the games"


# the rounds whose report names who owes orders from facts a game might hide (troops, a hand's
# value): Maria's winter and political rounds, Rome's Senate and Revolution rounds (M6)
OWED_ROUNDS = {"mini": set(), "maria": {"winter", "politics", "commit"}, "ror": {"senate", "revolution"}}


def _whole_game(campaigns: list[Campaign]) -> Campaign:
    """The longest campaign of the set: a whole game, with its winters and political rounds."""
    return max(campaigns, key=lambda c: len(c.records()))


def test_one_seats_secret_changes_no_other_audience(campaigns: list[Campaign]) -> None:
    _non_interference(campaigns[:2], lambda camp, state: True)


def test_who_owes_orders_is_public_over_whole_games(campaigns: list[Campaign]) -> None:
    """M6: over a whole game, every report that opens a winter or a political round (Maria),
    or a Senate or Revolution round (Rome), is unchanged for every other audience when one
    seat's secret changes: the list of who owes orders is made of public facts only."""
    game = campaigns[0].create_record()["game"]
    camp = _whole_game(campaigns)
    kinds = OWED_ROUNDS[game]
    opened = {p.kind for r in camp.effective_records() if "state_hash" in r
              if (p := camp.game().current_phase(camp.read_state(r.get("state_of", r["index"])))) is not None}
    # Maria's intro game has winters but no political round; its bidders are the powers with a
    # player (public), whatever their hands hold
    assert not kinds or "winter" in opened or {"senate", "revolution"} <= opened, f"{game}: the whole game opens none of {sorted(kinds)}"
    if kinds:
        _non_interference([camp], lambda c, state: (p := c.game().current_phase(state)) is not None and p.kind in kinds)


def _non_interference(campaigns: list[Campaign], wanted: Callable[[Campaign, dict[str, Any]], bool]) -> None:
    mutated_any = 0
    for camp in campaigns:
        game = camp.game()
        mutate = MUTATORS[camp.create_record()["game"]]
        seats = sorted(camp.roster())
        for rec in [r for r in camp.effective_records() if r["kind"] in ("create", "phase")]:
            state = camp.read_state(rec["index"])
            if not wanted(camp, state):
                continue
            original = render_record(camp, rec["index"])  # fresh: shipped files may change meanwhile
            if camp.create_record()["game"] == "ror" and game.result(state) is not None:
                continue  # the report that ends the game reveals every hand and treasury (R8.7)
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
    assert mutated_any >= 2 * 3 or (len(campaigns) == 1 and mutated_any > 0)


def test_void_order_is_told_only_to_its_sender(tmp_path: Path) -> None:
    """M12.2: a VOID order and its reason appear only in the sender's private report."""
    events = [{"type": "bid", "power": "N"}, {"type": "void", "power": "S", "audience": "south", "order": "bid", "reason": "not in hand"},
              {"type": "void", "power": "N", "audience": ["north"]}]
    assert [e["type"] for e in visible_events(events, "public")] == ["bid"]
    assert [e.get("power") for e in visible_events(events, "south")] == ["N", "S"]
    assert [e.get("power") for e in visible_events(events, "north")] == ["N", "N"]
