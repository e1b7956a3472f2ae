"""The report's pages: the report templates filled with a context and the names the game's
pieces go by. Pure: a context in, text out."""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import jinja2
import jinja2.environment
import jinja2.nodes
import jinja2.runtime

from pbem.games import presentation
from pbem.render import i18n, jinjaenv, rules
from pbem.render.i18n import render


def glossary(game: str, lang: str) -> dict[str, Any]:
    """The names reports print for a game's ids (cities, generals), from its presentation; an
    empty glossary for a game without one (ids are printed as they are)."""
    return dict(_glossary(game, i18n.check_lang(lang)))


@cache
def _glossary(game: str, lang: str) -> dict[str, Any]:
    return presentation(game).glossary(lang)


def names_dir(game: str) -> str:
    """The template folder whose ``names.html``/``names.txt`` name the game's pieces."""
    return game if i18n.has_template(f"{game}/names.html") else "base"


def with_names(lang: str, ctx: dict[str, Any]) -> dict[str, Any]:
    """``ctx`` with the game's names in ``lang`` (``glossary``, ``names_dir``) for the templates
    (which read the glossary, so every page is given the one the process keeps)."""
    return dict(ctx, glossary=_glossary(ctx["game"], i18n.check_lang(lang)), names_dir=names_dir(ctx["game"]))


def report_html(lang: str, which: str, ctx: dict[str, Any]) -> str:
    """The report ``which`` (``public`` or ``private``) as HTML in ``lang``."""
    return _report(lang, which, ctx, "html")


def report_text(lang: str, which: str, ctx: dict[str, Any]) -> str:
    """The report ``which`` (``public`` or ``private``) as plain text in ``lang``."""
    return _report(lang, which, ctx, "txt")


def _report(lang: str, which: str, ctx: dict[str, Any], ext: str) -> str:
    ctx = with_names(lang, ctx)
    kept = _kept(lang, ctx, ext)
    try:
        shared = {"situation": situation(lang, ctx, ext, kept), "event_texts": event_texts(lang, ctx, ext, kept)}
    except jinja2.UndefinedError:  # a game's template that reads more of the page: rendered within each page
        shared = {}
    shared.update(fairness(lang, ctx, ext, kept))
    shared.update(next_section(lang, ctx, ext, kept))
    return render(lang, f"base/{which}.{ext}", dict(ctx, **shared, **names(lang, ctx, ext, kept)))


# What the reports of a phase say alike, rendered once for the public report and every seat's
# report (about half of their rendering): by language, format, game and public view, the last few
# phases only. A game's situation and event templates read the event, the game's names
# (``glossary``, ``names_dir``) and the public view (``public_view``, also ``view``). A phase's
# reports are given one public view (the same object, which a report does not change, some twenty
# times): the view is told by its identity, and kept with what is kept for it so that its id stays
# its own.
_SHARED: dict[tuple[str, str, str, int], dict[str, Any]] = {}
_KEPT = 8
_MARK = "\x00pbem-event\x00"


def _kept(lang: str, ctx: dict[str, Any], ext: str) -> dict[str, Any]:
    """What is kept for the reports showing ``ctx``'s public view in ``lang`` and ``ext``."""
    view = _public_view(ctx)
    key = (i18n.check_lang(lang), ext, str(ctx["game"]), id(view))
    kept = _SHARED.get(key)
    if kept is None:
        if len(_SHARED) >= _KEPT:
            _SHARED.clear()
            _SAID.clear()
        kept = _SHARED[key] = {"view": view, "situation": None, "events": {}, "fairness": {}, "next": {}, "names": None,
                               "names_view": None}
    return kept


def _public_view(ctx: dict[str, Any]) -> Any:
    return ctx["public_view"] if "public_view" in ctx else ctx["view"]


def _alone(ctx: dict[str, Any], **more: Any) -> dict[str, Any]:
    """The context a shared section is rendered in: the game, its names and the public view."""
    view = _public_view(ctx)
    return dict({"game": ctx["game"], "glossary": ctx["glossary"], "names_dir": ctx["names_dir"],
                 "view": view, "public_view": view}, **more)


