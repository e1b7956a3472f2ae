"""Imports every command module so that each adds its commands to the ``pbem`` group."""

from pbem.cli import campaign, case, demo, gm, keys, run  # noqa: F401
from pbem.cli import fetch as _fetch  # noqa: F401
from pbem.cli import map as _map  # noqa: F401
from pbem.cli import report as _report  # noqa: F401
from pbem.cli import send as _send  # noqa: F401
