"""Two languages for every report, mail and order-form comment: English and Traditional Chinese.

Templates mark their words with Jinja2's i18n extension (``{% trans %}``, ``_()``); the words
live in gettext catalogs under ``pbem/locale/<locale>/LC_MESSAGES/pbem.po`` (compiled ``.mo``
beside it, both committed). English is the source language, so ``en`` needs no catalog.

Refreshing the catalogs after a template changes::

    pybabel extract -F pbem/locale/babel.cfg -o pbem/locale/pbem.pot --no-location --omit-header .
    pybabel update -i pbem/locale/pbem.pot -d pbem/locale -D pbem -l zh_TW --no-fuzzy-matching
    # translate the new entries in pbem/locale/zh_TW/LC_MESSAGES/pbem.po, then
    pybabel compile -d pbem/locale -D pbem -l zh_TW

``tests/test_i18n.py`` fails when a message lacks a translation or a ``.mo`` is stale.
"""

from __future__ import annotations

import gettext
import hashlib
import re
import sys
import weakref
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import jinja2.runtime
import jinja2.visitor
import markupsafe

from pbem.render import jinjaenv
from pbem.render.cachedir import cache_folder

DOMAIN = "pbem"
# The roster's language tags and the gettext locale that serves each.
LOCALES = {"en": "en", "zh-TW": "zh_TW"}
DEFAULT_LANG = "en"


def locale_dir() -> Path:
    """The folder of the compiled catalogs (inside the package, so a wheel ships it)."""
    return Path(str(resources.files("pbem") / "locale"))


def check_lang(lang: str) -> str:
    """``lang`` if pbem speaks it, else the default language (a roster may predate a language)."""
    return lang if lang in LOCALES else DEFAULT_LANG


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The gettext catalog of ``lang`` (English: the identity)."""
    lang = check_lang(lang)
    if lang == DEFAULT_LANG:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=str(locale_dir()), languages=[LOCALES[lang]])


def _finalize(value: Any) -> Any:
    # None renders as nothing rather than the word "None" (a missing troop count, no deadline).
    return "" if value is None else value


def cache_key(lang: str, catalog: bytes | None = None, version: str | None = None) -> str:
    """What a compiled template of ``lang`` depends on besides its own source: pbem's version, this
    module and :mod:`~pbem.render.jinjaenv` (the environment's settings and the translation done
    when compiling), Jinja2's and Python's versions and the language's catalog (``catalog``, by
    default the ``.mo`` file)."""
    import pbem

    lang = check_lang(lang)
    if catalog is None:
        mo = locale_dir() / LOCALES[lang] / "LC_MESSAGES" / f"{DOMAIN}.mo"
        catalog = mo.read_bytes() if lang != DEFAULT_LANG else b""
    h = hashlib.sha256()
    for part in (version or pbem.__version__, jinja2.__version__, sys.version, lang):
        h.update(part.encode("utf-8") + b"\0")
    for module in (__file__, jinjaenv.__file__):
        h.update(hashlib.sha256(Path(module).read_bytes()).digest())
    h.update(hashlib.sha256(catalog).digest())
    return h.hexdigest()[:24]


def _bytecode_cache(lang: str) -> jinja2.BytecodeCache | None:
    """The compiled templates of ``lang`` under ``$XDG_CACHE_HOME/pbem`` (``~/.cache/pbem``), or
    none when that folder cannot be made."""
    folder = cache_folder(f"templates-{cache_key(lang)}")
    return jinjaenv.Compiled(str(folder)) if folder is not None else None


class Marks:
    """How a sentence of ``lang`` is punctuated (the macros' and names' ``colon()``, ``sep()``,
    ``paren(x)``...): full-width after Chinese words. Python, not macros: a report says them a
    few hundred times, and a macro call costs several times a function's."""

    def __init__(self, lang: str) -> None:
        zh = check_lang(lang) == "zh-TW"
        self._colon, self._comma, self._sep = ("：", "，", "、") if zh else (": ", ", ", ", ")
        self._semi, self._stop, self._gap = ("；", "。", "") if zh else ("; ", ".", " ")
        self._paren = ("（", "）") if zh else (" (", ")")

    def colon(self) -> str:
        return self._colon

    def comma(self) -> str:
        return self._comma

    def sep(self) -> str:
        return self._sep

    def semi(self) -> str:
        return self._semi

    def stop(self) -> str:
        return self._stop

    def gap(self) -> str:
        return self._gap

    @jinja2.pass_eval_context
    def paren(self, ctx: jinja2.nodes.EvalContext, x: Any) -> str:
        """``x`` in brackets (escaped in HTML, as ``{{ x }}`` prints it)."""
        x = _finalize(x)
        if ctx.autoescape:
            return jinjaenv.markup("".join((self._paren[0], jinjaenv.escape(x), self._paren[1])))
        return f"{self._paren[0]}{x}{self._paren[1]}"

    @jinja2.pass_eval_context
    def swatch(self, ctx: jinja2.nodes.EvalContext, power: Any) -> str:
        """The colour square of ``power`` before its name."""
        p = _finalize(power)
        if ctx.autoescape and type(p) is str:  # Markup("...%s...") % p, written out: p escaped, the whole marked safe
            return jinjaenv.markup(f'<span class="sw sw-{jinjaenv.escape(p)}" aria-hidden="true"></span>')
        if ctx.autoescape:
            return markupsafe.Markup('<span class="sw sw-%s" aria-hidden="true"></span>') % p
        return f'<span class="sw sw-{p}" aria-hidden="true"></span>'

    @staticmethod
    def heading(text: Any) -> str:
        """A plain-text heading: ``text`` underlined."""
        return underline(text)


