"""Every event an engine emits can be printed: each call site of ``ctx.emit`` (Rome) and
``ctx.event`` / ``ctx.private`` (Maria) is read from the source, and the event's templates are
rendered, in both languages and both formats, with exactly the fields that call site gives.
A template that reads a field only some call sites give must read it with ``e.get``; the
strict templates would otherwise stop a report in the middle of a campaign."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import jinja2
import pytest

from pbem.render import i18n
from pbem.render.reportpage import glossary

ROOT = Path(__file__).resolve().parent.parent
ENGINES = {"ror": ("pbem/games/ror", ("emit",)), "maria": ("pbem/games/maria", ("event", "private"))}
MISSING = re.compile(r"^'dict object' has no attribute '(\w+)'$")
STAND_IN = re.compile(r"^'str object' has no attribute '\w+'$")


def call_sites(game: str) -> list[tuple[str, dict[str, Any], str]]:
    """(event type, fields with their literal values or a stand-in, where) of every call site
    whose fields can be read from the source."""
    package, names = ENGINES[game]
    out = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names):
                continue
            at = 1 if node.func.attr == "private" else 0  # private(power, type, ...)
            if len(node.args) != at + 1 or not isinstance(node.args[at], ast.Constant) \
                    or not isinstance(node.args[at].value, str) or any(k.arg is None for k in node.keywords):
                continue  # fields built at run time: the games' own tests print those
            etype = node.args[at].value
            fields = {k.arg: k.value.value if isinstance(k.value, ast.Constant) else "x1" for k in node.keywords}
            if node.func.attr == "private":  # Maria's private() adds the power and the audience
                fields.update(power="x1", audience="x1")
            out.append((etype, fields, f"{path.relative_to(ROOT)}:{node.lineno}"))
    return out


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_emitted_event_renders_with_the_fields_it_is_given(game: str) -> None:
    sites = call_sites(game)
    assert len(sites) > 40
    problems = []
    stand_ins = 0
    for lang in ("en", "zh-TW"):
        env = i18n.environment(lang)
        for ext in ("html", "txt"):
            tpl = env.from_string(
                '{% import "' + game + '/names.' + ext + '" as n with context %}{% include ["' + game
                + '/events/" ~ e.type ~ ".' + ext + '", "base/events/" ~ e.type ~ ".' + ext
                + '", "base/events/_other.' + ext + '"] %}')
            for etype, fields, where in sites:
                try:
                    tpl.render(e={"type": etype, **fields}, glossary=glossary(game, lang), game=game, view={})
                except jinja2.UndefinedError as exc:
                    m = MISSING.match(str(exc))
                    if m and m.group(1) not in fields:
                        problems.append(f"{where}: {etype}.{ext} ({lang}) reads '{m.group(1)}', which it is not given")
                    elif not (m or STAND_IN.match(str(exc))):
                        problems.append(f"{where}: {etype}.{ext} ({lang}): {exc}")
                except (TypeError, ValueError, AttributeError):
                    stand_ins += 1  # the stand-in string "x1" where the engine gives a number, list or mapping
                    continue
                # any other error (a syntax error, an unknown filter or test, a missing template) fails
    assert not problems, "\n".join(sorted(set(problems)))
    # the stand-ins stop only a few renders: nearly every call site's template really rendered
    assert stand_ins <= len(sites) * 4 // 5, (stand_ins, len(sites) * 4)


def test_a_void_event_with_only_a_power_renders(tmp_path: Path) -> None:
    """A game's VOID event need not name the order or a reason: the mini test game's VOID bid
    (a card not in hand) carries only the power, and the report prints it in both languages."""
    from minigame import GAME

    from pbem.common.fair import PhaseRng, Rng

    state = GAME.new_game("short", {}, PhaseRng(Rng(b"p"), Rng(b"s")))
    res = GAME.resolve(state, {"N": {"bid": 99}, "S": {}}, PhaseRng(Rng(b"p1"), Rng(b"s1")))
    voids = [e for e in res.events if e["type"] == "void"]
    assert [e["power"] for e in voids] == ["N", "S"] and "order" not in voids[0]
    for lang in ("en", "zh-TW"):
        env = i18n.environment(lang)
        for ext in ("html", "txt"):
            tpl = env.from_string('{% import "base/names.' + ext + '" as n with context %}{% include "base/events/void.' + ext + '" %}')
            out = tpl.render(e=voids[0], glossary=glossary("mini", lang), game="mini", view={}, lang=lang)
            assert ("你的命令無效" if lang == "zh-TW" else "Your order was VOID") in out and "N" in out


def test_lists_in_reports_are_joined_in_the_readers_language() -> None:
    """A zh-TW reader sees 「L1、L2」 between list items, an English one "L1, L2": the report
    templates join lists with the ``listed`` filter, never a comma written into the template."""
    written_in = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "templates").rglob("*"))
                  if p.suffix in (".html", ".txt") and 'join(", ")' in p.read_text(encoding="utf-8")]
    assert written_in == []
    event = {"type": "dispatch", "commander": "7", "legions": ["L1", "L2"], "strength": 4}
    for lang, want in (("zh-TW", "L1、L2"), ("en", "L1, L2")):
        tpl = i18n.environment(lang).from_string('{% import "ror/names.txt" as n with context %}{% include "ror/events/dispatch.txt" %}')
        text = tpl.render(e=event, glossary=glossary("ror", lang), game="ror", view={})
        assert want in text, text
