"""Shape first: every order and request file is checked against a JSON Schema before any game
code sees it.

The envelope (``pbem``, ``campaign``, ``player``, ``phase``, ``seq``, the entropy fields, the
signature, a request) is checked against ``orders/envelope.schema.json``; the ``orders:`` part
against the schema of the round's kind, ``orders/<game>/<kind>.schema.json`` -- the same files
the order forms point editors to. A file that does not fit is refused with the path of the
first field that is wrong (``orders.PR.moves[0].piece``), its line, and a sentence in the
player's language. What passes has the types, lengths and bounds the rules rely on.

The validator is ``jsonschema`` (Draft 2020-12), with one change: an integer is a Python
``int`` and nothing else, so ``true`` or ``1.0`` never stands in for ``1``. Each schema is
compiled once per process.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from pbem.common.shapewords import ALLOWED, EXPECTED, MESSAGES, OR, TYPE_WORDS
from pbem.core.schemafast import compile_check
from pbem.data import orders_dir
from pbem.errors import OrderFileError
from pbem.games import schema_path

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

ENVELOPE = "envelope"


# Where a value is quoted, it is cut to this many characters (the rest is attacker text).
QUOTE = 40


def _strict_int(_checker: Any, value: Any) -> bool:
    return type(value) is int


def _strict_number(_checker: Any, value: Any) -> bool:
    return type(value) in (int, float)


@cache
def _strict_validator() -> Any:
    """Draft 2020-12 with whole numbers that are ints only (jsonschema is imported on first use:
    commands that check no file do not pay for it)."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(
        Draft202012Validator,
        type_checker=Draft202012Validator.TYPE_CHECKER.redefine_many(
            {"integer": _strict_int, "number": _strict_number}),
    )


@cache
def validator(game: str, kind: str) -> Any:
    """The compiled validator of the game's schema of ``kind`` (:func:`pbem.games.schema_path`:
    ``orders/<game>/<kind>.schema.json`` for pbem's games; ``game`` empty and ``kind``
    ``envelope``: the envelope), or None when there is no such schema."""
    schema = _schema(game, kind)
    return None if schema is None else _strict_validator()(schema)


@cache
def _schema(game: str, kind: str) -> dict[str, Any] | None:
    """The schema of ``kind`` with its references inlined, or None."""
    path = schema_path(game, kind) if game else orders_dir() / f"{kind}.schema.json"
    if path is None or not path.is_file():
        return None
    return _inline(json.loads(path.read_text(encoding="utf-8")))


@cache
def _fits(game: str, kind: str) -> Callable[[Any], bool] | None:
    """The compiled yes-or-no check of the same schema (:mod:`pbem.core.schemafast`), if it
    compiles: most files fit, and it answers that far faster than walking the schema (and
    without importing jsonschema, which only a file that does not fit needs)."""
    schema = _schema(game, kind)
    return None if schema is None else compile_check(schema)


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every ``{"$ref": "#/$defs/NAME"}`` replaced by the definition itself (the
    order schemas have no recursion): the same meaning, checked about twice as fast, since no
    reference is looked up per value."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
            target = walk(defs[ref[8:]])
            rest = {k: walk(v) for k, v in node.items() if k != "$ref"}
            if set(rest) <= {"description"}:
                return {**target, **rest}
            return {"allOf": [target], **rest}
        return {k: walk(v) for k, v in node.items()}

    return walk(schema)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "other"


