"""A yes-or-no check of data against a JSON Schema, compiled to Python closures once.

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

_TYPES: dict[str, Check] = {
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) in (int, float),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class _Unknown(Exception):
    """A keyword (or a form of one) the compiler leaves to jsonschema."""


def compile_check(schema: Any) -> Check | None:
    """The predicate of ``schema``, or None if it uses something not handled here."""
    try:
        return _compile(schema)
    except _Unknown:
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


def _equals(choice: Any) -> Check:
    return lambda v: _equal(v, choice)


def _compile(schema: Any) -> Check:
    if schema is True:
        return lambda v: True
    if schema is False:
        return lambda v: False
    if not isinstance(schema, dict):
        raise _Unknown
    checks: list[Check] = []
    for key, arg in schema.items():
        if key in _ANNOTATIONS:
            continue
        checks.append(_keyword(key, arg, schema))
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    return _every(checks)


# The predicates are plain loops rather than all()/any() over generators: intake runs them for
# every file, and a generator per call cost as much as the test it makes.


def _every(checks: list[Check]) -> Check:
    def check(v: Any) -> bool:
        for c in checks:
            if not c(v):
                return False
        return True

    return check


def _some(checks: list[Check]) -> Check:
    def check(v: Any) -> bool:
        for c in checks:
            if c(v):
                return True
        return False

    return check


def _keyword(key: str, arg: Any, schema: dict[str, Any]) -> Check:  # noqa: C901, PLR0911, PLR0912 - one case per keyword
    if key == "type":
        names = [arg] if isinstance(arg, str) else arg
        if not isinstance(names, list) or not all(n in _TYPES for n in names):
            raise _Unknown
        tests = [_TYPES[n] for n in names]
        return tests[0] if len(tests) == 1 else _some(tests)
    if key in ("enum", "const"):
        choices = arg if key == "enum" else [arg]
        if not isinstance(choices, list) or not all(_scalar(c) for c in choices):
            raise _Unknown
        return _some([_equals(c) for c in choices])
    if key == "pattern":
        found = re.compile(arg).search
        return lambda v: not isinstance(v, str) or found(v) is not None
    if key in ("maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"):
        if type(arg) is not int:
            raise _Unknown
        kind = {"L": str, "I": list, "P": dict}[key[3]]
        if key.startswith("max"):
            return lambda v: not isinstance(v, kind) or len(v) <= arg
        return lambda v: not isinstance(v, kind) or len(v) >= arg
    if key in ("minimum", "maximum"):
        if type(arg) not in (int, float):
            raise _Unknown
        if key == "minimum":  # as jsonschema compares (a NaN is neither above nor below)
            return lambda v: type(v) not in (int, float) or not v < arg
        return lambda v: type(v) not in (int, float) or not v > arg
    if key == "items":
        if "prefixItems" in schema:
            raise _Unknown
        each = _compile(arg)

        def items(v: Any) -> bool:
            if isinstance(v, list):
                for x in v:
                    if not each(x):
                        return False
            return True

        return items
    if key == "properties":
        if not isinstance(arg, dict):
            raise _Unknown
        props = [(name, _compile(sub)) for name, sub in arg.items()]

        def properties(v: Any) -> bool:
            if isinstance(v, dict):
                for n, c in props:
                    if n in v and not c(v[n]):
                        return False
            return True

        return properties
    if key == "additionalProperties":
        if "patternProperties" in schema:
            raise _Unknown
        known = set(schema.get("properties", {}))
        rest = _compile(arg)

        def additional(v: Any) -> bool:
            if isinstance(v, dict):
                for k in v:
                    if k not in known and not rest(v[k]):
                        return False
            return True

        return additional
    if key == "required":
        if not isinstance(arg, list):
            raise _Unknown
        need = list(arg)

        def required(v: Any) -> bool:
            if isinstance(v, dict):
                for k in need:
                    if k not in v:
                        return False
            return True

        return required
    if key == "propertyNames":
        names = _compile(arg)
        return lambda v: not isinstance(v, dict) or all(names(k) for k in v)
    if key in ("anyOf", "oneOf", "allOf"):
        if not isinstance(arg, list) or not arg:
            raise _Unknown
        subs = [_compile(s) for s in arg]
        if key == "anyOf":
            return _some(subs)
        if key == "allOf":
            return _every(subs)
        return lambda v: sum(1 for s in subs if s(v)) == 1
    if key == "not":
        sub = _compile(arg)
        return lambda v: not sub(v)
    raise _Unknown
