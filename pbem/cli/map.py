"""``pbem map check`` and ``pbem map render``: check a Maria map file, draw a map."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from pbem.cli import main
from pbem.errors import DataError
from pbem.games.maria.board import Board, Forces, load_board, load_forces


@main.group("map")
def map_group() -> None:
    """Maria map files: check them, draw them."""


def _forces_path(map_file: Path, forces: str | None) -> Path | None:
    if forces is not None:
        return Path(forces)
    beside = map_file.with_name("forces.yaml")
    return beside if beside.is_file() else None


@map_group.command("check")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--forces", type=click.Path(exists=True, dir_okay=False),
              help="Forces file to check too (default: forces.yaml beside FILE, if any).")
@click.option("--no-forces", is_flag=True, help="Check the map only.")
def map_check(file: str, forces: str | None, no_forces: bool) -> None:
    """Check a map file and print its counts, one per line.

    \b
    Example:  pbem map check seeds/maria/map.yaml
    On a broken file, prints one line per problem on stderr and exits 1.
    """
    path = Path(file)
    try:
        board = load_board(path)
        fpath = None if no_forces else _forces_path(path, forces)
        loaded = load_forces(board, fpath) if fpath is not None else None
    except DataError as exc:
        for problem in exc.problems or [str(exc)]:
            click.echo(problem, err=True)
        sys.exit(1)
    for name, n in board.counts().items():
        click.echo(f"{n} {name}")
    if loaded is not None:
        click.echo(f"{len(loaded.generals)} generals")
        click.echo(f"{len(loaded.trains)} supply trains")


def _campaign_map(folder: Path, lang: str) -> str:
    """A campaign's current public position, drawn by its game's presentation."""
    from pbem.core.campaign import Campaign
    from pbem.errors import CampaignError
    from pbem.render.reportmap import map_svg

    camp = Campaign(folder).require()
    _, state = camp.current()
    game = str(camp.create_record()["game"])
    svg = map_svg(game, camp.game().view(state, "public"), [], lang)
    if svg is None:
        raise CampaignError(f"{folder}: this campaign's game has no map to draw")
    return svg


def _start_view(map_file: str | None, forces_file: str | None, intro: bool
                ) -> tuple[Board, dict[str, Any]]:
    board = load_board(map_file)
    if forces_file is None and map_file is not None:
        beside = _forces_path(Path(map_file), None)
        if beside is None:
            raise DataError(f"{map_file}: no forces.yaml beside the map; give --forces FILE")
        forces_file = str(beside)
    forces: Forces = load_forces(board, forces_file)
    return board, forces.start_view(intro=intro)


@map_group.command("render")
@click.argument("folder", required=False, type=click.Path(exists=True, file_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The SVG file to write.")
@click.option("--map", "map_file", type=click.Path(exists=True, dir_okay=False),
              help="Map file (default: the shipped map).")
@click.option("--forces", "forces_file", type=click.Path(exists=True, dir_okay=False),
              help="Forces file (default: forces.yaml beside the map).")
@click.option("--intro", is_flag=True, help="The introductory game's pieces only.")
@click.option("--lang", type=click.Choice(["en", "zh-TW"]), default="en", show_default=True)
def map_render(folder: str | None, output: str, map_file: str | None, forces_file: str | None,
               intro: bool, lang: str) -> None:
    """Draw a map as SVG: a campaign's position (any game with a map), or Maria's starting position.

    \b
    Example:  pbem map render -o start.svg
              pbem map render --lang zh-TW -o start-zh.svg
    """
    if folder is not None:
        svg = _campaign_map(Path(folder), lang)
    else:
        from pbem.render.maria.svgmap import render_map

        board, view = _start_view(map_file, forces_file, intro)
        svg = render_map(board, view, lang=lang)
    Path(output).write_text(svg, encoding="utf-8")
    click.echo(output)
