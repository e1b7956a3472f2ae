"""``pbem fetch``: pull the campaign's mail from its IMAP mailbox (see pbem.core.fetch)."""

from __future__ import annotations

from pathlib import Path

import click

from pbem.cli import main
from pbem.core.fetch import fetch_mail
from pbem.core.mailconfig import SECURITIES, load_mail_config, parse_host_port, with_overrides


@main.command("fetch")
@click.argument("campaign_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--imap", "server", metavar="HOST:PORT", help="IMAP server (else imap.host/port).")
@click.option("--security", type=click.Choice(SECURITIES),
              help="Default: ssl on port 993, else starttls.")
@click.option("--mailbox", help="Mailbox to read (else imap.mailbox, else INBOX).")
@click.option("--cafile", type=click.Path(exists=True, dir_okay=False),
              help="Trust the server certificate signed by this CA (PEM).")
def fetch(campaign_dir: Path, server: str | None, security: str | None, mailbox: str | None,
          cafile: str | None) -> None:
    """Store every new message of the campaign's mailbox in CAMPAIGN_DIR/inbox (a Maildir).

    \b
    Example:  PBEM_IMAP_PASSWORD=... pbem fetch campaigns/maria-1741
    Settings: imap.host, port, security, user, mailbox in CAMPAIGN_DIR/mail.yaml or
    ~/.config/pbem/mail.yaml; the password from PBEM_IMAP_PASSWORD or imap.password in a
    mail.yaml only you can read. A message is marked \\Seen on the server only once it is
    safely stored; running it again never stores a message twice.
    """
    config = load_mail_config(campaign_dir)
    host, port = parse_host_port(server) if server else (None, None)
    settings = with_overrides(config.imap, host=host, port=port, security=security,
                              mailbox=mailbox, cafile=cafile)
    outcome = fetch_mail(campaign_dir, settings, out=click.echo,
                         err=lambda line: click.echo(line, err=True))
    click.echo(f"{len(outcome.stored)} fetched", err=True)
