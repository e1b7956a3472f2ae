"""Whole seeded games between the bots, pinned: every round's state, orders and events of these
games hash to the digests below. A change that only makes the rules, the board queries or the
bots faster must leave them as they are; a change of a rule or of the bots' choices changes them
on purpose, and its author pins the new digests here."""

from __future__ import annotations

import pytest

from pbem.games.maria.selfplay import digest

GAMES = [
    ("intro", range(3), {},
     "9944a0ce8c37d004aef77f6223fa6b2f2daf510531fa8ff5884e82c27ee1d4e6"),
    ("advanced", range(2), {},
     "33272594215324829e6a8115a9b24123cb1f23042704bd641bf761121fa8f007"),
    ("advanced", range(1), {"pbem.commitments": "trustless",
                            "pbem.rounds": "merge_hussars_into_politics"},
     "bbd653f437616fea0357561c18fef797ec983d81b0f0125303c72404a684bcb5"),
]


@pytest.mark.parametrize(("scenario", "seeds", "options", "expected"), GAMES)
def test_seeded_games_are_the_pinned_games(scenario: str, seeds: range, options: dict[str, str],
                                           expected: str) -> None:
    assert digest(seeds, scenario=scenario, options=options) == expected
