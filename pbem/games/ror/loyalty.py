"""Legion loyalty rolls and the 1-talent bonus (R4.1, R4.2)."""

from __future__ import annotations

from typing import Any

from pbem.games.ror.model import (
    LOYALTY_TARGET,
    Ctx,
    army_legions,
    change_talents,
    sen,
    transfer,
)


def moh_consent(ctx: Ctx, moh: str, commander_faction: str, decl: dict[str, Any]) -> int:
    """How many talents the Master of Horse's owner lets the commander spend (R4.2)."""
    st = ctx.state
    owner = sen(st, moh)["faction"]
    wanted = max(0, int(decl.get("moh_pays") or 0))
    if owner == commander_faction:
        return wanted  # the REVOLT itself consents when both are in one faction
    from pbem.games.ror.revolution import faction_orders

    consent = 0
    for c in faction_orders(ctx, owner).get("consent_pay") or []:
        if isinstance(c, dict) and str(c.get("moh")) == moh:
            consent = max(0, int(c.get("n") or 0))
            break
    return min(wanted, consent)


def pay_bribes(ctx: Ctx, commander: str, moh: str | None, rolling: list[str],
               decl: dict[str, Any]) -> list[str]:
    """Pay 1T per bribed legion (R4.2); returns the legions whose bribe was paid.

    Only legions that roll can be bribed, each once; the money comes from the commander, then
    from his Master of Horse up to the consent; bribes that cannot be paid drop from the end.
    """
    st = ctx.state
    wanted: list[str] = []
    for lid in decl.get("bribes") or []:
        lid = str(lid)
        if lid in rolling and lid not in wanted:
            wanted.append(lid)
    faction = sen(st, commander)["faction"]
    own = int(sen(st, commander)["talents"])
    from_moh = 0
    if moh is not None:
        from_moh = min(int(sen(st, moh)["talents"]), moh_consent(ctx, moh, faction, decl))
    paid = wanted[: own + from_moh]
    n = len(paid)
    by_cmd = min(n, own)
    by_moh = n - by_cmd
    sink_state = ctx.opt("ror.bribe_sink") == "state_treasury"
    for who, amount in ((commander, by_cmd), (moh, by_moh)):
        if who is None or amount <= 0:
            continue
        if sink_state:
            transfer(ctx, f"senator:{who}", "state", amount, "R4.2 bribe")
        else:
            change_talents(ctx, f"senator:{who}", -amount, "R4.2 bribe")
    if wanted:
        ctx.emit("bribes", commander=commander, legions=paid, dropped=wanted[n:],
                 paid_by_commander=by_cmd, paid_by_moh=by_moh)
    return paid


def loyalty_rolls(ctx: Ctx, commander: str, army_id: str, decl: dict[str, Any]
                  ) -> tuple[list[str], list[str]]:
    """Roll for every legion of the army (R4.1); failures go to Active Forces.

    Returns (followers, failures). Veterans owing this commander follow without a roll.
    """
    st = ctx.state
    a = next(x for x in st["armies"] if x["id"] == army_id)
    lids = army_legions(st, a)
    auto = [lid for lid in lids if st["legions"][lid]["veteran"]
            and st["legions"][lid]["allegiance"] == commander]
    rolling = [lid for lid in lids if lid not in auto]
    no_roll = ctx.opt("ror.loyalty_roll") == "optional_all_follow" and decl.get("roll") is False
    paid = [] if no_roll else pay_bribes(ctx, commander, a["master_of_horse"], rolling, decl)
    target = LOYALTY_TARGET[st["era"]]
    omens = st["evil_omens_level"] if ctx.opt("ror.evil_omens_loyalty") == "apply" else 0
    followers: list[str] = list(auto)
    failures: list[str] = []
    if auto:  # R4.1: veterans owing the commander follow him without a roll
        ctx.emit("loyalty_auto", commander=commander, legions=auto)
    for lid in rolling:
        if no_roll:
            followers.append(lid)
            continue
        d = ctx.dice.d6(f"R4.1 legion {lid}")
        bonus = 1 if lid in paid else 0
        ok = d + bonus - omens >= target
        ctx.emit("loyalty_roll", commander=commander, legion=lid, die=d, bonus=bonus,
                 omens=omens, target=target, follows=ok)
        (followers if ok else failures).append(lid)
    for lid in failures:
        st["legions"][lid]["location"] = "active_forces"
    return sorted(followers, key=int), failures
