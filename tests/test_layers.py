"""The rooms of the package and what each may import (docs/ARCHITECTURE.md), read from the source.

Every ``import`` of every module counts, at the top or inside a function: an import put off into a
function still ties the two modules together. Where main breaks a rule today the exception is
listed below by name, as a known debt; nothing may be added to those lists, and a second test
fails when a listed exception is gone, so the lists only shrink.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pbem"
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"

# pbem.common: the pure helpers every room may use (no campaign, no files, no mail). It stands on
# nothing of pbem but the exception tree.
COMMON_MAY_IMPORT = {"errors"}
# Libraries the rules never touch (DESIGN: pure rules; the CLI, templates and keys live elsewhere).
NOT_IN_GAMES = {"click", "jinja2", "cryptography"}

# Known debts: (importer, imported) pairs that break a rule on main today. Only ever remove.
KNOWN_EDGES = {
    # pbem map check, and pbem map render of a map file: the authoring tool for Maria's map files
    # (a campaign's map is drawn through the registry, as any game's)
    ("cli.map", "games.maria.board"),
    ("cli.map", "render.maria.svgmap"),
}
# Known import circles (each a set of modules that import one another). Only ever shrink.
KNOWN_CIRCLES: list[set[str]] = []


def short(module: str) -> str:
    return module.removeprefix("pbem.") if module != "pbem" else "pbem"


def modules() -> dict[str, Path]:
    """Every module of the package by short name (``common.fair``; a package by its folder)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[short(".".join(parts))] = path
    return out


def imports_of(name: str, path: Path, known: Iterable[str]) -> tuple[set[str], set[str]]:
    """The package modules ``name`` imports (short names) and the outside top-level names."""
    known = set(known)
    inside: set[str] = set()
    outside: set[str] = set()
    full_name = "pbem" if name == "pbem" else f"pbem.{name}"
    package = full_name if path.name == "__init__.py" else full_name.rpartition(".")[0]
    wanted: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            wanted += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            # ``from pbem.games import maria`` imports the module pbem.games.maria
            wanted += [f"{base}.{a.name}" if short(f"{base}.{a.name}") in known else base
                       for a in node.names]
    for full in wanted:
        if full != "pbem" and not full.startswith("pbem."):
            outside.add(full.split(".")[0])
            continue
        mod = short(full)
        while mod not in known and "." in mod:
            mod = mod.rpartition(".")[0]
        if mod in known and mod != name:
            inside.add(mod)
    return inside, outside


@cache
def graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    mods = modules()
    inside, outside = {}, {}
    for name, path in mods.items():
        inside[name], outside[name] = imports_of(name, path, mods)
    return inside, outside


def room(module: str) -> str:
    return module.split(".")[0]


def game_of(module: str) -> str | None:
    """The game whose own package ``module`` is in: ``games.maria.board`` and its presentation
    ``render.maria.names`` are Maria's; ``games.base`` and ``render.report`` are no game's."""
    parts = module.split(".")
    if len(parts) < 2 or parts[0] not in ("games", "render"):
        return None
    return parts[1] if (PACKAGE / "games" / parts[1] / "__init__.py").is_file() else None


def broken_rule(importer: str, imported: str) -> str | None:
    """Why ``importer`` may not import ``imported`` (both short names), or None."""
    src, dst = room(importer), room(imported)
    if src == "common" and dst not in ("common", *COMMON_MAY_IMPORT):
        return "the pure helpers import nothing else of pbem"
    if src == "games" and dst not in ("games", "errors", "data", "common"):
        return "the rules import only rules, errors, data and the pure helpers"
    if src == "render" and dst in ("cli", "demo", "cases"):
        return "renderers never import the CLI"
    if src == "render" and dst == "core":
        return "renderers take plain views: never core"
    if src == "render" and game_of(imported) not in (None, game_of(importer)):
        if game_of(importer) is None:
            return "generic renderers reach a game only through the registry (games.presentation), never into its modules"
        return "a game's presentation reads its own game only"
    if src == "core" and dst in ("cli", "demo", "cases"):
        return "core never imports the CLI"
    if src in ("core", "cli") and game_of(imported) is not None:
        return "core and the CLI reach a game only through the registry"
    return None


