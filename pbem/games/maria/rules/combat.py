"""One battle of Maria: the tactical-card exchange and the loser's troop losses (M5.2-M5.6, M5.10).

:func:`fight` takes two :class:`Side` values, each already resolved by the caller (the
commanding power of M5.9, its hand, the sector suit of M5.4 and the battle plan of M12.4 merged
by priority), and plays the exchange of M5.3 card by card under the card policy of M12.5. It
returns a :class:`BattleOutcome`: every card played, who conceded, ``diff``, the losses taken by
M5.6, the retreat length of M5.5 and whether the losses alone make a major victory (M5.10).
Retreat paths, the victory boxes and the discard pile are the caller's.

Options are read from a flat mapping with the keys of maria.md's "Rule options" table; every key
this module reads must be present (the engine passes them all):
``combat.commitment``, ``combat.tie_rule``, ``combat.initial_tie``, ``combat.retreat_length``,
``combat.major_victory_troops`` and ``cards.reserve_cap``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem.games.maria.cards import card_key, choose_set, parse_card, resolve_partial

ATTACKER = "attacker"
DEFENDER = "defender"
SIDES: tuple[str, str] = (ATTACKER, DEFENDER)

TIE_RULES = ("non_last_player_plays", "defender_wins_ties", "attacker_wins_ties")
INITIAL_TIES = ("attacker_first", "defender_first")
RESERVE_CAPS = ("level_only", "free_1_10")
RETREAT_LENGTHS = ("max_diff_1", "diff")
COMMITMENTS = ("all_troops", "partial")

RESERVE_MAX = 10  # M1.10: a reserve is worth at most 10


@dataclass(frozen=True)
class Fighter:
    """A general in a battle. ``active`` is False for a general that lost a battle earlier this
    stage (M5.1, M5.9): it adds no strength and takes no losses."""

    id: str
    power: str
    rank: int
    troops: int
    active: bool = True


@dataclass(frozen=True)
class Side:
    """One side of a battle.

    ``power`` is the commanding power (M5.9) whose ``hand`` and ``plan`` are used; ``suit`` is
    the suit of the sector the stack stands in (M5.4). ``plan`` holds the M12.4 fields already
    merged by priority: ``max_cards``, ``max_points``, ``concede_if_behind_by``,
    ``use_reserve``, ``prefer``, ``loss_order`` and, under ``combat.commitment: partial``,
    ``commit`` (general id -> troops committed). A missing field takes its M12.4 default.
    """

    power: str
    fighters: tuple[Fighter, ...]
    suit: str
    hand: tuple[str, ...]
    plan: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Play:
    """One card played: ``side`` is "attacker" or "defender"; ``value`` is the face value, or
    the value chosen for a reserve (M1.10)."""

    side: str
    card: str
    value: int


@dataclass(frozen=True)
class BattleOutcome:
    """The result of :func:`fight`.

    ``attacker_strength``/``defender_strength`` are the troops that count (M5.2);
    ``*_total`` the totals when the loser conceded; ``diff`` the gap then (M5.5). ``losses``
    maps each active general of the loser to the troops it lost (0 included), in loss order;
    ``eliminated`` lists the generals reduced to 0 by those losses. ``major_victory`` is True
    when the losses make one (M5.10); an elimination for lack of a retreat path is the
    caller's to add. ``hands_after`` gives each side's hand without the cards it played (which
    go to the discard pile, M5.8, in the order of ``plays``).
    """

    plays: tuple[Play, ...]
    winner: str
    loser: str
    attacker_strength: int
    defender_strength: int
    attacker_total: int
    defender_total: int
    diff: int
    losses: Mapping[str, int]
    eliminated: tuple[str, ...]
    retreat_length: int
    major_victory: bool
    hands_after: Mapping[str, tuple[str, ...]]

    @property
    def discards(self) -> tuple[str, ...]:
        """The cards played, in play order (all go to the discard pile, M5.8)."""
        return tuple(p.card for p in self.plays)


# --- plan fields -----------------------------------------------------------------------------


def _plan_int(plan: Mapping[str, Any], key: str) -> int | None:
    """An optional non-negative integer plan field; anything else means "not set" (M12.4)."""
    value = plan.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _plan_flag(plan: Mapping[str, Any], key: str) -> bool:
    value = plan.get(key)
    if isinstance(value, str):
        return value.strip().lower() in ("yes", "true", "on")
    return value is True


def _plan_list(plan: Mapping[str, Any], key: str) -> list[str]:
    value = plan.get(key)
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence):
        return [v for v in value if isinstance(v, str)]
    return []


def _option(options: Mapping[str, Any], key: str, allowed: Sequence[str]) -> str:
    value = options[key]
    if value not in allowed:
        raise ValueError(f"option {key} = {value!r}: expected one of {', '.join(allowed)}")
    return str(value)


# --- strength and losses ---------------------------------------------------------------------


def committed_troops(side: Side, options: Mapping[str, Any]) -> dict[str, int]:
    """Troops each active general brings to the battle (M5.2).

    Under ``combat.commitment: partial`` a general counts the troops the plan's ``commit`` gives
    it (1 up to all its troops); a general the plan leaves out, or commits outside that range,
    counts all its troops, as under the default ``all_troops``. Inactive generals count 0.
    """
    mode = _option(options, "combat.commitment", COMMITMENTS)
    commit = side.plan.get("commit") if mode == "partial" else None
    result: dict[str, int] = {}
    for f in side.fighters:
        if not f.active:
            result[f.id] = 0
            continue
        n = f.troops
        if isinstance(commit, Mapping):
            c = commit.get(f.id)
            if isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= f.troops:
                n = c
        result[f.id] = n
    return result


def strength(side: Side, options: Mapping[str, Any]) -> int:
    """A side's strength: the troops of its active generals that count (M5.2, M5.9)."""
    return sum(committed_troops(side, options).values())


