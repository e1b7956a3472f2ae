"""GM tools: ``extend``, ``replace-player``, ``rollback``."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from pbem.cli import main
from pbem.cli.options import campaign_arg, now_option, wait_option
from pbem.core import gm
from pbem.core.campaign import Campaign, format_time, parse_duration, parse_player


@main.command()
@campaign_arg
@click.option("--by", "by", required=True, metavar="DURATION", help="e.g. 24h or 2d.")
@click.option("--reason", default="", help="Shown to the players.")
@now_option
@wait_option
def extend(campaign_dir: Path, by: str, reason: str, now: datetime, wait: float) -> None:
    """Move the waiting phase's deadline later (recorded in the archive).

    \b
    Example:  pbem extend maria-1741 --by 24h --reason "holiday"
    """
    with Campaign(campaign_dir).locked(wait) as camp:
        rec = gm.extend(camp, parse_duration(by), now, reason)
        _, state = camp.current()
        phase = camp.game().current_phase(state)
        assert phase is not None
        click.echo(f"{rec['phase']}: deadline now {format_time(camp.deadline(phase.deadline_kind))}")


@main.command("replace-player")
@campaign_arg
@click.argument("player", metavar="SEAT=EMAIL:PUBKEY")
@click.option("--lang", default="en", show_default=True, help="en or zh-TW.")
@click.option("--tz", default="UTC", show_default=True, metavar="ZONE", help="The new player's time zone for deadlines in mail, e.g. Asia/Taipei.")
@now_option
@wait_option
def replace_player(campaign_dir: Path, player: str, lang: str, tz: str, now: datetime, wait: float) -> None:
    """Give a seat to a new player (recorded in the archive).

    \b
    Example:  pbem replace-player maria-1741 louis=new@example.org:new.pub
    """
    name = player.partition("=")[0]
    seat = parse_player(player, {name: lang}, {name: tz})
    with Campaign(campaign_dir).locked(wait) as camp:
        rec = gm.replace_player(camp, seat, now)
    click.echo(f"seat {rec['seat']} now played by {seat.email} (record {rec['index']})")


@main.command()
@campaign_arg
@click.option("--to", "phase_id", required=True, metavar="PHASE", help="The phase to reopen.")
@now_option
@wait_option
def rollback(campaign_dir: Path, phase_id: str, now: datetime, wait: float) -> None:
    """Reopen a resolved phase. Appends a record that supersedes the later ones; nothing is deleted.

    The phase gets a fresh deadline; orders sent before for it and later phases no longer count.
    Every player gets a notice, and the reports of phases resolved again are mailed anew.

    \b
    Example:  pbem rollback maria-1741 --to 1741-2/prussia
    """
    with Campaign(campaign_dir).locked(wait) as camp:
        from pbem.core.pipeline import publish_pending

        rec = gm.rollback(camp, phase_id, now)
        publish_pending(camp)  # the reopened phase's report and order forms go out with the notice
        _, state = camp.current()
        phase = camp.game().current_phase(state)
        deadline = f", new deadline {format_time(camp.deadline(phase.deadline_kind))}" if phase is not None else ""
    click.echo(f"reopened {phase_id} (record {rec['index']} restores the state of record {rec['to']}){deadline}; every player was notified")
