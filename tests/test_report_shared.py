"""What every report of a phase says alike (the situation, each event's sentence) is rendered
once for the public report and every seat's: the pages are the same bytes as when each report
rendered it again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest
from test_report_advanced import SAMPLES

from pbem.common.fair import PhaseRng, Rng
from pbem.core import publish
from pbem.core.campaign import Campaign
from pbem.demo import run_demo
from pbem.games import get_game
from pbem.render import i18n, report, reportpage

RECORD = {"kind": "phase", "phase": "x", "phase_number": 3, "resolved_at": "2027-01-04T09:00:00Z"}
GAMES = {"maria": ("intro", SAMPLES + [{"type": "move", "power": "FR", "pieces": ["F1"], "path": ["Strasbourg", "Metz"], "force_march": True},
                                       {"type": "no_such_type", "what": "<b>"}]),
         "ror": ("early", [{"type": "no_such_type", "what": "<b>"}])}


def contexts(game_name: str) -> list[tuple[str, dict[str, Any]]]:
    """(which, context) of a phase's public report and of each seat's."""
    game = get_game(game_name)
    scenario, events = GAMES[game_name]
    state = game.new_game(scenario, {}, PhaseRng(Rng(b"p", "public"), Rng(b"s", "secret")))
    public_view = game.view(state, report.PUBLIC)
    header = report.phase_header("c", game_name, RECORD, "0003-x")
    public = report.public_context(header=header, view=public_view, events=events, record=RECORD, chain=None,
                                   upcoming=None, map_svg=None, result=None)
    out = [("public", public)]
    for seat in game.seats(scenario, {}):
        ctx = report.private_context(public, seat=seat, view=game.view(state, seat), own_events=[], openings=[],
                                     form=None, map_svg=None)
        out.append(("private", ctx))
    return out


@pytest.mark.parametrize("game_name", sorted(GAMES))
@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_shared_sections_give_the_same_pages(game_name: str, lang: str) -> None:
    reportpage.forget_shared()
    for which, ctx in contexts(game_name):
        for ext, page in (("html", reportpage.report_html), ("txt", reportpage.report_text)):
            alone = i18n.render(lang, f"base/{which}.{ext}", reportpage.with_names(lang, ctx))  # each section rendered here
            assert page(lang, which, ctx) == alone, (which, ext)
            assert page(lang, which, ctx) == alone, (which, ext)  # and again from what is kept


def test_a_changed_view_is_shown_not_the_kept_section() -> None:
    reportpage.forget_shared()
    (_, ctx), *_ = contexts("maria")
    before = reportpage.report_text("en", "public", ctx)
    view = dict(ctx["view"], draw_pile=ctx["view"]["draw_pile"] + 7)
    after = reportpage.report_text("en", "public", dict(ctx, view=view))
    assert before != after
    assert after == i18n.render("en", "base/public.txt", reportpage.with_names("en", dict(ctx, view=view)))


@pytest.mark.parametrize(("game_name", "scenario"), [("maria", "intro"), ("ror", None)])
def test_published_phases_are_the_same_with_every_section_rendered_in_each_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                                 game_name: str, scenario: str | None) -> None:
    """A played campaign's last phases (deadlines, the hash chain, entropy, the archive section,
    each seat's own report and mail): every file and mail publishing writes is the same bytes
    when no section is shared, each page rendering all of its own."""
    rounds = iter(range(7))
    done = run_demo(tmp_path / "demo", game_name, scenario, stop_at=lambda _phase: next(rounds, None) is None)
    camp = Campaign(done.campaign)
    indexes = [r["index"] for r in camp.effective_records() if r["kind"] == "phase"][-3:]
    assert indexes
    reportpage.forget_shared()
    shared = {i: publish.render_record(camp, i) for i in indexes}

    def in_each_page(*_args: Any, **_kwargs: Any) -> Any:
        raise jinja2.UndefinedError("rendered within each page")

    for name in ("situation", "event_texts"):
        monkeypatch.setattr(reportpage, name, in_each_page)
    for name in ("fairness", "next_section", "names"):  # the names too: each template imports its own
        monkeypatch.setattr(reportpage, name, lambda *_args, **_kwargs: {})
    for i in indexes:
        alone = publish.render_record(camp, i)
        assert alone.files == shared[i].files, i
        assert alone.mails == shared[i].mails, i


def test_names_are_made_once_only_when_they_read_no_more_than_the_shared_sections() -> None:
    """A game's names module is made once for the reports of a phase when its macros read only
    the game's names and the public view; a template reading more of a page is not shared."""
    env = i18n.environment("en")
    alone = frozenset({"game", "glossary", "names_dir", "view", "public_view"})
    assert i18n.reads_only(env.get_template("maria/names.html"), alone)
    assert i18n.reads_only(env.get_template("ror/names.txt"), alone)
    assert not i18n.reads_only(env.get_template("base/private.html"), alone)  # it reads the seat, the form...
    reportpage.forget_shared()
    (_, ctx), *_ = contexts("maria")
    ctx = reportpage.with_names("en", ctx)
    made = reportpage.names("en", ctx, "html")["n"]
    assert reportpage.names("en", ctx, "html")["n"] is made
    assert str(made.power("AU")) == "Austria"


def test_a_names_module_kept_for_the_process_shows_the_view_of_the_reports_it_serves() -> None:
    """The names module is made once per process and language; a macro reading the public view
    (what a victory gives depends on the game's variant) says what the view of the reports being
    rendered says, phases taken in turn or interleaved, as a module made for that view alone."""
    event = {"winner_power": "SX", "major_victory": True}
    base = reportpage.with_names("en", {"game": "maria"})
    views = [{"variant": "intro", "tracks": {}}, {"variant": "advanced", "tracks": {"saxony": "A"}},
             {"variant": "advanced", "tracks": {"saxony": "P"}}]

    def said(view: dict[str, Any], ext: str) -> str:
        return str(reportpage.names("en", dict(base, public_view=view), ext)["n"].victory_gives(event))

    def alone(view: dict[str, Any], ext: str) -> str:
        tpl = i18n.environment("en").get_template(f"maria/names.{ext}")
        return str(tpl.make_module(dict(base, view=view, public_view=view)).victory_gives(event))

    reportpage.forget_shared()
    for ext in ("txt", "html"):
        wanted = [alone(v, ext) for v in views]
        assert len(set(wanted)) == 3
        assert [said(v, ext) for v in views] == wanted
        assert [said(v, ext) for v in reversed(views)] == wanted[::-1]  # each kept, shown again
        assert reportpage.names("en", dict(base, public_view=views[0]), ext)["n"].power("SX") == "Saxony"
