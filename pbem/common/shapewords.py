"""The sentences of the shape check (:mod:`pbem.core.shape`): one per JSON Schema keyword, and
the words for JSON types. Pure data, so the order pages can carry the same sentences.
The catalogs translate them; ``%(...)s`` are filled in after translation."""

from __future__ import annotations

from pbem.common.catalog import N_

# One sentence per schema keyword; %(...)s are filled in after translation.
MESSAGES = {
    "type": N_("must be %(expected)s, not %(actual)s"),
    "enum": N_("must be one of: %(choices)s"),
    "const": N_("must be %(choices)s"),
    "pattern": N_("'%(value)s' is not of the right form"),
    "minLength": N_("is too short: at least %(limit)s characters"),
    "maxLength": N_("is too long: at most %(limit)s characters"),
    "minimum": N_("must be at least %(limit)s"),
    "maximum": N_("must be at most %(limit)s"),
    "exclusiveMinimum": N_("must be more than %(limit)s"),
    "exclusiveMaximum": N_("must be less than %(limit)s"),
    "minItems": N_("must list at least %(limit)s entries"),
    "maxItems": N_("may list at most %(limit)s entries"),
    "minProperties": N_("must hold at least %(limit)s entries"),
    "maxProperties": N_("may hold at most %(limit)s entries"),
    "uniqueItems": N_("lists an entry twice"),
    "additionalProperties": N_("'%(value)s' is not allowed here"),
    "propertyNames": N_("'%(value)s' is not allowed here"),
    "required": N_("the field '%(value)s' is missing"),
    "orders_or_request": N_("give 'orders:' or, for a request, 'request:', not both"),
    "other": N_("does not have an allowed form"),
}
ALLOWED = N_("allowed: %(choices)s")
EXPECTED = N_("expected: %(hint)s")
# What a JSON type is called in a sentence.
TYPE_WORDS = {
    "integer": N_("a whole number"),
    "number": N_("a number"),
    "float": N_("a number with a decimal point"),
    "string": N_("a name or text"),
    "array": N_("a list"),
    "object": N_("a mapping (key: value lines)"),
    "boolean": N_("yes or no"),
    "null": N_("empty"),
}
OR = N_(" or ")
