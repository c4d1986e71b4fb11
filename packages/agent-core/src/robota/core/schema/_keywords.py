"""JSON Schema keyword tables used by the projector: where subschemas live, which keywords
restrict accepted values (constraints) and which only describe (annotations), and what each
vendor accepts.

Sources: JSON Schema 2020-12 Core and Validation vocabularies; OpenAI "Structured Outputs —
Supported schemas" (strict mode keyword list, checked 2025); Gemini API ``Schema`` reference
("a select subset of an OpenAPI 3.0 schema object").
"""

from __future__ import annotations

SUBSCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
"""Keywords whose value maps names to subschemas."""

SUBSCHEMA_SINGLE = frozenset(
    {
        "items",
        "additionalProperties",
        "additionalItems",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
        "contentSchema",
    }
)
"""Keywords whose value is one subschema (``items`` may also be a draft-4 list)."""

SUBSCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
"""Keywords whose value is a list of subschemas."""

CONSTRAINTS = frozenset(
    {
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "items",
        "prefixItems",
        "additionalItems",
        "contains",
        "minContains",
        "maxContains",
        "minItems",
        "maxItems",
        "uniqueItems",
        "unevaluatedItems",
        "unevaluatedProperties",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "anyOf",
        "allOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "$ref",
    }
)
"""Keywords that restrict which values are accepted. ``format`` counts: Robota validates it
where a checker exists, and it tells the model a real rule. Every other keyword (``title``,
``description``, ``default``, ``examples``, ``$comment``, vendor extensions) is an annotation."""

STANDARD = CONSTRAINTS | {
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "$comment",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
}
"""Every keyword of JSON Schema 2020-12 (plus draft-07 ``definitions``/``dependencies``/
``additionalItems``), the set the Anthropic policy keeps."""

OPENAI_STRICT = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "enum",
        "const",
        "description",
        "title",
        "$ref",
        "$defs",
        "definitions",
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    }
)
"""Keywords OpenAI strict mode accepts (Structured Outputs, "Supported properties"); ``default``,
``minLength``/``maxLength``, ``allOf``, ``not``, ``patternProperties`` and the rest are not."""

OPENAI_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
"""String formats OpenAI strict mode accepts."""

GEMINI = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "anyOf",
        "default",
        "example",
        "propertyOrdering",
    }
)
"""Fields of the Gemini API ``Schema`` object (OpenAPI 3.0 subset). It has no
``additionalProperties``, ``$ref``, ``const``, ``oneOf``/``allOf``, ``exclusiveMinimum`` or
``multipleOf``; ``enum`` holds strings only and null is expressed with ``nullable``."""

DANGEROUS_PROPERTY_NAMES = frozenset({"__proto__", "constructor", "prototype"})
"""Property names refused everywhere (prototype pollution in JavaScript consumers)."""
