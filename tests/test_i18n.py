"""The gettext catalogs: every message in the templates is translated, the .mo matches the .po,
and the game's own terms read as the rulebook's Chinese edition has them."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from pbem.render import i18n, jinjaenv

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "pbem" / "locale"


def _catalog(locale: str):  # type: ignore[no-untyped-def]
    with (LOCALE / locale / "LC_MESSAGES" / "pbem.po").open("rb") as fh:
        return read_po(fh, locale=locale)


def _extracted() -> set[str]:
    """Every message id the templates and render modules use, extracted the way pybabel does."""
    from babel.messages.frontend import parse_mapping_cfg

    with (LOCALE / "babel.cfg").open() as fh:
        method_map, options_map = parse_mapping_cfg(fh)
    ids = set()
    for _filename, _lineno, message, _comments, _context in extract_from_dir(str(ROOT), method_map, options_map):
        ids.add(message if isinstance(message, str) else message[0])
    return ids


@pytest.mark.parametrize("locale", sorted(v for v in i18n.LOCALES.values() if v != "en"))
def test_every_message_is_translated(locale: str) -> None:
    catalog = _catalog(locale)
    untranslated = sorted(m.id for m in catalog if m.id and (not m.string or m.fuzzy))
    assert not untranslated, f"{locale}: {len(untranslated)} message(s) without a translation: {untranslated[:5]}"
    missing = sorted(_extracted() - {m.id for m in catalog if m.id})
    assert not missing, f"{locale}: messages in the templates but not in pbem.po (run pybabel extract/update): {missing[:5]}"


@pytest.mark.parametrize("locale", sorted(v for v in i18n.LOCALES.values() if v != "en"))
def test_mo_is_compiled_from_po(locale: str) -> None:
    buf = io.BytesIO()
    write_mo(buf, _catalog(locale), use_fuzzy=False)
    mo = LOCALE / locale / "LC_MESSAGES" / "pbem.mo"
    assert mo.read_bytes() == buf.getvalue(), f"{mo} is stale: run pybabel compile -d pbem/locale -D pbem -l {locale}"


def test_placeholders_survive_translation() -> None:
    import re

    for m in _catalog("zh_TW"):
        if m.id and m.string:
            want = sorted(re.findall(r"%\(\w+\)s", m.id))
            assert sorted(re.findall(r"%\(\w+\)s", m.string)) == want, m.id


def test_english_is_the_identity_and_chinese_is_loaded() -> None:
    assert i18n.gettext_for("en", "What happened") == "What happened"
    assert i18n.gettext_for("zh-TW", "What happened") == "發生了什麼"
    assert i18n.check_lang("fr") == "en"


def test_cjk_heading_is_underlined_to_its_width() -> None:
    assert i18n.underline("局勢") == "局勢\n===="
    assert i18n.underline("Next") == "Next\n===="


def test_names_files_are_the_same_for_html_and_text() -> None:
    """names.html (autoescaped) and names.txt (plain) must name pieces alike."""
    from pbem.data import templates_dir

    for html in sorted(templates_dir().glob("*/names.html")):
        assert html.with_suffix(".txt").read_text() == html.read_text(), html


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_messages_translated_when_a_template_compiles_render_as_the_extension_does(lang: str) -> None:
    """The environment looks each literal ``_()`` up once, when a template compiles; the text
    must be what the i18n extension gives when it looks it up on every render: translated,
    escaped where the template autoescapes (the values, never the translation), and formatted
    with the named values, or with none."""
    import jinja2

    source = ('{{ _("Prussia") }}|{{ _("senator %(id)s", id=who) }}|{{ _("100%% sure") }}|{{ _(word) }}|'
              '{% autoescape true %}{{ _("senator %(id)s", id=who) }}|{{ _("Prussia") }}{% endautoescape %}')
    plain = jinja2.Environment(extensions=["jinja2.ext.i18n"])
    plain.install_gettext_translations(i18n.translations(lang), newstyle=True)  # type: ignore[attr-defined]
    values = {"who": "<b>7</b>", "word": "Prussia"}
    want = plain.from_string(source).render(values)
    got = i18n.environment(lang).from_string(source).render(values)
    assert got == want
    assert "&lt;b&gt;7&lt;/b&gt;" in got and "<b>7</b>" in got and "100% sure" in got
    if lang == "zh-TW":
        assert "Prussia" not in got.split("|")[0]  # really translated


def test_a_chinese_sentence_takes_full_width_punctuation_after_chinese_words() -> None:
    from pbem.render.i18n import tidy

    assert tidy("zh-TW", "Valerius (3) 死亡 (派系 A): R4.9 反叛失敗") == "Valerius (3) 死亡（派系 A）：R4.9 反叛失敗"
    assert tidy("zh-TW", "Fabius (2) (叛軍) 叛變; 叛軍爪牙: Aemilius (19)") == "Fabius (2)（叛軍）叛變；叛軍爪牙：Aemilius (19)"
    assert tidy("zh-TW", "軍團 8, 9 被消滅 ()") == "軍團 8, 9 被消滅（）"  # numbers keep their commas
    assert tidy("en", "Valerius (3) dies (faction A): R4.9") == "Valerius (3) dies (faction A): R4.9"


def test_entropy_has_one_chinese_word() -> None:
    """The players' random values are 亂數 in every zh-TW sentence (reports, forms, receipts)."""
    said = [m.string for m in _catalog("zh_TW") if m.id and "entropy" in str(m.id) and m.string]
    assert said and not [s for s in said if "熵" in str(s)]


