"""Options shared by several commands, defined once."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from pbem.core.campaign import parse_time


def _now(ctx: click.Context, param: click.Parameter, value: str | None) -> datetime:
    return parse_time(value) if value else datetime.now(UTC)


now_option = click.option(
    "--now", callback=_now, metavar="ISO", help="Act as if it were this time (for tests and replays); default: the clock."
)
wait_option = click.option(
    "--wait", type=float, default=30.0, show_default=True, help="Seconds to wait for the campaign lock."
)
campaign_arg = click.argument("campaign_dir", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))


def echo_lines(lines: Any) -> None:
    for line in lines:
        click.echo(line)