@cache
def environment(lang: str) -> jinja2.Environment:
    """The Jinja2 environment of ``lang``: templates from ``templates/``, HTML autoescaped,
    strict about undefined names so a typo in a template fails a test instead of printing ''."""
    env = jinjaenv.Environment(
        loader=jinjaenv.GameLoader(),
        autoescape=_AUTOESCAPE,
        extensions=["jinja2.ext.i18n"],
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=_finalize,
        bytecode_cache=_bytecode_cache(lang),
        cache_size=-1,  # every template kept, in a dict: a report includes some forty, a bounded cache reorders its queue on each
    )
    env.catalog = translations(lang)
    env.install_gettext_translations(env.catalog, newstyle=True)  # type: ignore[attr-defined]
    env.globals["lang"] = check_lang(lang)
    env.globals["marks"] = Marks(lang)
    env.filters["yaml_comment"] = yaml_comment
    env.filters["underline"] = underline
    env.filters["columns"] = columns
    env.filters["comment_wrap"] = comment_wrap
    env.filters["text_value"] = text_value
    env.filters["element_text"] = element_text
    env.filters["local_time"] = local_time
    env.filters["say_game"] = lambda text: say_game(lang, text)
    env.filters["say_words"] = lambda text: say_words(lang, text)
    env.filters["say_line"] = lambda text: say_line(lang, text)
    env.filters["listed"] = jinja2.pass_eval_context(lambda ctx, items: listed(lang, items, ctx.autoescape))
    from pbem.render import rules  # rule ids linked to the rules reference

    env.filters["plurals"] = plurals
    env.filters["tidy"] = lambda text: tidy(lang, text)
    env.filters["keyed"] = jinja2.pass_environment(keyed)
    env.filters["link_rules"] = rules.link_rules
    env.filters["note_rules"] = rules.note_rules
    env.globals["rules"] = rules
    return env


# whether a template autoescapes, by its name: asked for every context a render or an include makes
_AUTOESCAPE = cache(jinja2.select_autoescape(enabled_extensions=("html", "svg"), default_for_string=False))


def has_template(name: str) -> bool:
    """Whether the template ``name`` exists (in a game's own folder or pbem's)."""
    try:
        environment(DEFAULT_LANG).get_template(name)
    except jinja2.TemplateNotFound:
        return False
    return True


def render(lang: str, template: str | list[str], context: dict[str, Any]) -> str:
    """Render ``template`` (or the first of a list that exists) in ``lang``."""
    env = environment(lang)
    tpl = env.select_template(template) if isinstance(template, list) else env.get_template(template)
    return tpl.render(context)


def reads_only(template: jinja2.Template, names: frozenset[str]) -> bool:
    """Whether ``template`` reads nothing of its context but ``names`` (and the environment's
    globals): then a module made of it in a context holding ``names`` is the one any context
    holding the same ``names`` would make."""
    reads = _READS.get(template)
    if reads is None:
        import jinja2.meta

        env = template.environment
        source = env.loader.get_source(env, str(template.name))[0] if env.loader is not None else ""
        reads = _READS[template] = frozenset(jinja2.meta.find_undeclared_variables(env.parse(source))) - set(env.globals)
    return reads <= names