@pytest.mark.parametrize("lang, wanted", [("en", ":  (a&lt;b)| ()"), ("zh-TW", "：（a&lt;b）|（）")])
def test_marks_punctuate_each_language_and_escape_only_html(lang: str, wanted: str) -> None:
    """The punctuation the names and macros give (i18n.Marks): full-width in Chinese, the
    bracketed value escaped in HTML only, nothing printed for a missing value."""
    env = i18n.environment(lang)
    src = '{% import "base/macros.EXT" as m %}{{ m.colon() }}{{ m.paren("a<b") }}|{{ m.paren(none) }}'
    html = env.from_string("{% autoescape true %}" + src.replace("EXT", "html") + "{% endautoescape %}").render()
    text = env.from_string(src.replace("EXT", "txt")).render()
    assert html == wanted
    assert text == wanted.replace("&lt;", "<")


def test_attribute_lookups_are_jinjas_for_dicts_and_other_objects() -> None:
    """The environment reads a dict's key without Jinja2's failed attribute lookup first, and
    says the same: a dict's own attributes (``items``) before its keys, a missing key undefined
    (which fails a strict template), anything else as Jinja2 does."""
    import collections

    import jinja2

    env = i18n.environment("en")
    d = {"seat": "Prussia", "items": "kept", "keys": 3}
    od = collections.OrderedDict(d)
    for obj in (d, od, [1], "text", 4, None, jinja2.Environment()):
        for name in ("seat", "items", "keys", "missing", "upper", "__class__", "autoescape"):
            ours, theirs = env.getattr(obj, name), jinja2.Environment.getattr(env, obj, name)
            assert type(ours) is type(theirs), (obj, name)
            if not isinstance(ours, jinja2.Undefined):
                assert ours == theirs, (obj, name)
    assert env.getattr(d, "seat") == "Prussia" and env.getattr(d, "items") == d.items
    assert env.from_string("{{ d.seat }} {{ d.keys }}").render(d=d) == f"Prussia {d.keys}"
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ d.missing }}").render(d=d)


PAGE = ("{% macro m(x, y=2) %}{{ x }}-{{ y }}{% endmacro %}{% set v = 'set' %}"
        "{{ plain(1, k=2) }} {{ m(1) }} {{ m(3, y=4) }} {{ seen('v') }} {{ seen('w') }} {{ where() }}"
        "{% for i in [1] %}{{ seen('i') }}{% endfor %} {{ marks.paren('<') }} {{ marks.stop() }} {{ '-'.join(['a', 'b']) }}")


def test_calls_from_templates_pass_what_jinja_passes() -> None:
    """Plain functions and macros are called as they are; a function that asks for the context,
    the evaluation context or the environment still gets it; a StopIteration is undefined."""
    import jinja2

    env = i18n.environment("en")

    @jinja2.pass_context
    def seen(ctx: Any, name: str) -> Any:
        return ctx.get(name)

    @jinja2.pass_environment
    def where(e: Any) -> bool:
        return e is env

    def stop() -> None:
        raise StopIteration

    page = env.from_string(PAGE)
    values = {"plain": lambda a, k: a + k, "seen": seen, "where": where, "w": "given", "marks": i18n.Marks("en")}
    assert page.render(values) == "3 1-2 3-4 set given True  (<) . a-b"
    jinjas = jinjaenv.Environment(undefined=jinja2.StrictUndefined, finalize=i18n._finalize)  # Jinja2's own calls
    jinjas.context_class = jinja2.runtime.Context
    assert isinstance(env.from_string("").new_context(), jinjaenv.Context)
    assert jinjas.from_string(PAGE).render(values, where=lambda: True) == page.render(values)
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ stop() ~ 'x' }}").render(stop=stop)


MACROS = ("{% macro b(x) %}<b>{{ x }}</b>{% endmacro %}{% macro d(x, y='<y>') %}{{ x }}{{ y }}{% endmacro %}"
          "{% macro v(x) %}{{ x }}{{ varargs|join('+') }}{{ kwargs|dictsort|join }}{% endmacro %}"
          "{% macro c(x) %}[{{ caller(x) }}]{% endmacro %}{% macro e() %}{% endmacro %}"
          "{{ b('<a>') }} {{ b(safe) }} {{ d(1) }} {{ d(1, '&') }} {{ d(1, y=2) }} {{ v(1, 2, 3) }} {{ v(1, k='<') }}"
          "{% call(z) c('<') %}{{ z }}{% endcall %} ({{ e() }}) {{ safe }} {{ '<' }} {{ none }} {{ 7 }}"
          "{% for i in [b('&')] %}{{ i }}{{ b(i) }}{% endfor %} {{ mark(safe) }}"
          "{{ d2.k }} {{ d2['k'] }} {{ d2['z'] is defined }} {{ d2['items'] is defined }} {{ d2[[1]] is defined }}"
          " {{ ([d2, {}]|selectattr('k', 'defined')|list)|length }} {{ l[0] }} {{ l['x'] is defined }} {{ lang }}")


