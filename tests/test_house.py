"""The house rules a new machine relies on: tests run the CLI through the interpreter that runs them."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).parent

# A bare ``pbem`` as a program name: a subprocess call whose list starts with the word, or
# "pbem ..." handed to a shell.
BARE = re.compile(r"""(?:run|Popen|call|check_call|check_output)\(\s*\[\s*["']pbem["']"""
                  r"""|(?:shell=True|["']sh["'],\s*["']-c["']).*["']pbem\s""")


def test_no_test_runs_a_bare_pbem_from_path() -> None:
    """A fresh clone's venv is not on PATH: every test runs ``sys.executable -m pbem`` (or click's runner)."""
    offenders = [f"{p.name}:{n}" for p in sorted(TESTS.rglob("*.py")) if p.name != Path(__file__).name
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if BARE.search(line)]
    assert offenders == []


def test_the_bare_pbem_pattern_finds_what_it_is_meant_to() -> None:
    """The check above would see the forms that broke a fresh clone."""
    word = '"pbem"'  # spelled apart, so that this file holds no such call itself
    assert BARE.search('subprocess.run([' + word + ', "demo", str(root)])')
    assert BARE.search('p = subprocess.Popen( [' + word + ', "run", root])')
    assert not BARE.search('subprocess.run([sys.executable, "-m", "pbem", "demo"])')
    assert not BARE.search('assert list(signed) == [' + word + ', "campaign", "player"]')  # a list of fields
