"""Runs the pbem CLI with the mini test game registered (for subprocess tests)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from minigame import GAME  # noqa: E402

from pbem.cli import main  # noqa: E402
from pbem.games import register  # noqa: E402

register("mini", GAME)
main()