@pytest.mark.parametrize("autoescape", [True, False])
def test_pages_are_rendered_as_jinja2_renders_them(autoescape: bool) -> None:
    """pbem's environment (macros called straight, safe text printed as it is, a dict's missing
    key undefined at once, the globals in one dict) prints what Jinja2's own machinery prints."""
    import jinja2
    import markupsafe

    ours = jinjaenv.Environment(autoescape=autoescape, undefined=jinja2.StrictUndefined, finalize=i18n._finalize)
    theirs = jinja2.Environment(autoescape=autoescape, undefined=jinja2.StrictUndefined, finalize=i18n._finalize)
    for env in (ours, theirs):
        env.globals["lang"] = "xx"
    values = {"safe": markupsafe.Markup("<i>safe</i>"), "d2": {"k": "<k>"}, "l": [4],
              "mark": jinja2.pass_eval_context(lambda ctx, x: f"{ctx.autoescape}:{x}")}
    page = ours.from_string(MACROS).render(values)
    assert page == theirs.from_string(MACROS).render(values)
    assert ("&lt;b&gt;" not in page and "<b>&lt;a&gt;</b>" in page) if autoescape else "<b><a></b>" in page
    assert ours.from_string("{{ lang }}", globals={"lang": "yy"}).render() == "yy" and ours.globals["lang"] == "xx"


def test_a_module_of_macros_imported_with_context_is_made_once_for_the_same_values() -> None:
    """An event's sentence imports Maria's political names with context for each event: the
    module is made again only when what it reads (the names, the glossary) is another object; a
    template that also sets names at its top is made for each import."""
    env = i18n.environment("en")
    jinjaenv.forget()
    politics = env.get_template("maria/events/_politics.html")
    names, glossary = object(), {"titles": {"war": "<t>"}}
    first = politics.make_module({"n": names, "glossary": glossary, "e": {"type": "draw"}}, True)
    assert politics.make_module({"n": names, "glossary": glossary, "e": {"type": "drawn"}}, True) is first
    assert politics.make_module({"n": names, "glossary": dict(glossary)}, True) is not first
    assert str(first.pcard("PC1", {"PC1": "war"})) == "PC1 «&lt;t&gt;»"
    maria = env.get_template("maria/names.html")
    page = dict(env.globals, glossary=glossary)  # what an import with context is given
    assert maria.make_module(page, True) is not maria.make_module(page, True)
    jinjaenv.forget()
    assert politics.make_module({"n": names, "glossary": glossary}, True) is not first


def test_values_are_escaped_and_marked_safe_as_markupsafe_does() -> None:
    """The templates' escaping (a str or int made safe directly, safe text as it is) gives what
    markupsafe's own ``escape`` and ``Markup`` give, a ``Markup`` each time."""
    import markupsafe

    class Html:
        def __html__(self) -> str:
            return "<b>html</b>"

    for value in ["", "plain", "<a href='x'>&\"</a>", "中文 <", 0, -17, 2**70, True, None, 1.5,
                  markupsafe.Markup("<i>safe</i>"), Html(), ["<l>"]]:
        escaped = jinjaenv.escape(value)
        assert type(escaped) is markupsafe.Markup and escaped == markupsafe.escape(value), value
    for text in ["", "<b>", markupsafe.Markup("<i>")]:
        made = jinjaenv.markup(text)
        assert type(made) is markupsafe.Markup and made == markupsafe.Markup(text)


@pytest.mark.parametrize("autoescape", [True, False])
def test_translations_formatted_with_values_print_as_jinja2_prints_them(autoescape: bool) -> None:
    """A message filled with named values (``%(name)s`` only: escaped and marked safe by pbem's
    code where the page autoescapes; any other ``%`` left to Jinja2) prints what the i18n
    extension prints."""
    import jinja2
    import markupsafe

    source = ('{{ _("<b>%(a)s</b> and %(b)s, %(a)s", a=x, b=y) }}|{{ _("%(n)d%% of %(a)s", n=n, a=x) }}|'
              '{{ _("just %(a)s", a="<const>") }}|{{ _("%(a)s", a=safe) }}|{{ _("none", a=x) }}')
    pages = []
    for kind in (jinjaenv.Environment, jinja2.Environment):
        env = kind(autoescape=autoescape, extensions=["jinja2.ext.i18n"], undefined=jinja2.StrictUndefined)
        env.install_null_translations(newstyle=True)  # the i18n extension's
        pages.append(env.from_string(source).render(x="<x & 'y'>", y=7, n=50, safe=markupsafe.Markup("<i>ok</i>")))
    assert pages[0] == pages[1]
    assert ("&lt;x &amp; &#39;y&#39;&gt;" in pages[0] and "<i>ok</i>" in pages[0]) if autoescape else "<x & 'y'>" in pages[0]
