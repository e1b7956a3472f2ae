"""The ``pbem`` command. Each command group lives in its own module; this one wires them up and
turns a :class:`~pbem.errors.PbemError` into one line on stderr and exit status 1."""

from __future__ import annotations

import sys
from typing import Any

import click

from pbem import __version__
from pbem.errors import PbemError


class PbemGroup(click.Group):
    """A click group that reports pbem's errors as one line (no traceback unless --debug)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except PbemError as exc:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            click.echo(f"pbem: {exc}", err=True)
            sys.exit(1)


@click.group(cls=PbemGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pbem")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """pbem: play-by-email adjudicator for long board-game campaigns.

    \b
    Start with:  pbem demo
    Players:     pbem keygen NAME; pbem sign orders.yaml --key NAME.key
                 (or only a browser: the key page and the order page the GM mails)
    GMs:         pbem keygen --page keys.html; pbem new DIR ...; pbem run ROOT (daily)
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def _register() -> None:
    from pbem.cli import commands  # noqa: F401  (each module adds its commands to ``main``)


_register()
