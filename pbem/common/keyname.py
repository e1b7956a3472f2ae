"""What a key may be called: the rule the key files, ``pbem keygen`` and the key page share.

Pure (a pattern and a sentence), so the key page can hold a name to it without reading keys."""

from __future__ import annotations

import re

from pbem.errors import KeyFileError

KEY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
BAD_KEY_NAME = "'{name}' is not a usable key name (letters, digits, '.', '_', '-'; up to 64)"


def check_key_name(name: str) -> str:
    """``name`` if it is a usable key name, else KeyFileError in :data:`BAD_KEY_NAME`'s words."""
    if not KEY_NAME.fullmatch(name):
        raise KeyFileError(BAD_KEY_NAME.format(name=name))
    return name
