"""``pbem run``: the daily batch over every campaign under a folder."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import click

from pbem.cli import main
from pbem.cli.options import now_option
from pbem.core.pipeline import parse_shard, run_all, sharded_campaigns


@main.command()
@click.argument("root", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--jobs", "-j", default=1, show_default=True, help="Campaigns processed in parallel.")
@click.option("--no-fetch", is_flag=True, help="Do not fetch mail by IMAP, even where configured.")
@click.option("--no-send", is_flag=True, help="Only queue the mail; do not send it by SMTP, even where configured.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--shard", metavar="K/N", default="0/1", show_default=True,
              help="Run only shard K (0 to N-1) of N: for N hosts sharing ROOT, each campaign runs on exactly one.")
@now_option
def run(root: Path, jobs: int, no_fetch: bool, no_send: bool, quiet: bool, shard: str, now: datetime) -> None:
    """Fetch, take in, resolve what is due, publish and send the mail, for every campaign under ROOT.

    A campaign whose mail.yaml names an IMAP server is fetched first; one that names an SMTP
    server has its outbox sent last (exactly once, as pbem send). Otherwise mail stays queued
    in CAMPAIGN/outbox for pbem send.

    \b
    Example (cron, every hour):
      0 * * * *  pbem run /srv/pbem --quiet   (mail settings: docs/mail.md)
    On N hosts sharing /srv/pbem: pbem run /srv/pbem --shard K/N on host K (docs/shards.md).
    """
    part = parse_shard(shard)
    total = len(sharded_campaigns(root, part))
    results = []
    with click.progressbar(length=total, label="campaigns", file=sys.stderr, hidden=quiet or total == 0) as bar:
        for result in run_all(root, now, jobs=jobs, fetch_mail=not no_fetch, send_mail=not no_send,
                              progress=bar.update, shard=part):
            results.append(result)
    results.sort(key=lambda r: r.path)
    for r in results:
        click.echo(r.line())
    broken = [r for r in results if r.error]
    click.echo(
        f"{len(results)} campaign(s): {sum(len(r.resolved) for r in results)} phase(s) resolved, "
        f"{sum(r.accepted for r in results)} order file(s) accepted, {sum(r.refused for r in results)} refused, "
        f"{sum(r.queued for r in results)} mail(s) queued, {len(broken)} skipped",
        err=True,
    )
    if broken:
        sys.exit(1)
