"""``pbem send``: deliver the outbox by SMTP, exactly once (see pbem.core.delivery)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pbem.cli import main
from pbem.core.delivery import deliver
from pbem.core.mailconfig import SECURITIES, load_mail_config, parse_host_port, with_overrides
from pbem.core.sendplan import describe_plan, plan_delivery


@main.command("send")
@click.argument("campaign_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--smtp", "server", metavar="HOST:PORT", help="SMTP server (else smtp.host/port).")
@click.option("--security", type=click.Choice(SECURITIES),
              help="Default: ssl on port 465, else starttls.")
@click.option("--from", "sender", metavar="ADDR", help="Envelope sender (default: From header).")
@click.option("--cafile", type=click.Path(exists=True, dir_okay=False),
              help="Trust the server certificate signed by this CA (PEM).")
@click.option("--dry-run", is_flag=True, help="Print what would be sent; send nothing.")
@click.option("--wait", is_flag=True, help="Wait for another pbem send on this outbox to end.")
@click.option("--retries", type=click.IntRange(0, 50), default=3, show_default=True,
              help="Reconnections after a dropped connection before giving up.")
@click.option("--retry-delay", type=click.FloatRange(0, 600), default=5.0, show_default=True,
              help="Seconds before the first reconnection (doubles each time).")
def send(campaign_dir: Path, server: str | None, security: str | None, sender: str | None,
         cafile: str | None, dry_run: bool, wait: bool, retries: int,
         retry_delay: float) -> None:
    """Deliver every message in CAMPAIGN_DIR/outbox, exactly once, and move it to sent/.

    \b
    Example:  PBEM_SMTP_USER=gm@example.org PBEM_SMTP_PASSWORD=... \\
              pbem send campaigns/maria-1741 --smtp smtp.example.org:587
    Credentials come from PBEM_SMTP_USER / PBEM_SMTP_PASSWORD or from mail.yaml (mode 0600),
    never from the command line. Prints one line per delivered message; exits 1 if anything
    is left in the outbox. Running it again is always safe.
    """
    config = load_mail_config(campaign_dir)
    host, port = parse_host_port(server) if server else (None, None)
    settings = with_overrides(config.smtp, host=host, port=port, security=security,
                              sender=sender, cafile=cafile)
    if dry_run:
        plan = plan_delivery(campaign_dir, sender=settings.sender)
        for line in describe_plan(plan):
            click.echo(line)
        return
    outcome = deliver(campaign_dir, settings, retries=retries, retry_delay=retry_delay, wait=wait,
                      out=click.echo, err=lambda line: click.echo(line, err=True))
    left = f", {len(outcome.left)} left in the outbox" if outcome.left else ""
    refused = sum(len(r) for r in outcome.refused.values())
    refused_note = f", {refused} recipient(s) refused" if refused else ""
    click.echo(f"{len(outcome.sent)} sent{left}{refused_note}", err=True)
    if not outcome.ok:
        sys.exit(1)
