"""Responses API stream events → deltas and the final response (one direction, one module).

Source: https://platform.openai.com/docs/api-reference/responses-streaming. The answer is the
``response.completed`` / ``response.incomplete`` event's response, decoded by
:func:`._responses_response.decode_response`. Its ``output`` is the answer's items — unless it
is empty (some gateways and compatible servers send the final event without it): then the
answer is what the stream itself delivered, item by item in ``output_index`` order, so it never
differs from what was streamed:

- an item's ``response.output_item.done`` item, when that arrived;
- else the item rebuilt from its ``response.output_item.added`` item (or an empty one of the
  kind its deltas imply) and its deltas: ``output_text`` / ``refusal`` deltas per
  ``content_index`` (a part's ``.done`` text when it had no delta), function-call argument
  deltas (or ``function_call_arguments.done``), reasoning summary / text deltas.

A stream without its final event is a :class:`~robota.core.errors.MalformedResponseError`; a
``response.failed`` event raises the error its code names. ``error`` events are classified by
the stream reader before they get here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from robota.core.provider import (
    EffortResolution,
    ModelResponse,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from robota.core.wire import malformed
from robota.providers.openai._common import as_mapping
from robota.providers.openai._responses_response import API, decode_response, response_error

__all__ = ["ResponsesStreamAssembler"]

_FINAL_EVENTS = frozenset({"response.completed", "response.incomplete"})
_PIECES: Mapping[str, str] = {
    "response.output_text.delta": "output_text",
    "response.output_text.done": "output_text",
    "response.refusal.delta": "refusal",
    "response.refusal.done": "refusal",
    "response.reasoning_summary_text.delta": "summary_text",
    "response.reasoning_summary_text.done": "summary_text",
    "response.reasoning_text.delta": "reasoning_text",
    "response.reasoning_text.done": "reasoning_text",
}
"""Events carrying a piece of a content part: the part type each builds."""
_KIND_OF_PIECE: Mapping[str, str] = {
    "output_text": "message",
    "refusal": "message",
    "summary_text": "reasoning",
    "reasoning_text": "reasoning",
}


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(kw_only=True, slots=True)
class _Item:
    """What the stream delivered of one output item."""

    added: dict[str, Any] = field(default_factory=lambda: {})
    done: dict[str, Any] | None = None
    pieces: dict[tuple[str, int], list[str]] = field(default_factory=lambda: {})
    finished: dict[tuple[str, int], str] = field(default_factory=lambda: {})
    arguments: list[str] = field(default_factory=lambda: [])
    final_arguments: str | None = None

    def rebuilt(self, status: str) -> dict[str, Any]:
        """The item as delivered (module docstring); a rebuilt item's ``status`` (``in_progress``
        when it was added) becomes ``status``, the response's."""
        if self.done is not None:
            return self.done
        item = dict(self.added)
        if "status" in item:
            item["status"] = status
        keys = sorted(set(self.pieces) | set(self.finished), key=lambda k: (k[1], k[0]))
        kinds = {_KIND_OF_PIECE[kind] for kind, _ in keys}
        if self.arguments or self.final_arguments is not None:
            kinds.add("function_call")
        if "type" not in item and len(kinds) == 1:
            item["type"] = kinds.pop()
        texts = [
            (kind, "".join(self.pieces.get((kind, i), [])) or self.finished.get((kind, i), ""))
            for kind, i in keys
        ]
        if item.get("type") == "message" and texts:
            item["content"] = [
                {"type": kind, ("refusal" if kind == "refusal" else "text"): text}
                for kind, text in texts
            ]
        elif item.get("type") == "reasoning" and texts:
            summary = [{"type": k, "text": t} for k, t in texts if k == "summary_text"]
            content = [{"type": k, "text": t} for k, t in texts if k == "reasoning_text"]
            item["summary"], item["content"] = summary, content
        elif item.get("type") == "function_call":
            if self.arguments:
                item["arguments"] = "".join(self.arguments)
            elif self.final_arguments is not None:
                item["arguments"] = self.final_arguments
        return item


