"""Tactical cards (TC) of Maria: ids, order, partial ids, payments and owner discards.

A card id is ``<suit><value>.<deck>`` (``S7.2``: the spade 7 of deck 2) or, for a reserve,
``R.<deck><letter>`` (``R.3a``). The deck holds 152 cards (M1.8): 4 decks of 4 suits x values
2-10, plus 2 reserves per deck.

"Lowest card id" (conventions of maria.md) compares suit in the order S, H, D, C, R, then the
value as a number, then deck and letter, so ``S9.2`` < ``S10.1``; :func:`card_key` is that order
and :func:`set_key` the order of sets ("lowest ids").

Everything here is pure and deterministic; nothing reads files.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

SUITS: tuple[str, ...] = ("S", "H", "D", "C")
"""The four suits in card-id order (♠ ♥ ♦ ♣)."""
RESERVE = "R"
_SUIT_ORDER = {"S": 0, "H": 1, "D": 2, "C": 3, "R": 4}
DECKS: tuple[int, ...] = (1, 2, 3, 4)
VALUES: tuple[int, ...] = tuple(range(2, 11))
RESERVE_LETTERS: tuple[str, ...] = ("a", "b")
DECK_SIZE = 152

_NORMAL_RE = re.compile(r"^([SHDC])(10|[2-9])\.([1-4])$")
_RESERVE_RE = re.compile(r"^R\.([1-4])([ab])$")


@dataclass(frozen=True)
class Card:
    """A parsed tactical card. ``value`` is 0 for a reserve (its value is chosen when played,
    M1.10) and ``letter`` is "" for a normal card."""

    suit: str
    value: int
    deck: int
    letter: str
    is_reserve: bool

    @property
    def id(self) -> str:
        """The card id, the inverse of :func:`parse_card`."""
        return format_card(self)


def format_card(card: Card) -> str:
    """The id of ``card`` (``S7.2``, ``R.3a``)."""
    if card.is_reserve:
        return f"R.{card.deck}{card.letter}"
    return f"{card.suit}{card.value}.{card.deck}"


@lru_cache(maxsize=512)
def parse_card(card_id: str) -> Card:
    """Parse a full card id; raises ValueError quoting the input if it is not one of the 152."""
    m = _NORMAL_RE.match(card_id)
    if m:
        return Card(m.group(1), int(m.group(2)), int(m.group(3)), "", False)
    m = _RESERVE_RE.match(card_id)
    if m:
        return Card(RESERVE, 0, int(m.group(1)), m.group(2), True)
    raise ValueError(f"not a tactical card id: {card_id!r} (expected e.g. 'H7.2' or 'R.3a')")


def is_card_id(s: object) -> bool:
    """True if ``s`` is the full id of one of the 152 cards."""
    return isinstance(s, str) and bool(_NORMAL_RE.match(s) or _RESERVE_RE.match(s))


def is_reserve(card_id: str) -> bool:
    """True if ``card_id`` is a reserve (M1.10)."""
    return parse_card(card_id).is_reserve


def card_value(card_id: str) -> int:
    """Face value of a normal card (2-10); 0 for a reserve."""
    return parse_card(card_id).value


def card_suit(card_id: str) -> str:
    """Suit letter S/H/D/C, or R for a reserve."""
    return parse_card(card_id).suit


def card_key(card_id: str) -> tuple[int, int, int, str]:
    """Sort key for "lowest card id": suit S,H,D,C,R, then value as a number, then deck, letter
    (each card's key made once)."""
    found = _CARD_KEYS.get(card_id)
    if found is None:
        c = parse_card(card_id)
        found = _CARD_KEYS[card_id] = (_SUIT_ORDER[c.suit], c.value, c.deck, c.letter)
    return found


_CARD_KEYS: dict[str, tuple[int, int, int, str]] = {}


def set_key(ids: Iterable[str]) -> tuple[tuple[int, int, int, str], ...]:
    """Sort key for "lowest ids" of sets: each set sorted lowest first, compared element by
    element (for sets of equal size this is plain lexicographic order)."""
    return tuple(sorted(card_key(i) for i in ids))


def sort_cards(ids: Iterable[str]) -> list[str]:
    """``ids`` sorted lowest card id first."""
    return sorted(ids, key=card_key)


def full_deck() -> list[str]:
    """The 152 card ids in canonical order (lowest card id first)."""
    ids = [f"{s}{v}.{d}" for s in SUITS for v in VALUES for d in DECKS]
    ids += [f"R.{d}{letter}" for d in DECKS for letter in RESERVE_LETTERS]
    return ids


def resolve_partial(hand: Iterable[str], spec: str) -> str | None:
    """The card in ``hand`` that ``spec`` means (M1.8), or None.

    A full id must be in hand. A partial id (``H7``, ``R``, ``R.3``) means the matching card in
    hand with the lowest id. Surrounding spaces are ignored; anything else that is not an id or
    a partial id matches nothing.
    """
    spec = spec.strip() if isinstance(spec, str) else ""
    held = [c for c in hand if is_card_id(c)]
    if is_card_id(spec):
        return spec if spec in held else None
    m = re.match(r"^([SHDC])(10|[2-9])$", spec)
    if m:
        prefix = f"{m.group(1)}{m.group(2)}."
        matches = [c for c in held if c.startswith(prefix)]
    elif spec == "R":
        matches = [c for c in held if c.startswith("R.")]
    else:
        m = re.match(r"^R\.([1-4])$", spec)
        if not m:
            return None
        prefix = f"R.{m.group(1)}"
        matches = [c for c in held if c.startswith(prefix)]
    return min(matches, key=card_key) if matches else None


# --- choosing sets of cards ---------------------------------------------------------------


def choose_set(
    cards: Sequence[str],
    values: Mapping[str, int],
    need: int,
    *,
    fewest_first: bool,
    max_count: int | None = None,
    max_total: int | None = None,
) -> list[str] | None:
    """The best set of ``cards`` whose value total is at least ``need``; None if there is none.

    Order of preference: with ``fewest_first`` fewest cards, then lowest total (M12.5 step 3);
    otherwise lowest total, then fewest cards (M6.4); ties always to the lowest ids. The set is
    limited to ``max_count`` cards and a total of ``max_total``. Returned lowest card id first.

    Runs a subset-sum over bitsets indexed by card count (O(n^2) big-int operations), not a
    search over the 2^n subsets, so hands of dozens of cards are instant.
    """
    if need <= 0:
        return []
    ordered = sorted(dict.fromkeys(cards), key=card_key)
    vals = [values[c] for c in ordered]
    if any(v <= 0 for v in vals):
        raise ValueError("choose_set needs positive card values")
    n = len(ordered)
    limit_count = n if max_count is None else min(n, max_count)
    if limit_count <= 0 or not vals:
        return None
    # A best set (under either order) is minimal: dropping any card leaves it below ``need``
    # (otherwise a smaller/cheaper set would win), so its total is below need + max value.
    cap = need + max(vals) - 1
    if max_total is not None:
        cap = min(cap, max_total)
    if cap < need:
        return None
    # a set of more cards than this totals more than the cap: no count above it can be chosen
    limit_count = min(limit_count, cap // min(vals))
    mask = (1 << (cap + 1)) - 1
    # reach[i][j]: bitset of totals reachable with exactly j cards from ordered[i:].
    reach: list[list[int]] = [[0] * (limit_count + 1) for _ in range(n + 1)]
    reach[n][0] = 1
    for i in range(n - 1, -1, -1):
        below, here, v = reach[i + 1], reach[i], vals[i]
        here[0] = 1
        for j in range(1, limit_count + 1):
            here[j] = (below[j] | (below[j - 1] << v)) & mask
    wanted = mask & ~((1 << need) - 1)
    best: tuple[int, int] | None = None  # (count, total)
    for j in range(1, limit_count + 1):
        hits = reach[0][j] & wanted
        if not hits:
            continue
        total = (hits & -hits).bit_length() - 1  # lowest reachable total >= need with j cards
        cand = (j, total) if fewest_first else (total, j)
        if best is None or cand < best:
            best = cand
    if best is None:
        return None
    count, total = best if fewest_first else (best[1], best[0])
    # Greedy on the card order gives the lowest ids: take the lowest card that still leaves a
    # completion among the later cards.
    chosen: list[str] = []
    start = 0
    for slot in range(count):
        left = count - slot - 1
        for i in range(start, n):
            rest = total - vals[i]
            if rest >= 0 and (reach[i + 1][left] >> rest) & 1:
                chosen.append(ordered[i])
                total = rest
                start = i + 1
                break
        else:  # pragma: no cover - the DP guarantees a completion
            raise AssertionError("subset-sum reconstruction failed")
    return chosen


def payment_value(card_id: str, options: Mapping[str, Any] | None = None) -> int:
    """What a card is worth as payment (M6.4): its face value; a reserve 0, or 1 under
    ``cards.reserve_outside_combat: counts_as_1`` (M1.10)."""
    c = parse_card(card_id)
    if not c.is_reserve:
        return c.value
    if options and options.get("cards.reserve_outside_combat") == "counts_as_1":
        return 1
    return 0


def cheapest_payment(
    hand: Sequence[str],
    cost: int,
    named: Sequence[str] = (),
    options: Mapping[str, Any] | None = None,
) -> list[str] | None:
    """The cards ``hand`` pays for ``cost`` TC points with (M6.4), or None if it cannot pay.

    Cards ``named`` in the orders (full or partial ids, M1.8) are spent in order until the cost
    is met; a name matching no card left in hand, or a card that cannot pay (a reserve, unless
    ``cards.reserve_outside_combat`` is ``counts_as_1``), is skipped (M12.2). If they fall
    short, the cheapest covering set of the rest of the hand is added: smallest total, then
    fewest cards, then lowest ids. No change is given. The result lists the named cards in the
    order spent, then the added set lowest id first; ``[]`` for a cost of 0 or less.
    """
    if cost <= 0:
        return []
    remaining = [c for c in hand if is_card_id(c)]
    paid: list[str] = []
    total = 0
    for spec in named:
        if total >= cost:
            break
        card = resolve_partial(remaining, spec)
        if card is None or payment_value(card, options) <= 0:
            continue
        remaining.remove(card)
        paid.append(card)
        total += payment_value(card, options)
    if total >= cost:
        return paid
    payers = [c for c in remaining if payment_value(c, options) > 0]
    values = {c: payment_value(c, options) for c in payers}
    extra = choose_set(payers, values, cost - total, fewest_first=False)
    if extra is None:
        return None
    return paid + extra


def can_pay(hand: Sequence[str], cost: int, options: Mapping[str, Any] | None = None) -> bool:
    """True if ``cheapest_payment(hand, cost, (), options)`` finds a payment: the payment values
    of the hand's cards reach ``cost`` (a set that covers it then exists), without choosing it."""
    if cost <= 0:
        return True
    values = (payment_value(c, options) for c in dict.fromkeys(hand) if is_card_id(c))
    return sum(v for v in values if v > 0) >= cost


def owner_discard(hand: Sequence[str], n: int) -> list[str]:
    """The ``n`` cards a power discards by the E4 ``owner`` default (M9.19): lowest values
    first, reserves last, ties to the lowest id. Fewer if the hand is smaller."""
    if n <= 0:
        return []
    order = sorted(
        (c for c in hand if is_card_id(c)),
        key=lambda c: (parse_card(c).is_reserve, parse_card(c).value, card_key(c)),
    )
    return order[:n]
