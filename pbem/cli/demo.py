"""``pbem demo``: play a complete sample campaign."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import click

from pbem.cli import main
from pbem.demo import run_demo


@main.command()
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--game", "game_name", default="maria", show_default=True, help="maria or ror.")
@click.option("--scenario", help="Default: maria advanced, ror early.")
@click.option("--seed", default=1741, show_default=True, help="Changes the bots' play and the campaign's dice.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
@click.option("--entropy-first/--deal-now", default=True, show_default=True,
              help="Deal only after the players' two entropy rounds, as 'pbem new' does.")
def demo(folder: Path | None, game_name: str, scenario: str | None, seed: int, quiet: bool, entropy_first: bool) -> None:
    """Play a complete sample campaign: keys, signed mails, intake, resolution, reports, audit.

    \b
    Example:  pbem demo ./demo
    """
    folder = folder or Path(tempfile.mkdtemp(prefix="pbem-demo-"))
    log = (lambda line: None) if quiet else (lambda line: click.echo(line, err=True))
    result = run_demo(folder, game_name, scenario, seed, log, entropy_first=entropy_first)
    camp = result.campaign
    click.echo(f"campaign:  {camp}")
    click.echo(f"players:   keys in {folder / 'keys'}")
    click.echo(f"played:    {result.rounds} phases from {result.mails} signed mails")
    click.echo(f"result:    {result.result}")
    reports = camp / "reports"
    if reports.is_dir():
        click.echo(f"reports:   {reports}")
    site = camp / "site" / "index.html"
    if site.is_file():
        click.echo(f"history:   {site}")
    click.echo(f"outbox:    {len(list((camp / 'outbox').glob('*.eml')))} mails ready for 'pbem send'")
    click.echo("audit:     " + "; ".join(result.audit.lines()))
    if not result.audit.replay:
        sys.exit(1)
