"""A yes-or-no check of data against a JSON Schema, compiled to a Python function once.

Intake checks every order file against the envelope schema and the round's order schema; the
``jsonschema`` package walks a schema anew for every value, which cost more than the Ed25519
verification of the file. :func:`compile_check` turns a schema (its ``$ref`` already inlined)
into one predicate that answers exactly as ``jsonschema``'s Draft 2020-12 validator with pbem's
strict number types would (whole numbers are ints only): True when the data fits. A file that
does not fit still goes to ``jsonschema``, which names the problem. A schema using a keyword
this module does not know gets no predicate (None), and every file goes to ``jsonschema``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

# Keywords that only annotate: they never make data invalid.
_ANNOTATIONS = {"$schema", "$id", "$comment", "$defs", "title", "description", "examples", "default"}


class _Unknown(Exception):
    """A keyword (or a form of one) the compiler leaves to jsonschema."""


def compile_check(schema: Any) -> Check | None:
    """The predicate of ``schema``, or None if it uses something not handled here."""
    try:
        return _Compiler().function(schema)
    except (_Unknown, SyntaxError):  # (a SyntaxError: nested deeper than Python's blocks go)
        return None


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _unbool(value: Any) -> Any:
    # jsonschema's equality keeps true and false apart from 1 and 0
    return ("bool", value) if isinstance(value, bool) else value


def _equal(value: Any, choice: Any) -> bool:
    """jsonschema's ``equal`` for a scalar ``choice``."""
    if isinstance(value, str) or isinstance(choice, str):
        return bool(value == choice)
    if isinstance(value, (list, dict)):
        return False
    return bool(_unbool(value) == _unbool(choice))


# The predicate is Python source written for the schema and compiled once: a test per keyword,
# inline, each returning False at the first that fails (a sub-schema inside properties, items
# or allOf inline too; only anyOf, oneOf and not call a function of their own). Intake runs it
# for every file, and a call per keyword cost more than the tests themselves.
_TYPE_TESTS = {
    "integer": "type({x}) is int",
    "number": "type({x}) in (int, float)",
    "string": "isinstance({x}, str)",
    "array": "isinstance({x}, list)",
    "object": "isinstance({x}, dict)",
    "boolean": "isinstance({x}, bool)",
    "null": "{x} is None",
}
_KINDS = {"L": "str", "I": "list", "P": "dict"}
_ONE_TYPE = [("isinstance({x}, str)", "string", ("pattern", "minLength", "maxLength")),
             ("type({x}) in (int, float)", "number", ("minimum", "maximum"))]
_TYPE_NAMES = {"string": "str", "array": "list", "object": "dict"}  # (what isinstance tests for them)


