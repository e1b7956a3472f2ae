"""``pbem demo``: a complete sample campaign, from the first signed mail to the final report.

Demo players get fresh keys. Each phase, a bot writes each player's orders, the player's key
signs them (with the same code as ``pbem sign``, entropy included), and they are mailed into the
campaign's Maildir as .eml files; then the GM's daily job (:func:`pbem.core.pipeline.run_campaign`)
takes in the mail, resolves, publishes the reports and queues the mails. The clock is simulated:
an hour passes between rounds, so the whole game runs in seconds.
"""

from __future__ import annotations

import email.policy
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from pbem.common.fair import H, Rng
from pbem.core.audit import AuditReport, audit
from pbem.core.campaign import Campaign, Seat, format_time, parse_time
from pbem.core.envelope import format_document
from pbem.core.keys import generate, write_private_key
from pbem.core.pipeline import run_campaign
from pbem.core.signer import sign_file_data
from pbem.errors import PbemError
from pbem.games import get_game
from pbem.games.base import Phase


def bot_orders_by_seat(game: Any, state: dict[str, Any], phase: Phase, rng: Rng) -> dict[str, dict[str, Any]]:
    """Each seat's bot orders for the powers it plays in ``phase``, drawn in the phase's power
    order (so one ``rng`` gives the same orders every time); a power with no seat sends none."""
    by_seat: dict[str, dict[str, Any]] = {}
    for power in phase.powers:
        seat = game.seat_of(state, power)
        if seat is not None:
            by_seat.setdefault(seat, {})[power] = game.bot_orders(state, power, rng)
    return by_seat


START = "2027-01-04T08:00:00Z"  # the wall clock of the simulated mail rounds
DEFAULT_SCENARIO = {"maria": "advanced", "ror": "early"}
MAX_ROUNDS = 2000


@dataclass
class DemoResult:
    campaign: Path
    rounds: int
    mails: int
    result: dict[str, Any] | None
    audit: AuditReport


def run_demo(folder: Path, game_name: str = "maria", scenario: str | None = None, seed: int = 1741,
             log: Callable[[str], None] = lambda _: None, options: dict[str, Any] | None = None,
             stop_at: Callable[[Phase], bool] | None = None, entropy_first: bool = False) -> DemoResult:
    """Play a whole demo campaign in ``folder``; returns where it is and how it ended.

    ``options`` are the campaign's rule options; with ``stop_at`` the play stops, before any
    orders are sent, at the first phase it accepts (a campaign left waiting for that phase); with
    ``entropy_first`` the deal waits for the players' two entropy rounds (:mod:`pbem.core.deal`)."""
    game = get_game(game_name)
    scenario = scenario or DEFAULT_SCENARIO.get(game_name, game.scenarios()[0])
    if (folder / "campaign").exists():
        raise PbemError(f"{folder / 'campaign'} already exists; give an empty folder")
    keys_dir = folder / "keys"
    keys_dir.mkdir(parents=True, exist_ok=True)
    seats, private = [], {}
    for i, name in enumerate(game.seats(scenario, {})):
        key = generate(name)
        write_private_key(key, keys_dir / f"{name}.key")
        (keys_dir / f"{name}.pub").write_text(key.public().line() + "\n")
        seats.append(Seat(name, f"{name}@demo.invalid", key.public(), "zh-TW" if i == 1 else "en"))
        private[name] = key
    now = parse_time(START)
    camp = Campaign.create(
        folder / "campaign", campaign_id=f"demo-{game_name}", game=game, scenario=scenario, options=dict(options or {}), seats=seats,
        deadlines={"default": 86400}, grace=0, start=now, seed=H(f"pbem demo {seed}".encode()),
        settings={"gm_email": "gm@demo.invalid", "outage_share": 0}, entropy_first=entropy_first,
    )
    log(f"campaign {camp.id} ({game_name}/{scenario}) in {camp.root}")
    bot = Rng(H(f"demo bots {seed}".encode()))
    rounds = mails = 0
    while rounds < MAX_ROUNDS:
        camp = Campaign(camp.root)  # the daily job appended records: read them afresh
        game = camp.game()  # with the entropy rounds before the deal, when the campaign has them
        _, state = camp.current()
        phase = game.current_phase(state)
        if phase is None or (stop_at is not None and stop_at(phase)):
            break
        now += timedelta(hours=1)
        for seat, orders in sorted(bot_orders_by_seat(game, state, phase, bot).items()):
            data = {"pbem": 1, "campaign": camp.id, "nonce": camp.nonce, "player": seat, "phase": phase.id, "orders": orders}
            fresh = H(f"demo entropy {seed} {seat} {phase.id}".encode())  # reproducible demo players
            signed = sign_file_data(data, private[seat], keys_dir / f"{seat}.key", fresh)
            _mail(camp, seat, phase.id, format_document(signed), now, mails)
            mails += 1
        result = run_campaign(camp.root, now + timedelta(minutes=1), fetch_mail=False)
        if result.error:
            raise PbemError(f"the demo stopped in {phase.id}: {result.error}")
        if not result.resolved:
            # nobody owed orders, or a phase waits for its deadline: let the day pass
            now += timedelta(days=1)
            result = run_campaign(camp.root, now, fetch_mail=False)
            if result.error or not result.resolved:
                raise PbemError(f"the demo is stuck in {phase.id}: {result.error or result.waiting}")
        rounds += len(result.resolved)
        log(f"{format_time(now)}  {', '.join(result.resolved)}")
    camp = Campaign(camp.root)
    _, final = camp.current()
    report = audit(camp)
    try:
        from pbem.core.site import build_site
    except ModuleNotFoundError:  # an installation without the report renderer
        pass
    else:
        build_site(camp)  # the club's history site: every phase, the revealed secrets, the audit
    return DemoResult(camp.root, rounds, mails, game.result(final), report)


def _mail(camp: Campaign, seat: str, phase_id: str, text: str, when: datetime, n: int) -> None:
    """Deliver a player's signed orders into the campaign's Maildir, as a mail server would."""
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["From"] = f"{seat}@demo.invalid"
    msg["To"] = camp.create_record().get("gm_email", "gm@demo.invalid")
    msg["Subject"] = f"orders {phase_id}"
    msg["Message-ID"] = f"<orders.{n}.{seat}@demo.invalid>"
    msg.set_content(f"My orders for {phase_id} are attached.\n")
    msg.add_attachment(text.encode("utf-8"), maintype="text", subtype="yaml", filename="orders.yaml")
    stamp = int(when.timestamp())
    path = camp.inbox / "new" / f"{stamp}.M{n}P1.demo"
    path.write_bytes(msg.as_bytes())