# what each template reads of its context, while its environment keeps it (a template whose
# source changed is loaded again, as a new one)
_READS: weakref.WeakKeyDictionary[jinja2.Template, frozenset[str]] = weakref.WeakKeyDictionary()


def gettext_for(lang: str, message: str) -> str:
    """``message`` translated into ``lang`` (for the few words Python code puts in a mail)."""
    return translations(lang).gettext(message)


_FIELD = re.compile(r"%\((\w+)\)s")
_MIN_WORDS = 8  # characters a message says besides its fields, to be a pattern of sentences


@cache
def _game_patterns(lang: str, any_message: bool = False) -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each catalog message with fields (such as a game's ``%(city)s already holds a hussar
    (M7.1)``) as a pattern of the English sentence it gives, most specific first; a message that
    says too little besides its fields would match any sentence and is left out, unless
    ``any_message``."""
    catalog: dict[str, str] = getattr(translations(lang), "_catalog", {})
    out = []
    for msgid in catalog:
        if not isinstance(msgid, str) or "%(" not in msgid or not (any_message or len(_FIELD.sub("", msgid).strip()) >= _MIN_WORDS):
            continue
        seen: set[str] = set()

        def field(m: re.Match[str], seen: set[str] = seen) -> str:
            name = m.group(1)
            if name in seen:
                return f"(?P={name})"
            seen.add(name)
            return f"(?P<{name}>.+?)"

        parts = _FIELD.split(msgid)  # literal, name, literal, name, ...
        pattern = "".join(re.escape(p) if i % 2 == 0 else field(re.match(r"(\w+)", p)) for i, p in enumerate(parts))  # type: ignore[arg-type]
        out.append((re.compile(pattern), msgid))
    out.sort(key=lambda pm: -len(_FIELD.sub("", pm[1])))
    return tuple(out)


_PLURAL = re.compile(r"\b(\d+) ((?:[A-Za-z]+ )?[A-Za-z]+)\(s\)")


def listed(lang: str, items: Iterable[Any], autoescape: bool = False) -> str:
    """``items`` as a list in ``lang``'s own writing: 「L1、L2」 in Chinese, "L1, L2" in English
    (the ``listed`` filter). Under autoescape the items are escaped and the result is markup."""
    sep = "、" if lang == "zh-TW" else ", "
    if autoescape:
        return markupsafe.Markup(sep).join(markupsafe.escape(x) for x in items)
    return sep.join(str(x) for x in items)


def keyed(env: jinja2.Environment, events: Iterable[Any]) -> bool:
    """Whether one of ``events`` has a key that is set (``events|selectattr("key", "defined")|selectattr("key")|list``
    as a test, without a filter's calls for each event)."""
    for e in events:
        key = env.getattr(e, "key")
        if not isinstance(key, jinja2.Undefined) and key:
            return True
    return False


def plurals(text: Any) -> Any:
    """English counts read as words, not template text: ``1 troop(s)`` -> ``1 troop``,
    ``3 card(s)`` -> ``3 cards`` (the text keeps its type, so HTML stays marked safe)."""
    if type(text) in _TEXTS and "(s)" not in text:  # most sentences count nothing: as they are
        return text
    out = str(text)
    if "(s)" in out:  # most sentences count nothing
        out = _PLURAL.sub(lambda m: f"{m.group(1)} {m.group(2)}{'' if m.group(1) == '1' else 's'}", out)
    return type(text)(out) if hasattr(text, "__html__") else out


_TEXTS = (str, markupsafe.Markup)
_CJK_GAP = re.compile(r"(?<=[\u3000-\u9fff\uff00-\uffef]) (?=[\u3000-\u9fff\uff00-\uffef])")


_HAN = "\u4e00-\u9fff"
_ZH_BRACKETS = re.compile(rf"(?<=[{_HAN}]) ?\(([^()\n]*)\)| \(([{_HAN}][^()\n]*)\)")
_ZH_MARKS = re.compile(rf"(?<=[{_HAN}）])([:;,]) ?")
_FULL_WIDTH = {":": "：", ";": "；", ",": "，"}


def _zh_sentence(text: str) -> str:
    """Chinese punctuation after Chinese words: ``死亡 (派系 A): R4.9`` -> ``死亡（派系 A）：R4.9``,
    ``Fabius (2) (叛軍)`` -> ``Fabius (2)（叛軍）``; a Latin name keeps its own brackets (``Valerius (3)``)."""
    text = _ZH_BRACKETS.sub(lambda m: f"（{m.group(1) if m.group(1) is not None else m.group(2)}）", text)
    return _ZH_MARKS.sub(lambda m: _FULL_WIDTH[m.group(1)], _CJK_GAP.sub("", text))


def tidy(lang: str, text: Any) -> Any:
    """A sentence of a report as its language writes it: English counts as words
    (:func:`plurals`); in Chinese no space between two Chinese characters (a name filled into a
    sentence: ``法國征服皮爾森``, not ``法國 征服 皮爾森``) and full-width punctuation after a
    Chinese word (:func:`_zh_sentence`)."""
    out = plurals(text)
    if check_lang(lang) == "zh-TW":
        out = type(out)(_zh_sentence(str(out))) if hasattr(out, "__html__") else _zh_sentence(str(out))
    return out


def say_game(lang: str, text: str) -> str:
    """A sentence a game said in English (a VOID reason, an order problem) in ``lang``: the
    catalog's translation of the message it was filled in from, with the same values (ids and
    names; a value that is itself a message, such as a power's name or a reason given inside
    the sentence, said in ``lang`` too); the English sentence when the catalog does not know it."""
    if check_lang(lang) == DEFAULT_LANG or not isinstance(text, str):
        return text
    return str(tidy(lang, _say(check_lang(lang), text, 3)))  # a Chinese word filled in: no gap


def _say(lang: str, text: str, depth: int) -> str:
    direct = translations(lang).gettext(text)
    if direct != text or depth == 0:
        return direct
    for pattern, msgid in _game_patterns(lang):
        m = pattern.fullmatch(text)
        if m:
            values = {k: _say(lang, v, depth - 1) for k, v in m.groupdict().items()}
            return translations(lang).gettext(msgid) % values
    return text


_WORDS = re.compile(r"\b[A-Za-z][A-Za-z-]*(?: [A-Za-z][A-Za-z-]*)*\b")


def say_words(lang: str, text: str) -> str:
    """A label a game made of ids and words (a die's purpose: ``R9.2 mortality chit``) in
    ``lang``: each run of words the catalog knows, whole or word by word, in ``lang``; ids,
    rule ids and numbers as they are."""
    if check_lang(lang) == DEFAULT_LANG or not isinstance(text, str):
        return text

    def run(m: re.Match[str]) -> str:
        whole = gettext_for(lang, m.group(0))
        if whole != m.group(0):
            return whole
        return " ".join(gettext_for(lang, w) for w in m.group(0).split(" "))

    return str(tidy(lang, _WORDS.sub(run, text)))


def say_line(lang: str, text: str) -> str:
    """A line pbem's own code filled in from a catalog message (the audit's lines) in ``lang``:
    the translation of the message it matches, with the same values; the line as it is when
    no message matches."""
    if check_lang(lang) == DEFAULT_LANG or not isinstance(text, str):
        return text
    direct = translations(lang).gettext(text)
    if direct != text:
        return direct
    for pattern, msgid in _game_patterns(check_lang(lang), True):
        m = pattern.fullmatch(text)
        if m:
            return translations(lang).gettext(msgid) % m.groupdict()
    return text


_PROBLEM = re.compile(r"^(?:line (\d+): )?(orders\.\S*?: )?(.*)$", re.S)


def say_problem(lang: str, text: str) -> str:
    """An order problem as intake words it (``line 5: orders.AU.hussars[1]: why``) in ``lang``."""
    m = _PROBLEM.match(text)
    if m is None or check_lang(lang) == DEFAULT_LANG:
        return text
    line, path, why = m.groups()
    said = (path or "") + say_game(lang, why)
    return gettext_for(lang, "line %(line)s: %(text)s") % {"line": line, "text": said} if line else said


_TWO_DIGITS = tuple(f"{i:02d}" for i in range(100))


def local_time(when: datetime | str, tz: str = "UTC") -> str:
    """``when`` (a time, or ISO text such as ``2026-12-03T12:00:00Z``) in the IANA time zone
    ``tz`` with UTC beside it: ``2026-12-03 20:00 Asia/Taipei (2026-12-03 12:00 UTC)``."""
    from zoneinfo import ZoneInfo

    if isinstance(when, str):
        when = datetime.fromisoformat(when.replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    # the fields written out, as strftime's %Y-%m-%d %H:%M writes them (a receipt names the
    # player's mail by its date, and strftime cost more than the rest of the receipt's values)
    d = _TWO_DIGITS
    u = when.astimezone(UTC)
    utc = f"{u.year}-{d[u.month]}-{d[u.day]} {d[u.hour]}:{d[u.minute]} UTC" if u.year >= 1000 else u.strftime("%Y-%m-%d %H:%M UTC")
    if tz in ("UTC", "Etc/UTC", ""):
        return utc
    t = when.astimezone(ZoneInfo(tz))
    here = f"{t.year}-{d[t.month]}-{d[t.day]} {d[t.hour]}:{d[t.minute]}" if t.year >= 1000 else t.strftime("%Y-%m-%d %H:%M")
    return f"{here} {tz} ({utc})"


def yaml_comment(text: str, indent: int = 0) -> str:
    """Every line of ``text`` as a YAML comment, indented by ``indent`` spaces."""
    pad = " " * indent
    return "\n".join(f"{pad}# {line}".rstrip() for line in str(text).splitlines())


def display_width(text: str) -> int:
    """Columns ``text`` takes in a monospaced font (CJK characters take two)."""
    if text.isascii():  # no ASCII character is wide
        return len(text)
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)


def underline(text: str, char: str = "=") -> str:
    """``text`` with a line of ``char`` under it as wide as the text (a plain-text heading)."""
    text = str(text)
    return f"{text}\n{char * display_width(text)}"


def columns(rows: Iterable[Iterable[Any]], gap: int = 3) -> str:
    """``rows`` as a plain-text table: each column as wide as its widest cell (CJK characters
    count two), ``gap`` spaces between columns, no trailing spaces."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(display_width(r[i]) for r in cells if i < len(r))
              for i in range(max((len(r) for r in cells), default=0))]
    return "\n".join("".join(c + " " * (widths[i] - display_width(c) + gap) for i, c in enumerate(r)).rstrip()
                     for r in cells)


def element_text(value: Any) -> markupsafe.Markup:
    """``value`` escaped for the text of an HTML element: ``& < >`` only, quotes as they are (a
    canonical JSON value is mostly quotes, five characters each when escaped)."""
    return markupsafe.Markup(str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


def text_value(value: Any, indent: int = 0) -> str:
    """A plain-data value as readable text lines: ``key: value``, nested mappings indented,
    lists of scalars on one line (the plain-text form of a view a game has no template for)."""
    pad = " " * indent
    if isinstance(value, dict):
        lines = []
        for k in sorted(value, key=str):
            v = value[k]
            if isinstance(v, dict) and v:
                lines.append(f"{pad}{k}:")
                lines.append(text_value(v, indent + 2))
            else:
                lines.append(f"{pad}{k}: {text_value(v)}")
        return "\n".join(lines)
    if isinstance(value, list):
        if all(not isinstance(v, (dict, list)) for v in value):
            return ", ".join(text_value(v) for v in value) if value else "-"
        return "; ".join(text_value(v) for v in value)
    if isinstance(value, dict):
        return "{}"
    return "" if value is None else str(value)


def comment_wrap(text: str, indent: int = 0, hang: int = 2, width: int = 100) -> str:
    """``text`` as YAML comment lines at most ``width`` columns wide (where spaces allow), each
    paragraph's continuation lines indented by ``hang`` more spaces."""
    return _comment_wrap(str(text), indent, hang, width)


def forget() -> None:
    """Forget the comments wrapped so far (a benchmark publishes each phase as a daily run does, once)."""
    _comment_wrap.cache_clear()


@lru_cache(maxsize=1024)  # the forms of a phase's seats say the same help
def _comment_wrap(text: str, indent: int, hang: int, width: int) -> str:
    import textwrap

    pad = " " * indent + "# "
    out = []
    for para in str(text).splitlines() or [""]:
        lead = len(para) - len(para.lstrip(" "))
        lines = textwrap.wrap(para.strip(), width=max(20, width - len(pad) - lead), subsequent_indent=" " * hang,
                              break_long_words=False, break_on_hyphens=False) or [""]
        out += [(pad + " " * lead + line).rstrip() for line in lines]
    return "\n".join(out)
