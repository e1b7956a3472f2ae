"""The Jinja2 machinery under :mod:`pbem.render.i18n`: where templates come from (pbem's and a
game's own), an environment that translates a template's literal messages when it compiles it and
reads the views' dicts and calls pbem's functions and macros without Jinja2's general look-ups,
and the folder of compiled templates kept between runs."""

from __future__ import annotations

import gettext
import re
import types
import weakref
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

import jinja2
import jinja2.compiler
import jinja2.environment
import jinja2.runtime
import jinja2.utils
import jinja2.visitor
import markupsafe
from jinja2 import nodes

from pbem.data import templates_dir


def _installed() -> bool:
    return True


class GameLoader(jinja2.BaseLoader):
    """pbem's ``templates/``, and before it, for ``<game>/...``, the templates a game brings
    through the registry (:func:`pbem.games.template_folder`): a plug-in game's names, events
    and situation templates live in its own package."""

    def __init__(self) -> None:
        self.pbem = jinja2.FileSystemLoader(str(templates_dir()))

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str | None, Any]:
        from pbem.games import template_folder

        folder = template_folder(template.partition("/")[0]) if "/" in template else None
        if folder is not None:
            try:
                return jinja2.FileSystemLoader(str(folder)).get_source(environment, template)
            except jinja2.TemplateNotFound:
                pass
        source, filename, _ = self.pbem.get_source(environment, template)
        # pbem's own templates are files of the installed package: a process need not stat them
        # again before each use (intake renders one receipt per file; a game's are checked)
        return source, filename, _installed


class Translated(jinja2.visitor.NodeTransformer):
    """Turns each ``_("literal", name=value...)`` of a template into the literal's translation,
    looked up once when the template compiles instead of on every render: what the i18n
    extension's new-style gettext does at run time (the translation, marked safe where the
    template autoescapes, then ``%`` the named values) with the look-up done ahead. A call of
    any other form is left to the extension."""

    def __init__(self, env: jinja2.Environment, catalog: gettext.NullTranslations) -> None:
        self.env = env
        self.catalog = catalog

    def visit_Call(self, call: nodes.Call) -> nodes.Node:
        node = self.generic_visit(call)
        if not (isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name) and node.node.name in ("_", "gettext") and len(node.args) == 1
                and isinstance(node.args[0], nodes.Const) and isinstance(node.args[0].value, str)
                and node.dyn_args is None and node.dyn_kwargs is None):
            return node
        text = self.catalog.gettext(node.args[0].value)
        out: nodes.Expr
        if node.kwargs:
            out = nodes.Mod(nodes.MarkSafeIfAutoescape(nodes.Const(text)),
                            nodes.Dict([nodes.Pair(nodes.Const(k.key), k.value) for k in node.kwargs]))
        else:
            try:
                text = text % {}  # as new-style gettext formats a call without values too
            except (TypeError, ValueError, KeyError):
                return node  # it fails at run time, as before
            out = nodes.MarkSafeIfAutoescape(nodes.Const(text))
        return out.set_lineno(node.lineno).set_environment(self.env)


_NAMED = re.compile(r"%\((\w+)\)s")
_NAMED_ONLY = re.compile(r"(?:[^%]|%\(\w+\)s)*", re.DOTALL)  # no other use of %