def names(lang: str, ctx: dict[str, Any], ext: str, kept: dict[str, Any] | None = None) -> dict[str, Any]:
    """``{"n": module, "m": module}``: the game's names (``names_dir``'s ``names.html`` or
    ``names.txt``) as the report templates import them, made once for the reports showing
    ``ctx``'s public view instead of by every template of every page (a game's names read its
    glossary and the public view, as its event sentences do; without ``n`` when its names read
    more of a page), and pbem's macros (``base/macros.html`` or ``.txt``, which read nothing of
    a page)."""
    kept = kept if kept is not None else _kept(lang, ctx, ext)
    if kept["names"] is None:
        env = i18n.environment(lang)
        tpl = env.get_template(f"{ctx['names_dir']}/names.{ext}")
        made: dict[str, Any] = {"m": env.get_template(f"base/macros.{ext}").module}
        if i18n.reads_only(tpl, _ALONE):
            module, kept["names_view"] = _names_module(tpl, ctx)
            made["n"] = _remembering(module)
        kept["names"] = made
    elif kept.get("names_view"):  # the module kept for the process shows this view again
        shown, view = kept["names_view"]
        shown["view"] = shown["public_view"] = view
    out: dict[str, Any] = kept["names"]
    return out


# The names modules made, by template, game, names folder and glossary: a module is made once
# per process (its body defines some thirty macros, a twentieth of a phase's report rendering)
# and shows the public view of the reports it serves, set in its context before each use (its
# macros look the view up when called; the module's body itself reads none of it).
_MADE: dict[tuple[Any, ...], tuple[jinja2.environment.TemplateModule, dict[str, Any], Any]] = {}


def _names_module(tpl: jinja2.Template, ctx: dict[str, Any]) -> tuple[jinja2.environment.TemplateModule, Any]:
    """The module of the names template ``tpl`` in ``ctx``'s names context (:func:`_alone`),
    and where to set its view again (the module's context and the view), None when it is
    made for ``ctx`` alone."""
    if not _body_reads_no_view(tpl):
        return tpl.make_module(_alone(ctx)), None
    key = (tpl, ctx["game"], ctx["names_dir"], id(ctx["glossary"]))
    made = _MADE.get(key)
    if made is None:
        if len(_MADE) >= 16:
            _MADE.clear()
        context = tpl.new_context(_alone(ctx))
        made = _MADE[key] = (jinja2.environment.TemplateModule(tpl, context), context.parent, ctx["glossary"])
    module, shown, _ = made
    view = shown["view"] = shown["public_view"] = _public_view(ctx)
    return module, (shown, view)


@cache
def _body_reads_no_view(tpl: jinja2.Template) -> bool:
    """Whether the body of ``tpl`` (outside its macros, which look names up when called) reads no view."""
    env = tpl.environment
    if env.loader is None or tpl.name is None:
        return False
    tree = env.parse(env.loader.get_source(env, tpl.name)[0])
    return not any(name.name in ("view", "public_view") for node in tree.body if not isinstance(node, jinja2.nodes.Macro)
                   for name in node.find_all(jinja2.nodes.Name))


def _remembering(module: Any) -> Any:
    """A copy of ``module`` whose macros each say a name once for the same arguments (ids,
    numbers, lists of them): a game's names macros are functions of their arguments and of the
    names' context, and a phase's reports name the same pieces hundreds of times."""
    out = object.__new__(type(module))
    out.__dict__.update(vars(module))
    for name, value in vars(module).items():
        if isinstance(value, jinja2.runtime.Macro):
            setattr(out, name, _remembered(value))
    return out


def _remembered(macro: jinja2.runtime.Macro) -> Any:
    said: dict[tuple[Any, ...], Any] = {}

    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            return macro(*args, **kwargs)
        key = _key(args)
        if key is None:
            return jinjaenv.invoke(macro, args)
        out = said.get(key)
        if out is None:
            out = said[key] = jinjaenv.invoke(macro, args)
        return out

    return call


_SCALARS = (str, int, float, type(None))


def _key(args: tuple[Any, ...]) -> Any:
    """``args`` as a key (each value with its type: ``1`` and ``True`` print apart; one text,
    the most common, as itself, which no tuple equals), or None when one is not plain data."""
    if len(args) == 1 and type(args[0]) is str:
        return args[0]
    out = []
    for a in args:
        if type(a) in _SCALARS or type(a) is bool:
            out.append((type(a), a))
        elif type(a) in (list, tuple) and all(type(x) in _SCALARS for x in a):
            out.append((type(a), tuple((type(x), x) for x in a)))
        else:
            return None
    return tuple(out)


# what a report's shared sections see of its page
_ALONE = frozenset({"game", "glossary", "names_dir", "view", "public_view"})


