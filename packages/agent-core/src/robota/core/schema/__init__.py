"""Robota's one JSON-Schema shape: building it from Python types, validating against it, and
projecting it onto each vendor's wire subset (seed 000, "Structured Output Schema Conversion",
"Tool Schema Projection")."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from robota.core.schema.normalize import SchemaConversionError, json_schema_of, normalize_schema
    from robota.core.schema.projection import (
        Adapted,
        Adopted,
        Projection,
        Rejected,
        VendorPolicy,
        project_schema,
        project_tool,
    )
    from robota.core.schema.signature import ArgumentsModel, arguments_model, function_schema
    from robota.core.schema.validate import validate_arguments

__all__ = [
    "Adapted",
    "Adopted",
    "ArgumentsModel",
    "Projection",
    "Rejected",
    "SchemaConversionError",
    "VendorPolicy",
    "arguments_model",
    "function_schema",
    "json_schema_of",
    "normalize_schema",
    "project_schema",
    "project_tool",
    "validate_arguments",
]

_EXPORTS = {
    "robota.core.schema.normalize": ("SchemaConversionError", "json_schema_of", "normalize_schema"),
    "robota.core.schema.projection": (
        "Adapted",
        "Adopted",
        "Projection",
        "Rejected",
        "VendorPolicy",
        "project_schema",
        "project_tool",
    ),
    "robota.core.schema.signature": ("ArgumentsModel", "arguments_model", "function_schema"),
    "robota.core.schema.validate": ("validate_arguments",),
}
"""Submodule → the names it gives this package, imported on first use (see
:mod:`robota.core._lazy`)."""

if not TYPE_CHECKING:
    from robota.core._lazy import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