def loss_order(side: Side) -> list[str]:
    """The order losses are taken in (M5.6), fixed when the losses begin.

    The plan's ``loss_order`` comes first (entries naming no active general of the stack, and
    repeats, are skipped, M12.2); the other active generals follow in the default order: most
    troops first, ties to the general of the commanding power, then to the lower rank number,
    then to the lowest general id.
    """
    active = {f.id: f for f in side.fighters if f.active}
    order: list[str] = []
    for gid in _plan_list(side.plan, "loss_order"):
        if gid in active and gid not in order:
            order.append(gid)
    rest = sorted(
        (f for f in active.values() if f.id not in order),
        key=lambda f: (-f.troops, f.power != side.power, f.rank, f.id),
    )
    return order + [f.id for f in rest]


def take_losses(side: Side, n: int) -> dict[str, int]:
    """Take ``n`` troops from ``side`` one at a time, each from the first general in
    :func:`loss_order` that still has troops (M5.6). Returns general id -> troops lost for
    every active general, in loss order; losses beyond the stack's troops are not taken."""
    order = loss_order(side)
    left = {f.id: f.troops for f in side.fighters}
    lost = {gid: 0 for gid in order}
    for _ in range(max(n, 0)):
        gid = next((g for g in order if left[g] > 0), None)
        if gid is None:
            break
        left[gid] -= 1
        lost[gid] += 1
    return lost


# --- the card policy (M12.5) -------------------------------------------------------------------


@dataclass
class _Exchange:
    """Running state of one side during the exchange."""

    side: Side
    total: int
    hand: list[str]
    cards_played: int = 0
    points_played: int = 0

    @property
    def cards_left(self) -> int | None:
        cap = _plan_int(self.side.plan, "max_cards")
        return None if cap is None else cap - self.cards_played

    @property
    def points_left(self) -> int | None:
        cap = _plan_int(self.side.plan, "max_points")
        return None if cap is None else cap - self.points_played


def _fits(room: int | None, amount: int) -> bool:
    return room is None or amount <= room


def _reserve_value(gap: int, free: bool) -> int:
    """The value the policy gives a reserve when the side is ``gap`` behind (M1.10, M12.5).

    ``level_only`` (default): the smaller of the gap and 10, so it at most brings the side
    level; 0 (not playable) when level. ``free_1_10``: any value 1-10 is legal, and the policy
    takes the least that puts the side ahead, at most 10.
    """
    if free:
        return min(gap + 1, RESERVE_MAX)
    return min(gap, RESERVE_MAX)


def _legal_normal(ex: _Exchange) -> list[str]:
    return [c for c in ex.hand if not parse_card(c).is_reserve and parse_card(c).suit == ex.side.suit]


def _highest_first(cards: Sequence[str]) -> list[str]:
    return sorted(cards, key=lambda c: (-parse_card(c).value, card_key(c)))