def _page_text(text: str, ext: str) -> str:
    """A shared section's text as a page prints it (HTML: marked safe), made once and kept."""
    return jinjaenv.markup(text) if ext == "html" else text


def situation(lang: str, ctx: dict[str, Any], ext: str, kept: dict[str, Any] | None = None) -> str:
    """The situation section of a report (``ctx`` as :func:`with_names` gives it): the public
    view as the game's ``situation`` template shows it, the same in the public report and in
    every seat's."""
    kept = kept if kept is not None else _kept(lang, ctx, ext)
    if kept["situation"] is None:
        game = ctx["game"]
        kept["situation"] = _page_text(render(lang, [f"{game}/situation.{ext}", f"base/situation.{ext}"],
                                              _alone(ctx, **names(lang, ctx, ext, kept))), ext)
    out: str = kept["situation"]
    return out


def event_texts(lang: str, ctx: dict[str, Any], ext: str, kept: dict[str, Any] | None = None) -> list[str]:
    """The sentence of each of ``ctx``'s events, as the report's event list includes it: an
    event the public report and a seat's report both show is said alike in both (its sentence
    reads the event, the game's names and the public view), so it is rendered once."""
    kept = kept if kept is not None else _kept(lang, ctx, ext)
    said: dict[str, str] = kept["events"]
    events = list(ctx["events"])
    keys = [_event_key(e) for e in events]
    new = {k: e for k, e in zip(keys, events, strict=True) if k not in said}
    if new:
        out = render(lang, f"base/event_list.{ext}", _alone(ctx, events=list(new.values()), mark=_MARK, **names(lang, ctx, ext, kept)))
        said.update(zip(new, [_page_text(text, ext) for text in out.split(_MARK)[1::2]], strict=True))
    return [said[k] for k in keys]


# what the commitments and reveals and the archive sections read (with the game's names)
_FAIRNESS = ("phase", "chain", "entropy", "commitments", "archive")


def fairness(lang: str, ctx: dict[str, Any], ext: str, kept: dict[str, Any] | None = None) -> dict[str, str]:
    """``{"fairness": text}``: the commitments and reveals and the archive sections of a report,
    which the public report and every seat's say alike (the phase's chain, entropy, commitments
    and archive), rendered once; empty when ``ctx`` lacks one of them (the page then renders the
    sections itself)."""
    if not all(k in ctx for k in _FAIRNESS):
        return {}
    return {"fairness": _section(lang, ctx, ext, kept, "fairness", {k: ctx[k] for k in _FAIRNESS})}


def next_section(lang: str, ctx: dict[str, Any], ext: str, kept: dict[str, Any] | None = None) -> dict[str, str]:
    """``{"next_section": text}``: the report's next-phase section, rendered once for the reports
    of a phase showing the same next phase and result (and time zone, for a deadline); empty when ``ctx`` lacks the
    next phase or the result (the page then renders the section itself)."""
    if not ("next" in ctx and "result" in ctx):
        return {}
    only = {k: ctx[k] for k in ("next", "result")}
    nxt = ctx["next"]
    deadline = nxt.get("deadline") if isinstance(nxt, dict) else getattr(nxt, "deadline", None)
    if deadline and ctx.get("tz", "UTC") != "UTC":  # the only time the section reads the reader's time zone
        only["tz"] = ctx["tz"]
    return {"next_section": _section(lang, ctx, ext, kept, "next", only)}


def _section(lang: str, ctx: dict[str, Any], ext: str, kept: dict[str, Any] | None, name: str, only: dict[str, Any]) -> str:
    """The section ``base/<name>.<ext>`` of the reports of ``ctx``'s phase, rendered from ``only``
    (what it reads of a page) and the game's names once for all the reports giving it the same."""
    kept = kept if kept is not None else _kept(lang, ctx, ext)
    said: dict[str, str] = kept[name]
    key = _section_key(only)
    if key not in said:
        said[key] = _page_text(render(lang, f"base/{name}.{ext}", dict(only, game=ctx["game"], glossary=ctx["glossary"],
                                                                        names_dir=ctx["names_dir"], **names(lang, ctx, ext, kept))), ext)
    return said[key]


def _event_key(event: Any) -> str:
    """An event as the key of its kept sentence: its text, made once for the same values (the
    reports of a phase are given the same events, or each seat's copies of them, which a report
    does not change)."""
    if type(event) is not dict:
        return _text_of(("event", id(event)), event, repr)
    return _text_of(("event", *((k, id(v)) for k, v in event.items())), (event, tuple(event.values())),
                    lambda _content: repr(event))


