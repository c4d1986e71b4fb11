"""Robota's one JSON-Schema shape: building it from Python types, validating against it, and
projecting it onto each vendor's wire subset (seed 000, "Structured Output Schema Conversion",
"Tool Schema Projection")."""

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
