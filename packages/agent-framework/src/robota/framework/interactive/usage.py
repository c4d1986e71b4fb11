"""Usage per model of an interactive session (seed 003, "a turn that ran on more than one model
is charged to each model for its own calls"; issue #15).

The session charges every model response of its turns (``model.response`` events, keyed by the
model that actually answered — with a fallback chain, the entry that served the call) and every
compaction summary call to that model. The totals live in the session record's metadata under
:data:`USAGE_BY_MODEL_KEY` (so a resumed or forked session goes on from them); what this
process added since the last save is kept apart as the *unsaved* part, so a save that has to
merge with another writer's newer record adds it to that record's totals instead of
overwriting them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError
from robota.core.usage import Usage

__all__ = [
    "USAGE_BY_MODEL_KEY",
    "ModelUsage",
    "merged_metadata",
    "stored_usage_by_model",
    "with_usage_by_model",
]

USAGE_BY_MODEL_KEY = "usage_by_model"
"""Session-record metadata key: ``{model id: usage}`` in the JSON form of
:class:`~robota.core.usage.Usage` (token counts and ``requests``)."""

_ADAPTER: TypeAdapter[dict[str, Usage]] = TypeAdapter(dict[str, Usage])


def _sum(*tallies: Mapping[str, Usage]) -> dict[str, Usage]:
    total: dict[str, Usage] = {}
    for tally in tallies:
        for model, usage in tally.items():
            total[model] = total.get(model, Usage()) + usage
    return total


def stored_usage_by_model(metadata: Mapping[str, Any]) -> dict[str, Usage]:
    """The per-model totals stored in a session record's ``metadata`` ({} when there are none,
    or when the stored value is not valid — a hand-edited record does not fail a session)."""
    raw = metadata.get(USAGE_BY_MODEL_KEY)
    if raw is None:
        return {}
    try:
        return _ADAPTER.validate_python(raw)
    except ValidationError:
        return {}


def with_usage_by_model(
    metadata: Mapping[str, Any], unsaved: Mapping[str, Usage]
) -> dict[str, Any]:
    """A copy of ``metadata`` whose per-model totals include ``unsaved``."""
    if not unsaved:
        return dict(metadata)
    total = _sum(stored_usage_by_model(metadata), unsaved)
    return {**metadata, USAGE_BY_MODEL_KEY: _ADAPTER.dump_python(total, mode="json")}


def merged_metadata(
    stored: Mapping[str, Any], ours: Mapping[str, Any], unsaved: Mapping[str, Usage]
) -> dict[str, Any]:
    """The metadata of a save merged onto another writer's newer record: ``ours`` wins key by
    key, except the per-model totals, which are the newer record's plus ``unsaved``."""
    merged = {**stored, **ours}
    merged.pop(USAGE_BY_MODEL_KEY, None)
    if USAGE_BY_MODEL_KEY in stored:
        merged[USAGE_BY_MODEL_KEY] = stored[USAGE_BY_MODEL_KEY]
    return with_usage_by_model(merged, unsaved)


class ModelUsage:
    """Usage this session added since its last save, per answering model id.

    Example:
        >>> tally = ModelUsage()
        >>> tally.add("big", Usage(input_tokens=10, output_tokens=2, requests=1))
        >>> tally.add("small", Usage(input_tokens=5, requests=1))
        >>> tally.add("big", Usage(input_tokens=1, requests=1))
        >>> {m: (u.input_tokens, u.requests) for m, u in tally.report({}).items()}
        {'big': (11, 2), 'small': (5, 1)}
    """

    def __init__(self) -> None:
        self._unsaved: dict[str, Usage] = {}

    def add(self, model: str, usage: Usage) -> None:
        """Charge ``usage`` (one call's tokens and requests) to ``model``."""
        self._unsaved[model] = self._unsaved.get(model, Usage()) + usage

    def take_unsaved(self) -> dict[str, Usage]:
        """Remove and return what was added since the last call (a save is taking it)."""
        taken, self._unsaved = self._unsaved, {}
        return taken

    def report(self, metadata: Mapping[str, Any]) -> dict[str, Usage]:
        """The session's usage per model: the totals stored in ``metadata`` plus the unsaved
        part."""
        return _sum(stored_usage_by_model(metadata), self._unsaved)
