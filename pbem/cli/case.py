"""``pbem case run``: run adjudication case files."""

from __future__ import annotations

import sys

import click

from pbem.cases import iter_case_files, load_cases, run_case
from pbem.cli import main


@main.group("case")
def case_group() -> None:
    """Adjudication cases (the tests/cases format)."""


@case_group.command("run")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--quiet", "-q", is_flag=True, help="Print only failures and the closing line.")
def case_run(paths: tuple[str, ...], quiet: bool) -> None:
    """Run every case in PATHS (files, or folders searched for *.yaml).

    \b
    Example:  pbem case run tests/cases/maria/
    Prints PASS id / FAIL id: expected …, got … and a closing 'N passed, N failed' line;
    exits 1 if any case failed.
    """
    passed = failed = 0
    for path in iter_case_files(list(paths)):
        for case in load_cases(path):
            result = run_case(case)
            if result.passed:
                passed += 1
            else:
                failed += 1
            if not (quiet and result.passed):
                click.echo(result.line())
    click.echo(f"{passed} passed, {failed} failed")
    if failed:
        sys.exit(1)