def circles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(group)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_every_import_keeps_to_the_rooms() -> None:
    inside, outside = graph()
    broken = sorted(f"{a} imports {b}: {why}" for a, deps in inside.items() for b in deps
                    if (why := broken_rule(a, b)) and (a, b) not in KNOWN_EDGES)
    broken += sorted(f"{a} imports {lib}: the rules stay pure" for a, libs in outside.items()
                     if room(a) == "games" for lib in libs & NOT_IN_GAMES)
    assert broken == [], "\n".join(broken)


def test_no_new_import_circle() -> None:
    inside, _ = graph()
    new = [sorted(c) for c in circles(inside) if not any(c <= known for known in KNOWN_CIRCLES)]
    assert new == [], f"import circles: {new}"


def test_every_known_debt_still_exists() -> None:
    """A debt paid off leaves the list (so nothing new can hide in its place)."""
    inside, _ = graph()
    gone = sorted(f"{a} -> {b}" for a, b in KNOWN_EDGES if b not in inside.get(a, set()))
    allowed = sorted(f"{a} -> {b}" for a, b in KNOWN_EDGES if broken_rule(a, b) is None)
    found = circles(inside)
    shrunk = [sorted(known) for known in KNOWN_CIRCLES if known not in found]
    assert (gone, allowed, shrunk) == ([], [], []), "remove (or shrink) these from the known debts"


def test_the_rule_check_sees_what_it_is_meant_to() -> None:
    assert broken_rule("games.maria.model", "render.svgmap")
    assert broken_rule("games.ror.turn", "core.campaign")
    assert broken_rule("games.ror.turn", "cli")
    assert broken_rule("render.report", "cli.report")
    assert broken_rule("core.pipeline", "cli.run")
    assert broken_rule("render.report", "core.outbox")
    assert broken_rule("games.ror.model", "common.fair") is None
    assert broken_rule("render.report", "common.canonical") is None
    assert broken_rule("games.ror.model", "core.campaign")
    assert broken_rule("render.report", "core")
    assert broken_rule("render.keypage", "core.keys")
    assert broken_rule("common.shapewords", "games.base")
    assert broken_rule("common.fair", "core.campaign")
    assert broken_rule("common.safeyaml", "render.report")
    assert broken_rule("common.keyname", "errors") is None
    assert broken_rule("common.fair", "common.canonical") is None
    assert broken_rule("render.report", "games.maria.board")
    assert broken_rule("render.report", "render.maria.names")
    assert broken_rule("render.ror.orderpage", "games.maria.model")
    assert broken_rule("render.maria.names", "games.maria.board") is None
    assert broken_rule("render.report", "games.base") is None
    assert broken_rule("render.report", "games") is None
    assert broken_rule("core.intake", "games.maria.orders")
    assert broken_rule("cli.run", "render.ror.orderpage")
    assert broken_rule("cli.run", "games") is None
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    src = "def f():\n    from pbem.render.svgmap import render_map\n    from . import y\n"
    assert imports_in(src, "games.x", {"games.x", "games.y", "render.svgmap"}) == {"render.svgmap", "games.y"}


def imports_in(source: str, name: str, known: set[str]) -> set[str]:
    """``imports_of`` on a piece of source text (for the self-check above)."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.py"
        path.write_text(source)
        return imports_of(name, path, known)[0]


def test_the_architecture_page_lists_the_known_debts() -> None:
    """docs/ARCHITECTURE.md names every known debt and no other (``- `a` → `b`, `c``` lines and
    ``- circle: `a`, `b``` lines)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    edges, found_circles = set(), []
    for line in text.splitlines():
        if m := re.match(r"- circle: (.*)$", line):
            found_circles.append(set(re.findall(r"`([\w.]+)`", m.group(1))))
        elif m := re.match(r"- `([\w.]+)` → (.*)$", line):
            edges |= {(m.group(1), b) for b in re.findall(r"`([\w.]+)`", m.group(2))}
    assert edges == KNOWN_EDGES
    assert sorted(map(sorted, found_circles)) == sorted(map(sorted, KNOWN_CIRCLES))
