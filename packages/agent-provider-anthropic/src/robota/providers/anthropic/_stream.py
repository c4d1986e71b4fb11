"""Streamed Messages API events → neutral stream events (https://docs.anthropic.com/en/docs/
build-with-claude/streaming).

Event flow: ``message_start`` (id, model, input usage) → per content block
``content_block_start`` / ``content_block_delta`` (``text_delta``, ``thinking_delta``,
``signature_delta``, ``input_json_delta``, ``citations_delta``) / ``content_block_stop`` →
``message_delta`` (stop reason, cumulative usage) → ``message_stop``; ``ping`` anytime; an
``error`` event carries an error body mid-stream. Each block is rebuilt into its JSON form and
decoded by :func:`~._response.block_to_part`, so streamed and buffered answers decode alike.

A stream is an answer only when it completed by these rules (issue #14): it starts with
``message_start`` carrying a ``message``; every block that starts stops, once; deltas name an
open block and fit its type; a ``message_delta`` gave a ``stop_reason`` (``tool_use`` only with
a ``tool_use`` block); and ``message_stop`` arrives with no block open. Any break of that is
:class:`~robota.core.errors.MalformedResponseError` naming what was missing — never a shorter
successful answer. Event types the docs do not list are ignored ("handle unknown event types
gracefully").

:class:`~robota.core.provider.UsageReported` (cumulative, ``partial=True``) follows
``message_start`` (input and cache tokens) and every ``message_delta`` carrying ``usage``.
Leading whitespace of a text block is held back until its first other character, so a
whitespace-only block (dropped or folded, see :func:`~._response.add_part`) streams exactly what
the final message keeps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, cast

from robota.core.errors import MalformedResponseError
from robota.core.messages import TextPart
from robota.core.provider import (
    EffortResolution,
    ResponseCompleted,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    UsageReported,
)
from robota.core.usage import Usage
from robota.core.wire import malformed
from robota.providers.anthropic._errors import classify_error_body
from robota.providers.anthropic._response import (
    API,
    AssistantPartT,
    add_part,
    assemble,
    block_to_part,
    parse_arguments,
    usage_of,
)

__all__ = ["StreamAssembler"]

_TOOL_CALL_TYPES = frozenset({"tool_use", "server_tool_use"})
_NO_INPUT_TYPES = frozenset({"text", "thinking", "redacted_thinking"})


@dataclass(kw_only=True, slots=True)
class _Block:
    index: int
    block: dict[str, Any]
    kind: str
    raw_arguments: str = ""
    saw_json: bool = False
    tool_index: int | None = None
    held: str = ""
    visible: bool = False


@dataclass(kw_only=True, slots=True)
class StreamAssembler:
    """Turns decoded SSE events into neutral :data:`StreamEvent` values, checking that the
    stream completes by the rules in the module doc.

    Attributes:
        provider: Provider name recorded on parts and errors.
        request_id: Vendor request id of the call.
        effort: Effort audit record to attach to the response.
    """

    provider: str
    request_id: str | None = None
    effort: EffortResolution | None = None
    _open: dict[int, _Block] = field(default_factory=dict[int, _Block])
    _seen: set[int] = field(default_factory=set[int])
    _parts: list[AssistantPartT] = field(default_factory=list[AssistantPartT])
    _hosted: dict[str, str] = field(default_factory=dict[str, str])
    _tool_calls: int = 0
    _model: str = ""
    _id: str | None = None
    _stop: str | None = None
    _usage: dict[str, Any] = field(default_factory=dict[str, Any])
    _usage_unreadable: bool = False
    _started: bool = False
    _done: bool = False

    # --- errors ---------------------------------------------------------------------------

    def _missing(self, what: str, detail: str = "") -> MalformedResponseError:
        return malformed(self.provider, API, what, detail=detail, request_id=self.request_id)

    def _broken(self, detail: str) -> MalformedResponseError:
        return MalformedResponseError(
            f"{self.provider} {API} stream: {detail}",
            provider=self.provider,
            api=API,
            request_id=self.request_id,
        )

    def _index(self, payload: Mapping[str, Any], kind: str) -> int:
        index = payload.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise self._missing(f"a block index in {kind}", f"got {index!r}")
        return index

    def _object(self, payload: Mapping[str, Any], key: str, kind: str) -> Mapping[str, Any]:
        value = payload.get(key)
        if not isinstance(value, Mapping):
            raise self._missing(f"{key} in {kind}")
        return cast(Mapping[str, Any], value)

    def _text_of(self, delta: Mapping[str, Any], key: str, kind: str) -> str:
        value = delta.get(key)
        if not isinstance(value, str):
            raise self._missing(f"{key} in a {kind}", f"got {type(value).__name__}")
        return value

    # --- events ---------------------------------------------------------------------------

    def feed(self, event: str, data: Any) -> list[StreamEvent]:
        """Consume one event; return the neutral events it produces.

        Raises:
            ProviderError: (subclass) for an ``error`` event, classified by its type.
            ContextWindowExceededError: for an ``error`` event reporting an over-long prompt.
            MalformedResponseError: for an event that breaks the stream's rules.
        """
        if self._done:
            return []
        kind: Any = event
        if isinstance(data, Mapping):
            payload = cast(Mapping[str, Any], data)
            kind = payload.get("type", event)
        elif event != "error":
            raise self._missing(f"a JSON object as {event} event data")
        else:
            payload = {}
        if kind == "error" or event == "error":
            raise classify_error_body(
                data, provider=self.provider, status=None, request_id=self.request_id
            )
        if kind == "ping":
            return []
        if kind == "message_start":
            return self._message_start(payload)
        known = ("content_block_start", "content_block_delta", "content_block_stop")
        if not self._started and kind in (*known, "message_delta", "message_stop"):
            raise self._missing("message_start event", f"the stream began with {kind}")
        if kind == "content_block_start":
            index = self._index(payload, kind)
            block = self._object(payload, "content_block", kind)
            return self._start(index, dict(block))
        if kind == "content_block_delta":
            state = self._open_block(self._index(payload, kind), kind)
            return self._delta(state, self._object(payload, "delta", kind))
        if kind == "content_block_stop":
            return self._stop_block(self._open_block(self._index(payload, kind), kind))
        if kind == "message_delta":
            return self._message_delta(payload)
        if kind == "message_stop":
            return self._message_stop()
        return []

    def _message_start(self, payload: Mapping[str, Any]) -> list[StreamEvent]:
        if self._started:
            raise self._broken("a second message_start arrived before message_stop")
        message = self._object(payload, "message", "message_start")
        self._started = True
        model = message.get("model")
        self._model = model if isinstance(model, str) else ""
        response_id = message.get("id")
        self._id = response_id if isinstance(response_id, str) else None
        return self._add_usage(message.get("usage"))

    def _add_usage(self, usage: object) -> list[StreamEvent]:
        if not isinstance(usage, Mapping):
            self._usage_unreadable = self._usage_unreadable or usage is not None
            return []
        counts = cast(Mapping[str, Any], usage)
        self._usage.update({k: v for k, v in counts.items() if v is not None})
        return [UsageReported(usage=replace(usage_of(self._usage), partial=True))]

    def _final_usage(self) -> Usage:
        """The usage of the whole answer: ``partial`` when a count (or a whole ``usage``) could
        not be read, see :func:`~._response.usage_of`."""
        usage = usage_of(self._usage)
        return replace(usage, partial=True) if self._usage_unreadable else usage

    def _message_delta(self, payload: Mapping[str, Any]) -> list[StreamEvent]:
        delta = self._object(payload, "delta", "message_delta")
        stop = delta.get("stop_reason")
        if isinstance(stop, str):
            self._stop = stop
        elif stop is not None:
            raise self._missing("a string stop_reason in message_delta", f"got {stop!r}")
        return self._add_usage(payload.get("usage"))

    def _message_stop(self) -> list[StreamEvent]:
        if self._open:
            index = min(self._open)
            raise self._missing(
                f"content_block_stop for block {index}",
                f"message_stop arrived with block {index} ({self._open[index].kind}) open",
            )
        if self._stop is None:
            raise self._missing("stop_reason in message_delta", "message_stop arrived without it")
        self._done = True
        response = assemble(
            self._parts,
            model=self._model,
            response_id=self._id,
            raw_stop=self._stop,
            usage=self._final_usage(),
            provider=self.provider,
            request_id=self.request_id,
            effort=self.effort,
        )
        return [ResponseCompleted(response=response)]

    def _open_block(self, index: int, kind: str) -> _Block:
        state = self._open.get(index)
        if state is None:
            closed = "already stopped" if index in self._seen else "never started"
            raise self._missing(f"content_block_start for block {index}", f"{kind} for {closed}")
        return state

    # --- blocks ---------------------------------------------------------------------------

    def _start(self, index: int, block: dict[str, Any]) -> list[StreamEvent]:
        kind = block.get("type")
        if not isinstance(kind, str):
            raise self._missing("type of a content_block in content_block_start")
        if index in self._seen:
            raise self._broken(f"content block {index} started twice")
        self._seen.add(index)
        state = _Block(index=index, block=block, kind=kind)
        self._open[index] = state
        if kind == "text":
            initial = block.get("text", "")
            if not isinstance(initial, str):
                raise self._missing("text of a text block", f"got {type(initial).__name__}")
            block["text"] = ""
            return self._text(state, initial)
        if kind == "thinking":
            initial = block.get("thinking", "")
            if not isinstance(initial, str):
                raise self._missing("thinking of a thinking block")
            block["thinking"] = initial
            return [ThinkingDelta(text=initial)] if initial else []
        if kind in _TOOL_CALL_TYPES:
            call_id, name = block.get("id"), block.get("name")
            if not isinstance(call_id, str) or not isinstance(name, str):
                raise self._missing(f"id and name of {kind} block {index}")
            if kind == "server_tool_use":
                self._hosted[call_id] = name
                return []
            state.tool_index = self._tool_calls
            self._tool_calls += 1
            return [ToolCallDelta(index=state.tool_index, id=call_id, name=name)]
        return []

    def _text(self, state: _Block, text: str) -> list[StreamEvent]:
        state.block["text"] += text
        if state.visible:
            return [TextDelta(text=text)] if text else []
        state.held += text
        if not state.held.strip():
            return []
        state.visible = True
        out, state.held = state.held, ""
        return [TextDelta(text=out)]

    def _wrong(self, state: _Block, kind: str) -> MalformedResponseError:
        return self._broken(f"{kind} for content block {state.index} of type {state.kind}")

    def _delta(self, state: _Block, delta: Mapping[str, Any]) -> list[StreamEvent]:
        kind = delta.get("type")
        block = state.block
        if kind == "text_delta":
            if state.kind != "text":
                raise self._wrong(state, kind)
            return self._text(state, self._text_of(delta, "text", kind))
        if kind == "thinking_delta":
            if state.kind != "thinking":
                raise self._wrong(state, kind)
            text = self._text_of(delta, "thinking", kind)
            block["thinking"] = str(block.get("thinking") or "") + text
            return [ThinkingDelta(text=text)] if text else []
        if kind == "signature_delta":
            if state.kind != "thinking":
                raise self._wrong(state, kind)
            signature = self._text_of(delta, "signature", kind)
            block["signature"] = str(block.get("signature") or "") + signature
            return []
        if kind == "input_json_delta":
            if state.kind in _NO_INPUT_TYPES:
                raise self._wrong(state, kind)
            fragment = self._text_of(delta, "partial_json", kind)
            state.raw_arguments += fragment
            state.saw_json = True
            if state.tool_index is not None and fragment:
                return [ToolCallDelta(index=state.tool_index, arguments_delta=fragment)]
            return []
        if kind == "citations_delta":
            if state.kind != "text":
                raise self._wrong(state, kind)
            citations = block.get("citations")
            kept = cast(list[Any], citations) if isinstance(citations, list) else []
            block["citations"] = [*kept, delta.get("citation")]
        return []

    def _stop_block(self, state: _Block) -> list[StreamEvent]:
        del self._open[state.index]
        block = state.block
        raw: str | None = None
        if state.kind in _TOOL_CALL_TYPES:
            raw = state.raw_arguments if state.saw_json else None
        elif state.saw_json:
            # Other blocks streamed with input_json_delta (mcp_tool_use, ...) are sent back
            # verbatim, so their input must be whole.
            parsed = parse_arguments(state.raw_arguments)
            if parsed is None:
                raise self._missing(
                    f"a JSON object input for content block {state.index} ({state.kind})",
                    f"got {state.raw_arguments[:200]!r}",
                )
            block["input"] = parsed
        part = block_to_part(
            block,
            provider=self.provider,
            raw_arguments=raw,
            hosted_names=self._hosted,
            request_id=self.request_id,
        )
        kept = add_part(self._parts, part)
        if isinstance(part, TextPart) and kept and not state.visible and state.held:
            return [TextDelta(text=state.held)]
        return []

    # --- end of input ---------------------------------------------------------------------

    def close(self) -> None:
        """The body ended: return when the answer completed, else raise.

        Raises:
            MalformedResponseError: naming what the stream lacked (``message_start event``,
                ``message_stop event``), with where it was cut.
        """
        if self._done:
            return
        if not self._started:
            raise self._missing("message_start event", "the body held no Anthropic event")
        if self._open:
            index = max(self._open)
            where = f"inside content block {index} ({self._open[index].kind})"
        elif self._stop is None:
            where = "before message_delta gave a stop_reason"
        else:
            where = "after message_delta"
        raise self._missing("message_stop event", f"the stream was cut {where}")

    @property
    def done(self) -> bool:
        """True once ``message_stop`` produced the final response."""
        return self._done
