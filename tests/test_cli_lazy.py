"""``pbem --help`` loads no command's code; each command still loads when it runs."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import click

from pbem.cli import COMMANDS, main


def test_help_lists_every_command_without_importing_their_code() -> None:
    script = ("import sys, json\nfrom pbem.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
              "print(json.dumps(sorted(m for m in sys.modules if m.startswith('pbem.'))))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    help_text, loaded = out.rsplit("\n", 2)[0], json.loads(out.rsplit("\n", 2)[1])
    assert [m for m in loaded if m.startswith(("pbem.core", "pbem.games", "pbem.render"))] == []
    for name, (_, short) in COMMANDS.items():
        assert f"  {name} " in help_text and short[:40] in help_text.replace("\n", " ")


def test_the_help_list_says_what_each_command_itself_says() -> None:
    """Every module registers exactly the commands COMMANDS names for it, with the same short help."""
    for module in sorted({m for m, _ in COMMANDS.values()}):
        importlib.import_module(f"pbem.cli.{module}")
    assert sorted(main.commands) == sorted(COMMANDS)
    for name, (_, short) in COMMANDS.items():
        assert main.commands[name].get_short_help_str(limit=200) == short, name


def test_a_command_loads_when_it_is_asked_for() -> None:
    ctx = click.Context(main)
    assert isinstance(main.get_command(ctx, "sign"), click.Command)
    assert main.get_command(ctx, "no-such-command") is None