def _section_key(only: dict[str, Any]) -> str:
    """What a section reads (``{name: value}``) as the key of its kept text, made once for the
    same values (the reports of a phase are given the same objects, which a report does not
    change)."""
    return _text_of(("section", *((k, id(v)) for k, v in only.items())), tuple(only.values()),
                    lambda _content: repr(sorted(only.items())))


# the key texts made for the values whose ids are keyed here (kept alive with them, so that their
# ids stay theirs), forgotten with the sections
_SAID: dict[tuple[Any, ...], tuple[Any, str]] = {}


def _text_of(ids: tuple[Any, ...], content: Any, text: Any) -> str:
    hit = _SAID.get(ids)
    if hit is None:
        hit = _SAID[ids] = (content, text(content))
    return hit[1]


def forget_shared() -> None:
    """Forget the sections rendered so far, and the sentences and comments kept for them (a
    benchmark publishes each phase as a daily run does, once)."""
    _SHARED.clear()
    _SAID.clear()
    jinjaenv.forget()
    rules.forget_links()
    i18n.forget()


# The sections of a report that its stored copy and its mail say differently (the map: a drawing
# or the mail's images; how to send orders: only a mail carries the order page), left as slots so
# that the rest, which both say alike, is rendered once (``slotted``) and each copy fills them.
SLOTS = {"map": "\x00pbem-slot-map\x00", "how": "\x00pbem-slot-how\x00"}


def slotted(lang: str, which: str, ctx: dict[str, Any]) -> tuple[str, str]:
    """The report ``which`` as HTML and as text in ``lang``, its map and how-to-send sections
    left as slots for :func:`filled` (``ctx`` tells everything else)."""
    ctx = dict(ctx, slots=SLOTS)
    return report_html(lang, which, ctx), report_text(lang, which, ctx)


def filled(lang: str, page: str, ctx: dict[str, Any], ext: str) -> str:
    """``page`` (one of :func:`slotted`'s, ``ext`` ``html`` or ``txt``) with its slots filled
    from ``ctx``: the page ``report_html``/``report_text`` makes of ``ctx``."""
    ctx = with_names(lang, ctx)
    ctx.update(names(lang, ctx, ext))
    # each slot's first mark replaced, the page copied once (a page is some 30 KB; it is filled 4 times a seat)
    found = sorted((page.find(mark), mark, render(lang, f"base/{name}.{ext}", ctx)) for name, mark in SLOTS.items())
    out, at = [], 0
    for where, mark, text in found:
        if where >= 0:
            out += [page[at:where], text]
            at = where + len(mark)
    return "".join(out) + page[at:] if out else page


def sealed_html(note: str, public_html: str) -> str:
    """A public report's HTML with the note that the private part travels sealed."""
    from html import escape

    banner = f'<div class="sealed-note"><pre>{escape(note)}</pre></div>'
    return public_html.replace("<main>", "<main>" + banner, 1)


def linked_assets(html: str, folder: str = "") -> tuple[str, dict[str, str]]:
    """A page stored beside others that share its style sheet and scripts: ``html`` with its
    inline style sheet and inline scripts replaced by links to files in ``folder`` named by their
    content (``report.<hash>.css``, ``report.<hash>.js``), and those files' names and texts."""
    files: dict[str, str] = {}

    def link(text: str, ext: str) -> str:
        name = _asset_name(text, ext)
        files[name] = text
        return folder + name

    out, at = [], 0
    for tag, ext in (("style", "css"), ("script", "js")):
        start = html.find(f"<{tag}>", at)
        end = html.find(f"</{tag}>", start)
        while start >= 0 and end >= 0:
            text = html[start + len(tag) + 2:end].strip("\n") + "\n"
            ref = link(text, ext)
            out.append(html[at:start] + (f'<link rel="stylesheet" href="{ref}">' if tag == "style" else f'<script src="{ref}"></script>'))
            at = end + len(tag) + 3
            start = html.find(f"<{tag}>", at)
            end = html.find(f"</{tag}>", start)
    return "".join(out) + html[at:], files


@lru_cache(maxsize=8)
def _asset_name(text: str, ext: str) -> str:
    """The name a report's style sheet or script is stored under (the same text in every report)."""
    from pbem.common.canonical import content_name

    return content_name("report", text, ext)
