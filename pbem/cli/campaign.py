"""GM commands on one campaign: ``new``, ``intake``, ``status``, ``resolve``, ``audit``, ``check``."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import click

from pbem.cli import main
from pbem.cli.options import campaign_arg, echo_lines, now_option, wait_option
from pbem.common.safeyaml import load_yaml
from pbem.core import gm, shape
from pbem.core.audit import audit as run_audit
from pbem.core.audit import check_sent
from pbem.core.campaign import Campaign, format_time, parse_duration, parse_pin, parse_player
from pbem.core.envelope import parse_order_document
from pbem.core.intake import intake as run_intake
from pbem.core.intake import internal_refusals
from pbem.core.phase import chosen_documents, due, settle
from pbem.core.phase import resolve as run_resolve
from pbem.core.pipeline import publish_pending, set_aside
from pbem.errors import CampaignError
from pbem.games import get_game

DEFAULT_DEADLINES = {"setup": "7d", "politics": "48h", "hussars": "24h", "stage": "48h", "winter": "48h", "default": "48h"}


def _pairs(values: tuple[str, ...], what: str) -> dict[str, str]:
    out = {}
    for v in values:
        k, sep, val = v.partition("=")
        if not sep or not k or not val:
            raise click.BadParameter(f"'{v}' is not {what}")
        out[k] = val
    return out


@main.command()
@campaign_arg
@click.option("--game", "game_name", required=True, help="maria or ror.")
@click.option("--scenario", required=True, help="e.g. intro or advanced for maria.")
@click.option("--player", "players", multiple=True, required=True, metavar="SEAT=EMAIL:PUBKEY", help="One per seat.")
@click.option("--lang", "langs", multiple=True, metavar="SEAT=LANG", help="en (default) or zh-TW.")
@click.option("--tz", "tzs", multiple=True, metavar="SEAT=ZONE", help="The seat's time zone for deadlines in mail, e.g. louis=Europe/Paris (default UTC).")
@click.option("--id", "campaign_id", help="Campaign id (default: the folder name).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="A rule option, e.g. combat.tie_rule=defender_wins_ties.")
@click.option("--deadline", "deadlines", multiple=True, metavar="KIND=DURATION", help="e.g. stage=48h, setup=7d.")
@click.option("--grace", default="0m", show_default=True, help="Grace period after each deadline.")
@click.option("--gm", "gm_email", default="pbem@localhost", show_default=True, help="The address reports are sent from.")
@click.option("--autopilot-after", default=0, show_default=True, help="After this many missed deadlines in a row a seat is played by the bot (0: never).")
@click.option("--autopilot-suggest", is_flag=True, help="Pre-fill each player's order form with the autopilot's orders for the seat (a suggestion; sending nothing still plays the defaults).")
@click.option("--outage-share", default=0.5, show_default=True, help="Hold a phase when at least this share of players (and 2 or more) sent nothing; 0 turns the guard off.")
@click.option("--encrypt-private", is_flag=True, help="Encrypt private reports to each player's key.")
@click.option("--entropy-first/--deal-now", default=True, show_default=True,
              help="Make the deal only after two rounds in which every player commits to, then reveals, a random value "
                   "(nobody, the GM included, can steer it); --deal-now deals at once from the campaign's seed alone.")
@now_option
def new(campaign_dir: Path, game_name: str, scenario: str, players: tuple[str, ...], langs: tuple[str, ...], tzs: tuple[str, ...], campaign_id: str | None,
        options: tuple[str, ...], deadlines: tuple[str, ...], grace: str, gm_email: str, autopilot_after: int, autopilot_suggest: bool,
        outage_share: float, encrypt_private: bool, entropy_first: bool, now: datetime) -> None:
    """Create a campaign folder.

    \b
    Example:
      pbem new maria-1741 --game maria --scenario advanced \\
        --player maria_theresa=mt@example.org:mt.pub --player louis=lx@example.org:louis.pub \\
        --player frederick=fritz@example.org:fritz.pub --deadline stage=72h
    """
    game = get_game(game_name)
    seats = [parse_player(p, _pairs(langs, "SEAT=LANG"), _pairs(tzs, "SEAT=ZONE")) for p in players]
    opts = {k: _option_value(v) for k, v in _pairs(options, "KEY=VALUE").items()}
    table = dict(DEFAULT_DEADLINES)
    table.update(_pairs(deadlines, "KIND=DURATION"))
    camp = Campaign.create(
        campaign_dir, campaign_id=campaign_id or campaign_dir.name, game=game, scenario=scenario, options=opts, seats=seats,
        deadlines={k: parse_duration(v) for k, v in table.items()}, grace=parse_duration(grace), start=now,
        settings={"gm_email": gm_email, "autopilot_after": autopilot_after, "outage_share": outage_share, "encrypt_private": encrypt_private,
                  **({"autopilot_suggest": True} if autopilot_suggest else {})},
        entropy_first=entropy_first,
    )
    rec = camp.create_record()
    click.echo(f"created {camp.id} ({game_name}/{scenario}) in {campaign_dir}")
    click.echo(f"public hash-chain anchor: {rec['public_anchor']}")
    click.echo(f"secret-key commitment:    {rec['secret_commitment']}")
    click.echo(f"campaign nonce:           {rec['nonce']}")
    if entropy_first:
        click.echo("the deal waits for every player's entropy: the first two rounds are deal/commit and deal/reveal")


def _option_value(text: str) -> object:
    value = load_yaml(text, "--option")
    return value


@main.command()
@campaign_arg
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@now_option
@wait_option
def intake(campaign_dir: Path, sources: tuple[Path, ...], now: datetime, wait: float) -> None:
    """Accept or refuse order files from .yaml files, .eml mails, mbox files or Maildir folders.

    \b
    Example:  pbem intake maria-1741 maria-1741/inbox
    """
    for source in sources:
        if not source.exists():
            raise CampaignError(f"{source}: no such file or folder")
    with Campaign(campaign_dir).locked(wait) as camp:
        report = run_intake(camp, list(sources), now)
    echo_lines(v.line() for v in report.verdicts)
    click.echo(f"{report.accepted} accepted, {report.refused} refused", err=True)


@main.command()
@campaign_arg
@now_option
def status(campaign_dir: Path, now: datetime) -> None:
    """Show the phase, its deadline, and who has sent valid orders."""
    camp = Campaign(campaign_dir).require()
    _, state = camp.current()
    game = camp.game()
    phase = game.current_phase(state)
    if phase is None:
        click.echo(f"{camp.id}: the game is over: {game.result(state)}")
        return
    docs = chosen_documents(camp, camp.phase_number(), phase.id)
    click.echo(f"{camp.id}: phase {phase.id} (#{camp.phase_number()}), deadline {format_time(camp.deadline(phase.deadline_kind))}")
    for power in phase.powers:
        seat = game.seat_of(state, power)
        acc = docs.get(seat) if seat else None
        sent = acc is not None and power in parse_order_document(acc.path.read_bytes(), acc.path.name).orders
        click.echo(f"  {power:<6} {seat or '-':<16} {'orders in (seq ' + str(acc.seq) + ')' if sent and acc else 'waiting'}")
    d = due(camp, now)
    click.echo(f"due: {'yes' if d.due else 'no'} ({d.reason})")
    last = next((r for r in reversed(camp.effective_records()) if r["kind"] == "phase"), None)
    for line in internal_refusals(camp) + (set_aside(last) if last else []):
        click.echo(f"ATTENTION: {line}")


@main.command()
@campaign_arg
@click.option("--force", is_flag=True, help="Resolve now even if orders are missing and the deadline has not passed.")
@click.option("--confirm-missing", is_flag=True, help="Resolve although the outage guard holds the phase (many players silent).")
@now_option
@wait_option
def resolve(campaign_dir: Path, force: bool, confirm_missing: bool, now: datetime, wait: float) -> None:
    """Resolve the phase now waiting, if it is due.

    \b
    Example:  pbem resolve maria-1741 --force
    """
    with Campaign(campaign_dir).locked(wait) as camp:
        settle(camp, now)
        publish_pending(camp)  # finishes the publishing of a run that was interrupted
        if confirm_missing:
            gm.confirm_missing(camp, now)
        d = due(camp, now, force)
        if not d.due:
            click.echo(f"not due: {d.reason}")
            return
        outcome = run_resolve(camp, now)
        publish_pending(camp)
    missing = f"; no orders from {', '.join(d.missing)} (defaults used)" if d.missing else ""
    click.echo(f"resolved {outcome.record['phase']} (record {outcome.record['index']}){missing}")
    for line in set_aside(outcome.record):
        click.echo(f"ATTENTION: {line}")


@main.command()
@campaign_arg
@click.option("--pin", "pins", multiple=True, metavar="N:HASH",
              help="A record pinned by a report or receipt ('record N sha256:HASH'); the audit fails if it is missing or differs. Repeatable.")
@click.option("--public", "public", is_flag=True,
              help="Check only a copy of the campaign's archive/ folder (what a player can have mid-game): chain, pins, chain keys, entropy, pauses, roster changes.")
@click.option("--sent", "sent", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="FILE",
              help="A signed order file you sent: the audit fails if the phase was resolved with an older file of yours, or none. Repeatable.")
def audit(campaign_dir: Path, pins: tuple[str, ...], public: bool, sent: tuple[Path, ...]) -> None:
    """Re-verify signatures, the hash chain and commitments, and replay the whole game.

    \b
    Examples (a pin is the 'record N sha256:…' line of any report or receipt you received):
      pbem audit maria-1741 --pin 12:3f2a…
      pbem audit copy-of-archive --public --pin 12:3f2a…   # a folder holding archive/
      pbem audit copy-of-archive --public --sent orders.signed.yaml   # was my file used?
    """
    report = run_audit(Campaign(campaign_dir), [parse_pin(p) for p in pins], public=public)
    report.notes += check_sent(Campaign(campaign_dir), sent)
    echo_lines(report.lines())
    click.echo("audit passed")


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--campaign", "campaign_dir", required=True, type=click.Path(file_okay=False, path_type=Path))
def check(file: Path, campaign_dir: Path) -> None:
    """Validate an order file against the campaign's current phase before sending it.

    \b
    Example:  pbem check orders.yaml --campaign maria-1741
    """
    camp = Campaign(campaign_dir).require()
    doc = parse_order_document(file.read_bytes(), str(file), require_signature=False)
    shape.check_envelope(doc.data, str(file), doc.line_of)
    _, state = camp.current()
    game = camp.game()
    phase = game.current_phase(state)
    problems: list[str] = []
    if phase is None:
        raise CampaignError("the game is over")
    if doc.orders is not None and doc.data.get("nonce") is None and camp.create_record().get("nonce_required"):
        problems.append(f"{file}: nonce: the field 'nonce' is missing; add the line 'nonce: {camp.nonce}' below 'campaign:'")
    if doc.phase != phase.id:
        problems.append(f"{file}: phase: the current phase is '{phase.id}', not '{doc.phase}'")
    elif doc.orders is not None:  # intake refuses a file that does not fit the round's schema
        try:
            shape.check_orders(game.name, phase.kind, doc.orders, str(file), doc.line_of)
        except shape.ShapeError as exc:
            problems.append(str(exc))
    try:
        for power, orders in sorted((doc.orders or {}).items()):
            for p in game.validate(state, power, orders):
                path = p.path if p.path.startswith("orders.") else f"orders.{power}.{p.path}".rstrip(".")
                line = doc.line_of(path)
                problems.append(f"{file}{', line ' + str(line) if line else ''}: {path}: {p.message}")
    except Exception:  # noqa: BLE001 - the rules cannot read a file of the wrong shape; its first problem is said
        if not problems:
            raise
    if problems:
        echo_lines(problems)
        sys.exit(1)
    click.echo(f"{file}: no problems found for {phase.id}")