@dataclass(kw_only=True, slots=True)
class ResponsesStreamAssembler:
    """Folds Responses streaming events into deltas and a final response.

    Function calls are numbered in arrival order (``ToolCallDelta.index``) by their
    ``output_index``; everything an item streamed is kept, so a final event without ``output``
    still yields the whole answer (module docstring).

    Attributes:
        provider: Provider name.
        final: The final event's response object, once it arrived.
    """

    provider: str
    final: dict[str, Any] | None = None
    _items: dict[int, _Item] = field(default_factory=lambda: {})
    _tool_index: dict[int, int] = field(default_factory=lambda: {})
    _last_output: int = 0
    _events: int = 0

    @property
    def ended(self) -> bool:
        """True once ``response.completed`` / ``response.incomplete`` arrived."""
        return self.final is not None

    def _item(self, event: Mapping[str, Any]) -> _Item:
        output_index = _int(event.get("output_index"))
        if output_index is None:
            output_index = self._last_output
        self._last_output = output_index
        return self._items.setdefault(output_index, _Item())

    def feed(self, event: Mapping[str, Any]) -> list[StreamEvent]:
        """Consume one event; return the deltas it carries.

        Raises:
            ProviderError: for a ``response.failed`` event (classified by its error code).
        """
        self._events += 1
        kind = str(event.get("type") or "")
        response = as_mapping(event.get("response"))
        if kind == "response.failed":
            failure = response_error({**response, "status": "failed"}, provider=self.provider)
            assert failure is not None
            raise failure
        if kind in _FINAL_EVENTS and response:
            self.final = dict(response)
            return []
        delta = event.get("delta")
        piece = _PIECES.get(kind)
        if piece is not None:
            return self._piece(event, kind, piece)
        item = as_mapping(event.get("item"))
        if kind == "response.output_item.added" and item:
            return self._added(event, dict(item))
        if kind == "response.output_item.done" and item:
            self._item(event).done = dict(item)
        elif kind == "response.function_call_arguments.delta" and isinstance(delta, str):
            self._item(event).arguments.append(delta)
            return [ToolCallDelta(index=self._tool(event), arguments_delta=delta)]
        elif kind == "response.function_call_arguments.done":
            arguments = event.get("arguments")
            if isinstance(arguments, str):
                self._item(event).final_arguments = arguments
        return []

    def _tool(self, event: Mapping[str, Any]) -> int:
        self._item(event)
        return self._tool_index.setdefault(self._last_output, len(self._tool_index))

    def _added(self, event: Mapping[str, Any], item: dict[str, Any]) -> list[StreamEvent]:
        self._item(event).added = item
        if item.get("type") != "function_call":
            return []
        arguments = item.get("arguments")
        return [
            ToolCallDelta(
                index=self._tool(event),
                id=str(item.get("call_id") or ""),
                name=str(item.get("name") or ""),
                arguments_delta=arguments if isinstance(arguments, str) else "",
            )
        ]

    def _piece(self, event: Mapping[str, Any], kind: str, piece: str) -> list[StreamEvent]:
        index_field = "summary_index" if piece == "summary_text" else "content_index"
        key = (piece, _int(event.get(index_field)) or 0)
        item = self._item(event)
        if kind.endswith(".done"):
            text = event.get("refusal" if piece == "refusal" else "text")
            if isinstance(text, str):
                item.finished[key] = text
            return []
        delta = event.get("delta")
        text = delta if isinstance(delta, str) else ""
        item.pieces.setdefault(key, []).append(text)
        if piece in ("output_text", "refusal"):
            return [TextDelta(text=text)] if text else []
        return [ThinkingDelta(text=text)]

    def finish(
        self,
        *,
        request_id: str | None = None,
        effort: EffortResolution | None = None,
        done: bool = False,
    ) -> ModelResponse:
        """The answer after the final event (``done``, a ``data: [DONE]`` some gateways add,
        changes nothing).

        Raises:
            MalformedResponseError: the stream ended without ``response.completed`` /
                ``response.incomplete``.
        """
        del done
        if self.final is None:
            raise malformed(
                self.provider,
                API,
                "a response.completed event",
                detail=f"stream ended after {self._events} event(s)",
                request_id=request_id,
            )
        output = self.final.get("output")
        items: list[Any] | None = None
        if not output and self._items:
            status = "incomplete" if self.final.get("status") == "incomplete" else "completed"
            items = [self._items[i].rebuilt(status) for i in sorted(self._items)]
        return decode_response(
            self.final, provider=self.provider, request_id=request_id, effort=effort, items=items
        )