def _quote(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= QUOTE else text[:QUOTE] + "…"


def join_path(parts: Any, prefix: str = "") -> str:
    """``orders``, ``PR``, ``moves``, 0, ``piece`` -> ``orders.PR.moves[0].piece``."""
    out = prefix
    for p in parts:
        out = f"{out}[{p}]" if isinstance(p, int) else (f"{out}.{p}" if out else str(p))
    return out


@dataclass(frozen=True)
class ShapeProblem:
    """The first field of a file that does not fit its schema: where, and what is wrong, as
    a message id of :data:`MESSAGES` and its values (so it can be said in any language)."""

    path: str
    keyword: str
    values: dict[str, Any] = field(default_factory=dict)
    hint: str = ""

    def sentence(self, lang: str = "en") -> str:
        """The sentence for the player, in ``lang``."""
        _ = _gettext(lang)
        values = dict(self.values)
        if self.keyword == "type":
            values["expected"] = _(OR).join(_(TYPE_WORDS.get(t, t)) for t in values["expected"])
            values["actual"] = _(TYPE_WORDS.get(values["actual"], values["actual"]))
        text = _(MESSAGES.get(self.keyword, MESSAGES["other"])) % values
        if self.values.get("allowed"):
            text += "; " + _(ALLOWED) % {"choices": ", ".join(self.values["allowed"])}
        if self.hint:  # a schema's description, in the catalogs too (extract_descriptions)
            text += "; " + _(EXPECTED) % {"hint": _(self.hint)}
        return text


def _gettext(lang: str) -> Any:
    from pbem.render.i18n import gettext_for

    return lambda message: gettext_for(lang, message)


class ShapeError(OrderFileError):
    """A file refused by its schema; says the same in every language the roster speaks."""

    def __init__(self, problem: ShapeProblem, *, source: str | None = None, line: int | None = None) -> None:
        super().__init__(problem.sentence(), source=source, line=line, field=problem.path or None)
        self.problem = problem

    def in_language(self, lang: str) -> str | None:
        """The field and the sentence in ``lang`` (a reply adds the line)."""
        return f"{self.field}: {self.problem.sentence(lang)}" if self.field else self.problem.sentence(lang)


def _problem_of(error: ValidationError, prefix: str) -> ShapeProblem:
    path = join_path(error.absolute_path, prefix)
    kw = str(error.validator)
    schema = error.schema if isinstance(error.schema, dict) else {}
    instance = error.instance
    hint = str(schema.get("description", ""))
    if kw == "type":
        want = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return ShapeProblem(path, kw, {"expected": list(want), "actual": _type_name(instance)}, hint)
    if kw in ("enum", "const"):
        choices = error.validator_value if kw == "enum" else [error.validator_value]
        return ShapeProblem(path, kw, {"choices": ", ".join(_quote(c) for c in choices)}, "")
    if kw == "pattern":
        return ShapeProblem(path, kw, {"value": _quote(instance)}, hint)
    if kw in ("additionalProperties", "unevaluatedProperties") and isinstance(instance, dict):
        known = set(schema.get("properties", {}))
        extra = sorted((k for k in instance if k not in known), key=str)
        key = extra[0] if extra else ""
        return ShapeProblem(join_path([key], path) if key else path, "additionalProperties",
                            {"value": _quote(key), "allowed": sorted(known)}, "")
    if kw == "propertyNames":
        return ShapeProblem(join_path([instance], path), kw, {"value": _quote(instance)}, hint)
    if kw == "required" and isinstance(instance, dict):
        missing = [k for k in error.validator_value if k not in instance]
        return ShapeProblem(path, kw, {"value": missing[0] if missing else ""}, "")
    if kw in MESSAGES and kw != "other":
        return ShapeProblem(path, kw, {"limit": error.validator_value}, hint if kw.endswith("Length") else "")
    return ShapeProblem(path, "other", {}, hint)


def _first(errors: list[ValidationError]) -> ValidationError:
    from jsonschema.exceptions import best_match

    try:
        found: ValidationError = best_match(errors)
        return found
    except TypeError:  # paths it cannot order: any error will do
        return errors[0]


def problem(game: str, kind: str, data: Any, prefix: str = "") -> ShapeProblem | None:
    """The first problem of ``data`` against a schema (None if it fits or there is no schema)."""
    fits = _fits(game, kind)
    try:
        if fits is not None and fits(data):
            return None
    except Exception:  # noqa: BLE001 - data the quick check cannot take (an unhashable key): the full check decides
        pass
    v = validator(game, kind)
    if v is None:
        return None
    errors = list(v.iter_errors(data))
    if not errors:
        return None
    error = _first(errors)
    if game == "" and error.validator == "oneOf" and not error.absolute_path:
        return ShapeProblem("orders", "orders_or_request")
    return _problem_of(error, prefix)


def check_envelope(data: Any, source: str, line_of: Any) -> None:
    """Raise :class:`ShapeError` unless ``data`` fits the envelope schema."""
    found = problem("", ENVELOPE, data)
    if found is not None:
        raise ShapeError(found, source=source, line=line_of(found.path))


def check_orders(game: str, kind: str, orders: Any, source: str, line_of: Any) -> None:
    """Raise :class:`ShapeError` unless ``orders`` fits the schema of ``game``'s round ``kind``."""
    found = problem(game, kind, orders, "orders")
    if found is not None:
        raise ShapeError(found, source=source, line=line_of(found.path))


def extract_descriptions(fileobj: Any, keywords: Any, comment_tags: Any, options: Any) -> Any:
    """Babel's extractor for the order schemas (``pbem/locale/babel.cfg``): every
    ``description``, which a refusal quotes as what a field expects."""

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "description" and isinstance(value, str):
                    yield value
                else:
                    yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    for text in walk(json.loads(fileobj.read().decode("utf-8"))):
        yield 0, "", text, []