class _Compiler:
    def __init__(self) -> None:
        self.names: dict[str, Any] = {"_equal": _equal}
        self.functions: list[str] = []
        self.count = 0

    def name(self, prefix: str, value: Any = None) -> str:
        self.count += 1
        name = f"{prefix}{self.count}"
        if value is not None:
            self.names[name] = value
        return name

    def function(self, schema: Any) -> Check:
        """The compiled predicate of ``schema``."""
        top = self.define(schema)
        source = "\n".join(self.functions) + "\n"
        exec(compile(source, "<schema>", "exec"), self.names)  # noqa: S102 - source written here from the schema's keywords
        check: Check = self.names[top]
        return check

    def define(self, schema: Any) -> str:
        """A function of the source that tests ``schema``; its name."""
        name = self.name("_check")
        body: list[str] = []
        self.tests(schema, "v", body, 1)
        self.functions.append("\n".join([f"def {name}(v):", *body, "    return True"]))
        return name

    def fits(self, schema: Any, x: str, known: str | None) -> str:
        """An expression that is True (or 1) if ``x`` fits ``schema``: the test itself for a
        schema of 'required', 'not' and 'type' alone (as the envelope's choice between orders
        and a request is), else a call of its own function."""
        found = self.expression(schema, x, known)
        return f"({found})" if found is not None else f"{self.define(schema)}({x})"

    def expression(self, schema: Any, x: str, known: str | None) -> str | None:
        if schema is True:
            return "True"
        if not isinstance(schema, dict) or not set(schema) <= {"required", "not", "type", *_ANNOTATIONS}:
            return None
        tests = []
        kind = schema.get("type")
        if kind is not None:
            names = [kind] if isinstance(kind, str) else kind
            if not isinstance(names, list) or not all(isinstance(n, str) and n in _TYPE_TESTS for n in names):
                return None
            tests.append(" or ".join(_TYPE_TESTS[n].format(x=x) for n in names))
        need = schema.get("required")
        if need is not None:
            if not isinstance(need, list) or not all(isinstance(n, str) for n in need):
                return None
            if need:
                present = " and ".join(f"{n!r} in {x}" for n in need)
                tests.append(present if known == "object" else f"not isinstance({x}, dict) or ({present})")
        if "not" in schema:
            inner = self.expression(schema["not"], x, known)
            if inner is None:
                return None
            tests.append(f"not ({inner})")
        return " and ".join(f"({t})" for t in tests) if tests else "True"

    def tests(self, schema: Any, x: str, out: list[str], depth: int) -> None:
        """Lines (indented ``depth`` levels) that return False unless the value ``x`` fits."""
        pad = "    " * depth
        if schema is True:
            return
        if schema is False:
            out.append(f"{pad}return False")
            return
        if not isinstance(schema, dict):
            raise _Unknown
        # one type first: the tests after it then know what ``x`` is, and drop their guards
        kind = schema.get("type")
        known = kind if isinstance(kind, str) and kind in _TYPE_TESTS else None
        if known is not None:
            self.keyword("type", known, schema, x, out, depth, None)
        # a value of several types: the keywords of strings (or of numbers), when more than one,
        # under one test that ``x`` is one
        groups = [] if known is not None else [
            (test, kind, keys) for test, kind, keys in _ONE_TYPE if sum(k in schema for k in keys) > 1]
        for key, arg in schema.items():
            if key not in _ANNOTATIONS and not (key == "type" and known is not None) and not any(key in g[2] for g in groups):
                self.keyword(key, arg, schema, x, out, depth, known)
        for test, kind, keys in groups:
            out.append(f"{pad}if {test.format(x=x)}:")
            for key in keys:
                if key in schema:
                    self.keyword(key, schema[key], schema, x, out, depth + 1, kind)

    def keyword(self, key: str, arg: Any, schema: dict[str, Any], x: str, out: list[str], depth: int,  # noqa: C901, PLR0912, PLR0915 - one case per keyword
                known: str | None) -> None:
        """Lines that return False unless ``x`` passes keyword ``key`` (``known``: the one type
        ``x`` is known to have, tested before)."""
        pad = "    " * depth
        number = known in ("integer", "number")
        known_kind = _TYPE_NAMES.get(known or "")

        def guard(kind: str) -> str:  # the test that ``x`` is a ``kind``, unless known
            return "" if known_kind == kind else f"isinstance({x}, {kind}) and "

        def block(kind: str) -> tuple[list[str], int]:  # an 'if' for ``x`` a ``kind``, unless known
            return ([], depth) if known_kind == kind else ([f"{pad}if isinstance({x}, {kind}):"], depth + 1)

        if key == "type":
            names = [arg] if isinstance(arg, str) else arg
            if not isinstance(names, list) or not all(isinstance(n, str) and n in _TYPE_TESTS for n in names):
                raise _Unknown
            out.append(f"{pad}if not ({' or '.join(_TYPE_TESTS[n].format(x=x) for n in names)}): return False")
        elif key in ("enum", "const"):
            choices = arg if key == "enum" else [arg]
            if not isinstance(choices, list) or not all(_scalar(c) for c in choices):
                raise _Unknown
            # (a string compares as itself; so does a whole number with a number known not a boolean)
            tests = [f"{x} == {c!r}" if isinstance(c, str) or (number and type(c) is int) else f"_equal({x}, {self.name('_c', (c,))}[0])"
                     for c in choices]
            out.append(f"{pad}if not ({' or '.join(tests) or 'False'}): return False")
        elif key == "pattern":
            found = self.name("_pattern", re.compile(arg).search)
            out.append(f"{pad}if {guard('str')}{found}({x}) is None: return False")
        elif key in ("maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"):
            if type(arg) is not int:
                raise _Unknown
            sign = ">" if key.startswith("max") else "<"
            out.append(f"{pad}if {guard(_KINDS[key[3]])}len({x}) {sign} {arg}: return False")
        elif key in ("minimum", "maximum"):
            if type(arg) not in (int, float):
                raise _Unknown
            limit = repr(arg) if type(arg) is int else f"{self.name('_limit', (arg,))}[0]"
            sign = "<" if key == "minimum" else ">"  # (as jsonschema compares: a NaN is neither above nor below)
            out.append(f"{pad}if {'' if number else f'type({x}) in (int, float) and '}{x} {sign} {limit}: return False")
        elif key == "items":
            if "prefixItems" in schema:
                raise _Unknown
            y = self.name("x")
            head, at = block("list")
            inner: list[str] = []
            self.tests(arg, y, inner, at + 1)
            if inner:
                out += [*head, f"{'    ' * at}for {y} in {x}:", *inner]
        elif key == "properties":
            if not isinstance(arg, dict):
                raise _Unknown
            head, at = block("dict")
            lines: list[str] = []
            for prop, sub in arg.items():
                y = self.name("x")
                inner = []
                self.tests(sub, y, inner, at + 1)
                if inner:
                    lines += [f"{'    ' * at}{y} = {x}.get({prop!r}, _absent)", f"{'    ' * at}if {y} is not _absent:", *inner]
            if lines:
                self.names["_absent"] = _ABSENT
                out += [*head, *lines]
        elif key == "additionalProperties":
            if "patternProperties" in schema:
                raise _Unknown
            names = self.name("_known", frozenset(schema.get("properties", {})))
            k = self.name("k")
            head, at = block("dict")
            inner = []
            self.tests(arg, f"{x}[{k}]", inner, at + 2)
            if arg is False:  # no other key: one look at them all
                out.append(f"{pad}if {guard('dict')}not {names}.issuperset({x}): return False")
            elif inner:
                out += [*head, f"{'    ' * at}for {k} in {x}:", f"{'    ' * at}    if {k} not in {names}:", *inner]
        elif key == "required":
            if not isinstance(arg, list):
                raise _Unknown
            if arg:
                need = " or ".join(f"{name!r} not in {x}" for name in arg)
                out.append(f"{pad}if {guard('dict')}({need}): return False")
        elif key == "propertyNames":
            k = self.name("k")
            head, at = block("dict")
            inner = []
            self.tests(arg, k, inner, at + 1)
            if inner:
                out += [*head, f"{'    ' * at}for {k} in {x}:", *inner]
        elif key in ("anyOf", "oneOf", "allOf"):
            if not isinstance(arg, list) or not arg:
                raise _Unknown
            if key == "allOf":
                for sub in arg:
                    self.tests(sub, x, out, depth)
                return
            calls = [self.fits(sub, x, known) for sub in arg]
            if key == "anyOf":
                out.append(f"{pad}if not ({' or '.join(calls)}): return False")
            else:
                out.append(f"{pad}if ({' + '.join(calls)}) != 1: return False")
        elif key == "not":
            out.append(f"{pad}if {self.fits(arg, x, known)}: return False")
        else:
            raise _Unknown


_ABSENT = object()