class Context(jinja2.runtime.Context):
    """A template's context whose calls of plain functions and macros (pbem's and the names'
    macros, most of a report's calls) go straight to them: Jinja2 first looks for what to pass
    such a callable (a context, an environment), which none of them asks for (their ``__call__``
    carries no ``jinja_pass_arg``) but the few that ask for the eval context (``marks.paren``,
    ``marks.swatch``), given it here as Jinja2 gives it."""

    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (Jinja2's own signature)
        kind = type(__obj)
        if kind in _PLAIN_CALLABLES:
            pass_arg = getattr(__obj, "jinja_pass_arg", None)
            if pass_arg is None or pass_arg is _EVAL_CONTEXT:
                if kwargs:
                    kwargs.pop("_block_vars", None)
                    kwargs.pop("_loop_vars", None)
                if pass_arg is not None:
                    args = (__self.eval_ctx, *args)
                try:
                    return __obj(*args, **kwargs) if kwargs or kind is not jinja2.runtime.Macro else invoke(__obj, args)
                except StopIteration:
                    return __self.environment.undefined("value was undefined because a callable raised a StopIteration exception")
        return super().call(__obj, *args, **kwargs)


_EVAL_CONTEXT = jinja2.utils._PassArg.eval_context
_PLAIN_CALLABLES = frozenset({types.FunctionType, types.MethodType, types.BuiltinFunctionType, jinja2.runtime.Macro})


def invoke(macro: jinja2.runtime.Macro, args: tuple[Any, ...]) -> Any:
    """``macro(*args)`` (no eval context, as :class:`Context` calls it), straight to its function when
    it is given each of its arguments and takes no caller nor extra ones (a report's calls):
    what ``Macro.__call__`` does then, without its sorting of arguments (half of a call's cost)."""
    if (len(args) == macro._argument_count and not (macro.caller or macro.catch_kwargs or macro.catch_varargs)
            and not macro._environment.is_async and not (args and isinstance(args[0], nodes.EvalContext))):
        out = macro._func(*args)
        return markup(out) if macro._default_autoescape else out
    return macro(*args)


def markup(text: Any) -> markupsafe.Markup:
    """``markupsafe.Markup(text)``: text already marked safe as it is, and a plain ``str`` made
    one directly (``Markup.__new__``, in Python, asks each value for an ``__html__`` first; a
    report makes some 1,300 a phase)."""
    kind = type(text)
    if kind is markupsafe.Markup:
        return text
    if kind is str:
        return _new_str(markupsafe.Markup, text)
    return markupsafe.Markup(text)


def escape(value: Any) -> markupsafe.Markup:
    """``markupsafe.escape`` as the templates print each value: text already marked safe (a macro's
    or a shared section's output) is printed as it is, not copied into a new ``Markup``; a plain
    ``str`` or ``int`` escaped by markupsafe's own escaping (its C code) and made a ``Markup``
    directly, without the Python of ``markupsafe.escape`` and ``Markup.__new__`` around it."""
    kind = type(value)
    if kind is markupsafe.Markup:
        return value
    if kind is str and _ESCAPE_INNER is not None:
        return _new_str(markupsafe.Markup, _ESCAPE_INNER(value))
    if kind is int:  # digits and a sign: nothing to escape
        return _new_str(markupsafe.Markup, int.__repr__(value))
    return markupsafe.escape(value)



_new_str = str.__new__
# markupsafe's escaping of a str (its C speedups, else Python), which markupsafe.escape wraps
_ESCAPE_INNER: Callable[[str], str] | None = getattr(markupsafe, "_escape_inner", None)


class CodeGenerator(jinja2.compiler.CodeGenerator):
    """Jinja2's code generator, with the templates' ``escape`` taken from this module."""

    def writeline(self, x: str, node: nodes.Node | None = None, extra: int = 0) -> None:
        super().writeline(x, node, extra)
        if x.startswith("from jinja2.runtime import "):
            super().writeline(f"from {__name__} import escape, markup as pbem_markup")

    def visit_Mod(self, node: nodes.BinExpr, frame: jinja2.compiler.Frame) -> None:
        """A translation whose only fields are ``%(name)s``, formatted with named values (what
        :class:`Translated` makes of ``_("text", name=value)``), where the template
        autoescapes: ``pbem_markup(text % {name: escape(value)})``, each value printed as
        ``Markup(text) % {...}`` prints it (its escaped text), without the helper object
        ``Markup.__mod__`` makes for every value. Any other ``%`` as Jinja2 writes it."""
        left, right, ctx = node.left, node.right, frame.eval_ctx
        if not (ctx.autoescape and not ctx.volatile and isinstance(left, nodes.MarkSafeIfAutoescape)
                and isinstance(left.expr, nodes.Const) and type(left.expr.value) is str and isinstance(right, nodes.Dict)
                and all(isinstance(p.key, nodes.Const) and type(p.key.value) is str for p in right.items)
                and not all(isinstance(p.value, nodes.Const) for p in right.items)):  # (constants: folded by Jinja2)
            super().visit_Mod(node, frame)
            return
        text = left.expr.value
        keys = [str(p.key.value) for p in right.items if isinstance(p.key, nodes.Const)]
        if not (_NAMED_ONLY.fullmatch(text) and set(_NAMED.findall(text)) <= set(keys)):
            super().visit_Mod(node, frame)
            return
        self.write(f"pbem_markup({text!r} % {{")
        for i, (key, pair) in enumerate(zip(keys, right.items, strict=True)):
            self.write(f"{', ' if i else ''}{key!r}: escape(")
            self.visit(pair.value, frame)
            self.write(")")
        self.write("})")


class Template(jinja2.Template):
    """A template whose module imported with context (``{% import "x" as p with context %}``,
    which an event's sentence does for each event) is made once for the same values of what it
    reads, when it is only macros that import, include and extend nothing: such a module is a
    function of those values (the same objects, its macros' context being the importer's
    shallow copy), and making it runs its whole body again."""

    def make_module(self, vars: dict[str, Any] | None = None, shared: bool = False,
                    locals: Mapping[str, Any] | None = None) -> jinja2.environment.TemplateModule:
        reads = _module_reads(self) if shared and vars is not None else None
        if reads is None or vars is None:
            return super().make_module(vars, shared, locals)
        values = tuple(_seen(name, vars, locals) for name in reads)
        key = (self, *map(id, values))
        made = _MODULES.get(key)
        if made is None:
            if len(_MODULES) >= _MODULES_KEPT:
                _MODULES.clear()
            made = _MODULES[key] = (values, super().make_module(vars, shared, locals))  # the values kept: their ids stay theirs
        return made[1]


# the modules made for the values last imported with (a phase's names and glossary), forgotten
# with a phase's shared report sections (pbem.render.reportpage.forget_shared)
_MODULES: dict[tuple[Any, ...], tuple[tuple[Any, ...], jinja2.environment.TemplateModule]] = {}
_MODULES_KEPT = 32
_ABSENT = object()


def forget() -> None:
    """Forget the modules made so far."""
    _MODULES.clear()


def _seen(name: str, vars: dict[str, Any], locals: Mapping[str, Any] | None) -> Any:
    """The value of ``name`` in the context a module is made in (``locals`` over ``vars``, as
    ``jinja2.runtime.new_context`` makes it), or a mark when it is the template's own global."""
    if locals is not None and name in locals and locals[name] is not jinja2.utils.missing:
        return locals[name]
    return vars.get(name, _ABSENT)


def _module_reads(template: jinja2.Template) -> tuple[str, ...] | None:
    """The names ``template`` reads of its context when it is only macros (and text) that
    import, include and extend nothing, else None; worked out once per template."""
    if template in _READS:
        return _READS[template]
    env, reads = template.environment, None
    if env.loader is not None and template.name is not None:
        import jinja2.meta

        tree = env.parse(env.loader.get_source(env, template.name)[0])
        alone = all(isinstance(node, nodes.Macro) or (isinstance(node, nodes.Output) and all(isinstance(x, nodes.TemplateData) for x in node.nodes))
                    for node in tree.body)
        if alone and not any(True for _ in tree.find_all((nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends, nodes.Block))):
            reads = tuple(sorted(jinja2.meta.find_undeclared_variables(tree)))
    _READS[template] = reads
    return reads


_READS: weakref.WeakKeyDictionary[jinja2.Template, tuple[str, ...] | None] = weakref.WeakKeyDictionary()


class Environment(jinja2.Environment):
    """A Jinja2 environment that translates its templates' literal messages when it compiles
    them (:class:`Translated`): about a third of a report's rendering time was spent looking
    up the same words again on every render."""

    catalog: gettext.NullTranslations = gettext.NullTranslations()
    context_class = Context
    code_generator_class = CodeGenerator
    template_class = Template

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        out: nodes.Template = Translated(self, self.catalog).visit(tree)
        return out

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals: the environment's, then its own, in one dict (Jinja2's
        ``ChainMap`` of the two is copied into every context a render or an include makes, key
        by key). The environment's globals are all set before any template is loaded."""
        return dict(self.globals, **d) if d else dict(self.globals)

    def getitem(self, obj: Any, argument: Any) -> Any:
        """``obj[argument]`` as Jinja2's (an item, else an attribute), without an AttributeError
        raised and caught for a key a dict lacks (``selectattr`` over events, ``where[g]``)."""
        if type(obj) is dict:
            try:
                return obj[argument]
            except KeyError:
                if not (isinstance(argument, str) and argument in _DICT_ATTRIBUTES):
                    return self.undefined(obj=obj, name=argument)
            except TypeError:  # not a key (a list): as Jinja2's
                pass
        return super().getitem(obj, argument)

    def getattr(self, obj: Any, attribute: str) -> Any:
        """``obj.attribute`` as Jinja2's (an attribute, else an item), without an AttributeError
        raised and caught for each key of a dict (the views and events: 2,800 lookups a phase)."""
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        try:  # as jinja2.Environment.getattr
            return getattr(obj, attribute)
        except AttributeError:
            pass
        try:
            return obj[attribute]
        except (TypeError, LookupError, AttributeError):
            return self.undefined(obj=obj, name=attribute)


_DICT_ATTRIBUTES = frozenset(dir(dict))  # what getattr finds on a dict (it has no instance attributes)


class Compiled(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept between runs (a daily run compiled each template again, about
    0.6 s of CPU): a folder per :func:`pbem.render.i18n.cache_key`, a file per template checked against its
    source. A cache that cannot be read or written is only slower."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # a damaged file (cut short, not a pickle): compiled again and replaced
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass
