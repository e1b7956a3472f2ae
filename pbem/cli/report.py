"""``pbem report``: (re)render a campaign's reports, order forms and mails; ``--all`` also writes
the static history site."""

from __future__ import annotations

from pathlib import Path

import click

from pbem.cli import main
from pbem.cli.options import campaign_arg, wait_option
from pbem.core.campaign import Campaign
from pbem.errors import CampaignError


@main.command()
@campaign_arg
@click.option("--phase", "phase", metavar="ID", help="Only this phase: its id (round-3), number (3) or folder name (0003-round-3); 0 or 'start' for the opening report.")
@click.option("--all", "everything", is_flag=True, help="Also write the history site DIR/site/ (with every secret opened once the game is over).")
@wait_option
def report(campaign_dir: Path, phase: str | None, everything: bool, wait: float) -> None:
    """Render the reports of every phase (or one) into DIR/reports/ and queue their mails.

    Rendering is idempotent: unchanged files and mails are not rewritten, and a mail already
    sent is not queued again.

    \b
    Example:  pbem report maria-1741 --all
    """
    from pbem.core.publish import publish_all, publish_phase, report_key
    from pbem.core.site import build_site

    with Campaign(campaign_dir).locked(wait) as camp:
        if phase is None:
            written = publish_all(camp)
        else:
            recs = [r for r in camp.effective_records() if r["kind"] in ("create", "phase")]
            match = [r for r in recs if phase in (r.get("phase"), str(r.get("phase_number", 0)), report_key(r))
                     or (phase == "start" and r["kind"] == "create")]
            if not match:
                known = ", ".join(str(r.get("phase") or "start") for r in recs)
                raise CampaignError(f"no phase '{phase}' in {camp.id} (phases: {known})")
            written = publish_phase(camp, match[-1]["index"])
        if everything:
            written += build_site(camp)
    for path in written:
        click.echo(path)
    click.echo(f"{len(written)} file(s) rendered", err=True)
