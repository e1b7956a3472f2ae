"""The ``pbem`` command. Each command group lives in its own module; this one wires them up and
turns a :class:`~pbem.errors.PbemError` into one line on stderr and exit status 1.

A command's module is imported only when that command runs (or its own ``--help`` is asked
for): ``pbem --help`` lists the commands from :data:`COMMANDS` alone, so a cron line or a
player's ``pbem sign`` does not pay for the code of every other command."""

from __future__ import annotations

import errno
import importlib
import sys
from typing import Any

import click

from pbem import __version__
from pbem.errors import PbemError, describe_os_error

# Every top-level command: its module under pbem.cli and the line ``pbem --help`` shows for it
# (the command's own short help; tests/test_cli_lazy.py keeps the two the same).
COMMANDS: dict[str, tuple[str, str]] = {
    "new": ("campaign", "Create a campaign folder."),
    "intake": ("campaign", "Accept or refuse order files from .yaml files, .eml mails, mbox files or Maildir folders."),
    "status": ("campaign", "Show the phase, its deadline, and who has sent valid orders."),
    "resolve": ("campaign", "Resolve the phase now waiting, if it is due."),
    "audit": ("campaign", "Re-verify signatures, the hash chain and commitments, and replay the whole game."),
    "check": ("campaign", "Validate an order file against the campaign's current phase before sending it."),
    "demo": ("demo", "Play a complete sample campaign: keys, signed mails, intake, resolution, reports, audit."),
    "fetch": ("fetch", "Store every new message of the campaign's mailbox in CAMPAIGN_DIR/inbox (a Maildir)."),
    "extend": ("gm", "Move the waiting phase's deadline later (recorded in the archive)."),
    "replace-player": ("gm", "Give a seat to a new player (recorded in the archive)."),
    "rollback": ("gm", "Reopen a resolved phase."),
    "keygen": ("keys", "Make a signing key: NAME.key (secret, mode 0600) and NAME.pub (give it to your GM)."),
    "sign": ("keys", "Sign an order file; fills seq, entropy_reveal and entropy_commit."),
    "verify": ("keys", "Check an order file's signature (and, with --campaign, that it is for that campaign)."),
    "decrypt": ("keys", "Open an encrypted private report (a .eml or the armoured text)."),
    "report": ("report", "Render the reports of every phase (or one) into DIR/reports/ and queue their mails."),
    "run": ("run", "Fetch, take in, resolve what is due, publish and send the mail, for every campaign under ROOT."),
    "send": ("send", "Deliver every message in CAMPAIGN_DIR/outbox, exactly once, and move it to sent/."),
    "case": ("case", "Adjudication cases (the tests/cases format)."),
    "map": ("map", "Maria map files: check them, draw them."),
}


class PbemGroup(click.Group):
    """A click group that loads each command's module on first use and reports pbem's errors,
    and the operating system's (disk full, read-only, permission), as one line (no traceback
    unless --debug)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            # The module adds its commands to ``main`` as it is imported.
            importlib.import_module(f"pbem.cli.{COMMANDS[cmd_name][0]}")
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx) if name in COMMANDS]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except PbemError as exc:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            click.echo(f"pbem: {exc}", err=True)
            sys.exit(1)
        except OSError as exc:
            if (ctx.obj and ctx.obj.get("debug")) or exc.errno == errno.EPIPE:  # click handles EPIPE
                raise
            click.echo(f"pbem: {describe_os_error(exc)}", err=True)
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