def _choose_plays(ex: _Exchange, gap: int, free_reserve: bool) -> list[tuple[str, int]] | None:
    """The cards (with values) the side plays now when ``gap`` behind (0: level and obliged to
    play), following M12.5 steps 1-5; None means it concedes."""
    plan = ex.side.plan
    # Step 1: early concession.
    concede_by = _plan_int(plan, "concede_if_behind_by")
    if concede_by is not None and gap > concede_by:
        return None
    # Step 2: the first legal card of ``prefer`` that is still in hand. The card must fit the
    # caps as it would be played; a reserve is not shrunk to fit max_points.
    for spec in _plan_list(plan, "prefer"):
        card = resolve_partial(ex.hand, spec)
        if card is None or not _fits(ex.cards_left, 1):
            continue
        c = parse_card(card)
        if c.is_reserve:
            if gap < 1 and not free_reserve:
                continue  # M1.10: never when level under level_only
            value = _reserve_value(gap, free_reserve)
        elif c.suit == ex.side.suit:
            value = c.value
        else:
            continue
        if _fits(ex.points_left, value):
            return [(card, value)]
    legal = _legal_normal(ex)
    values = {c: parse_card(c).value for c in legal}
    # Step 3: the fewest legal normal cards that get ahead, played highest first until the side
    # is level or ahead.
    ahead = choose_set(
        legal, values, gap + 1, fewest_first=True,
        max_count=ex.cards_left, max_total=ex.points_left,
    )
    if ahead:
        plays: list[tuple[str, int]] = []
        got = 0
        for card in _highest_first(ahead):
            plays.append((card, values[card]))
            got += values[card]
            if got >= gap:
                break
        return plays
    # Step 4: a reserve that brings the side level, after (if the gap is over 10) the legal
    # normal cards chosen as in step 3 for the part a reserve cannot cover. "A need of
    # gap - 10" is read as a total of at least gap - 10, the least that lets the reserve close
    # the gap. The points played then come to the gap exactly (level_only), so the step needs
    # room for the gap under max_points and for the cards plus the reserve under max_cards.
    reserves = sorted((c for c in ex.hand if parse_card(c).is_reserve), key=card_key)
    if _plan_flag(plan, "use_reserve") and reserves and gap >= 1 and _fits(ex.points_left, gap):
        room = None if ex.cards_left is None else ex.cards_left - 1
        if room is None or room >= 0:
            support = choose_set(legal, values, gap - RESERVE_MAX, fewest_first=True, max_count=room)
            if support is not None:
                plays = [(c, values[c]) for c in _highest_first(support)]
                rest = gap - sum(values[c] for c in support)
                value = _reserve_value(rest, free_reserve)
                if ex.points_left is not None:
                    value = min(value, ex.points_left - (gap - rest))
                plays.append((reserves[0], value))
                return plays
    # Step 5.
    return None


# --- the battle --------------------------------------------------------------------------------


def _must_play(a_total: int, d_total: int, last: str | None, tie_rule: str, initial: str) -> str:
    """Which side must play or concede now (M5.3)."""
    if a_total < d_total:
        return ATTACKER
    if d_total < a_total:
        return DEFENDER
    if tie_rule == "defender_wins_ties":
        return ATTACKER
    if tie_rule == "attacker_wins_ties":
        return DEFENDER
    if last is None:
        return ATTACKER if initial == "attacker_first" else DEFENDER
    return DEFENDER if last == ATTACKER else ATTACKER


def fight(attacker: Side, defender: Side, options: Mapping[str, Any]) -> BattleOutcome:
    """Fight one battle's card exchange and take the loser's losses (M5.2-M5.6, M5.10, M1.10,
    M12.5). Deterministic; the sides' hands are not changed (see ``hands_after``)."""
    tie_rule = _option(options, "combat.tie_rule", TIE_RULES)
    initial = _option(options, "combat.initial_tie", INITIAL_TIES)
    free_reserve = _option(options, "cards.reserve_cap", RESERVE_CAPS) == "free_1_10"
    retreat_rule = _option(options, "combat.retreat_length", RETREAT_LENGTHS)
    major_troops = int(options["combat.major_victory_troops"])

    a_strength = strength(attacker, options)
    d_strength = strength(defender, options)
    ex = {
        ATTACKER: _Exchange(attacker, a_strength, list(attacker.hand)),
        DEFENDER: _Exchange(defender, d_strength, list(defender.hand)),
    }
    plays: list[Play] = []
    last: str | None = None
    while True:
        mover = _must_play(ex[ATTACKER].total, ex[DEFENDER].total, last, tie_rule, initial)
        other = DEFENDER if mover == ATTACKER else ATTACKER
        gap = ex[other].total - ex[mover].total
        chosen = _choose_plays(ex[mover], gap, free_reserve)
        if not chosen:
            loser = mover
            break
        for card, value in chosen:
            side = ex[mover]
            side.hand.remove(card)
            side.total += value
            side.cards_played += 1
            side.points_played += value
            plays.append(Play(mover, card, value))
        last = mover

    winner = DEFENDER if loser == ATTACKER else ATTACKER
    diff = ex[winner].total - ex[loser].total
    losing_side = attacker if loser == ATTACKER else defender
    losses = take_losses(losing_side, diff)
    troops = {f.id: f.troops for f in losing_side.fighters}
    eliminated = tuple(g for g, n in losses.items() if n > 0 and n >= troops[g])
    retreat = max(diff, 1) if retreat_rule == "max_diff_1" else diff
    major = sum(losses.values()) >= major_troops or bool(eliminated)
    return BattleOutcome(
        plays=tuple(plays),
        winner=winner,
        loser=loser,
        attacker_strength=a_strength,
        defender_strength=d_strength,
        attacker_total=ex[ATTACKER].total,
        defender_total=ex[DEFENDER].total,
        diff=diff,
        losses=losses,
        eliminated=eliminated,
        retreat_length=retreat,
        major_victory=major,
        hands_after={s: tuple(ex[s].hand) for s in SIDES},
    )
