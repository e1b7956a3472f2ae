"""The Maria board's public names in one place, for callers that want the board, its map file
and its starting forces together.

The work lives in three modules, one job each:

- ``pbem.games.maria.geography``: the :class:`Board` the rules ask questions of (M1.4, M1.5);
- ``pbem.games.maria.mapfile``: loading and checking ``map.yaml`` (``parse_board``, ``load_board``);
- ``pbem.games.maria.forces``: loading and checking ``forces.yaml`` (``parse_forces``, ``load_forces``).

The file formats are documented for game masters in ``seeds/maria/README.md``.
"""

from __future__ import annotations

from pbem.games.maria.forces import (
    Forces,
    FortressStart,
    GeneralSpec,
    PowerSpec,
    TrainSpec,
    load_forces,
    parse_forces,
)
from pbem.games.maria.geography import (
    ELECTORAL_COUNT,
    FORTRESS_CLASSES,
    MAJOR_POWERS,
    MAPS_OF_POWER,
    MAX_GENERALS_PER_CITY,
    MAX_TROOPS,
    POWERS,
    SIDE_OF_MAJOR,
    STANDARD_MAPS,
    STANDARD_TERRITORIES,
    SUIT_SYMBOLS,
    SUITS,
    Board,
    City,
    MapWindow,
    Road,
    Territory,
    sector_row,
)
from pbem.games.maria.mapfile import default_map_path, load_board, parse_board

__all__ = [
    "ELECTORAL_COUNT", "FORTRESS_CLASSES", "MAJOR_POWERS", "MAPS_OF_POWER", "MAX_GENERALS_PER_CITY",
    "MAX_TROOPS", "POWERS", "SIDE_OF_MAJOR", "STANDARD_MAPS", "STANDARD_TERRITORIES", "SUITS",
    "SUIT_SYMBOLS", "Board", "City", "Forces", "FortressStart", "GeneralSpec", "MapWindow",
    "PowerSpec", "Road", "Territory", "TrainSpec", "default_map_path", "load_board", "load_forces",
    "parse_board", "parse_forces", "sector_row",
]
