"""Compaction and context-overflow recovery (issue: agent-session; seed 004, ``compact``,
``compact:start``/``compact:end``, ``context:overflow``).

:func:`compact` summarizes the older turns of a conversation with the model and returns a new,
shorter history: a summary message, the files recently read (re-read from disk, bounded), and
the most recent turns verbatim. The removed messages are kept in the returned
:class:`CompactionRecord` so the host can persist them — nothing is lost.

:class:`OverflowRecoveringProvider` is a provider decorator for the reactive case: when a call
fails with a provider-reported :class:`~robota.core.errors.ContextWindowExceededError` before
anything was streamed, it elides the bodies of older tool results in the request (the view only,
never the canonical history) and re-issues the call, a bounded number of times.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import anyio
import anyio.to_thread
from robota.core.capabilities import ModelCapabilities, ModelInfo
from robota.core.errors import ContextWindowExceededError, RobotaError
from robota.core.host.errors import PathContainmentError
from robota.core.host.paths import resolve_inside
from robota.core.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
    dump_messages,
)
from robota.core.provider import ModelRequest, Provider, StreamEvent
from robota.core.settings import ModelSettings
from robota.core.usage import Usage

__all__ = [
    "DEFAULT_SUMMARY_INSTRUCTION",
    "CompactionError",
    "CompactionRecord",
    "OverflowRecoveringProvider",
    "compact",
    "elide_tool_results",
]

DEFAULT_SUMMARY_INSTRUCTION = (
    "Summarize the conversation so far for your own later use: the user's goals, decisions "
    "made, files and facts discovered, work completed, and what remains to do. Be complete "
    "but concise. Answer with the summary only."
)
"""Neutral instruction for the summary call (override per call)."""

ELIDED_TEXT = "[tool output elided to fit the context window]"


class CompactionError(RobotaError):
    """The summary call failed or returned nothing."""

    code = "compaction_failed"
    default_recoverable = True


@dataclass(frozen=True, kw_only=True, slots=True)
class CompactionRecord:
    """The outcome of one compaction.

    Attributes:
        at: When it happened (UTC).
        reason: ``manual`` or ``auto``.
        summary: The summary text.
        removed: The messages replaced by the summary (kept so nothing is lost).
        messages: The new history (summary, restored files, recent turns).
        usage: Usage of the summary call.
        restored_files: Paths whose current content was attached.
    """

    at: datetime
    reason: str
    summary: str
    removed: tuple[Message, ...]
    messages: tuple[Message, ...]
    usage: Usage = field(default_factory=Usage)
    restored_files: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """JSON form (for the session record's metadata)."""
        return {
            "at": self.at.isoformat(),
            "reason": self.reason,
            "summary": self.summary,
            "removed": json.loads(dump_messages(self.removed))["messages"],
            "restored_files": list(self.restored_files),
        }


def _split(messages: Sequence[Message], keep_last_turns: int) -> int:
    starts = [i for i, m in enumerate(messages) if isinstance(m, UserMessage)]
    if len(starts) <= keep_last_turns:
        return 0
    return starts[-keep_last_turns] if keep_last_turns > 0 else len(messages)


def _read_paths(messages: Sequence[Message], tool_names: Sequence[str]) -> list[str]:
    paths: list[str] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls:
                if call.name in tool_names and call.arguments:
                    path = call.arguments.get("path")
                    if isinstance(path, str) and path not in paths:
                        paths.append(path)
    return paths


async def compact(
    provider: Provider,
    model: str,
    messages: Sequence[Message],
    *,
    reason: str = "manual",
    keep_last_turns: int = 2,
    instruction: str = DEFAULT_SUMMARY_INSTRUCTION,
    workspace: Path | None = None,
    read_tools: Sequence[str] = ("read_file",),
    max_restored_files: int = 5,
    max_file_bytes: int = 16_384,
    settings: ModelSettings | None = None,
) -> CompactionRecord:
    """Summarize all but the last ``keep_last_turns`` user turns.

    Args:
        provider: Provider for the summary call (tools disabled: ``tool_choice="none"``).
        model: Model for the summary call.
        messages: The current history (a leading system message is kept as is).
        reason: Recorded reason.
        keep_last_turns: Recent user turns kept verbatim.
        instruction: The summary instruction (neutral default).
        workspace: When given, files the removed turns read (via ``read_tools`` with a
            ``path`` argument) are re-read from here and attached, most recent first.
        read_tools: Tool names whose ``path`` argument marks a read file.
        max_restored_files: At most this many files are restored.
        max_file_bytes: Each restored file is cut at this many bytes.
        settings: Extra settings for the summary call.

    Raises:
        CompactionError: when there is nothing to compact, or the summary is empty.
        ProviderError: when the summary call fails.
    """
    head = tuple(m for m in messages[:1] if isinstance(m, SystemMessage))
    body = tuple(messages[len(head) :])
    cut = _split(body, keep_last_turns)
    if cut == 0:
        raise CompactionError("nothing to compact: the history has no older turns")
    removed, kept = body[:cut], body[cut:]
    request = ModelRequest(
        model=model,
        messages=(*head, *removed, UserMessage.of(instruction)),
        settings=replace(settings or ModelSettings(), tool_choice="none"),
    )
    response = await provider.complete(request)
    summary = response.message.text.strip()
    if not summary:
        raise CompactionError("the summary call returned no text")
    restored: list[str] = []
    attachments: list[str] = []
    if workspace is not None:
        candidates = list(reversed(_read_paths(removed, read_tools)))
        restored, attachments = await anyio.to_thread.run_sync(
            _restore_files, workspace, candidates, max_restored_files, max_file_bytes
        )
    text = f"[Summary of the earlier conversation]\n{summary}"
    if attachments:
        text += "\n\n[Current content of files read earlier]\n" + "\n\n".join(attachments)
    new_messages: tuple[Message, ...] = (
        *head,
        UserMessage.of(text),
        AssistantMessage(parts=(TextPart(text="Understood; continuing from the summary."),)),
        *kept,
    )
    return CompactionRecord(
        at=datetime.now(UTC),
        reason=reason,
        summary=summary,
        removed=removed,
        messages=new_messages,
        usage=response.usage,
        restored_files=tuple(restored),
    )


def _restore_files(
    workspace: Path, paths: Sequence[str], limit: int, max_bytes: int
) -> tuple[list[str], list[str]]:
    """Re-read files inside ``workspace`` (containment checked after symlinks)."""
    restored: list[str] = []
    attachments: list[str] = []
    for path in paths:
        if len(restored) >= limit:
            break
        try:
            target = resolve_inside(workspace, path)
            data = target.read_bytes()[:max_bytes].decode("utf-8", errors="replace")
        except (PathContainmentError, OSError):
            continue
        restored.append(path)
        attachments.append(f"## {path}\n{data}")
    return restored, attachments


def elide_tool_results(
    messages: Sequence[Message], *, keep_last: int
) -> tuple[tuple[Message, ...], int]:
    """Replace the bodies of all but the last ``keep_last`` tool-result messages with a short
    notice. Returns the new messages and how many results were elided."""
    positions = [i for i, m in enumerate(messages) if isinstance(m, ToolResultMessage)]
    targets = set(positions[: max(0, len(positions) - keep_last)])
    elided = 0
    out: list[Message] = []
    for i, message in enumerate(messages):
        if i in targets and isinstance(message, ToolResultMessage):
            results: list[ToolResultPart] = []
            for result in message.results:
                if result.text != ELIDED_TEXT:
                    elided += 1
                results.append(replace(result, content=(TextPart(text=ELIDED_TEXT),)))
            message = ToolResultMessage(results=tuple(results))
        out.append(message)
    return tuple(out), elided


class OverflowRecoveringProvider(Provider):
    """Provider decorator: on a provider-reported context overflow before any event was yielded,
    elide older tool-result bodies in the request and retry (at most ``max_attempts`` times,
    keeping fewer results each time).

    Args:
        inner: The real provider.
        max_attempts: Recovery attempts per call.
        on_recover: Called with the number of results elided on each attempt.
    """

    def __init__(
        self,
        inner: Provider,
        *,
        max_attempts: int = 2,
        on_recover: Callable[[int], None] | None = None,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.default_model = inner.default_model
        self._max_attempts = max_attempts
        self._on_recover = on_recover

    def model_info(self, model: str) -> ModelInfo | None:
        return self.inner.model_info(model)

    def capabilities(self, model: str) -> ModelCapabilities:
        return self.inner.capabilities(model)

    async def count_tokens(self, request: ModelRequest) -> int | None:
        return await self.inner.count_tokens(request)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        attempt = 0
        current = request
        while True:
            yielded = False
            try:
                async for event in self.inner.stream(current):
                    yielded = True
                    yield event
                return
            except ContextWindowExceededError as exc:
                if yielded or not exc.provider_reported or attempt >= self._max_attempts:
                    raise
                keep = max(0, 2 - attempt * 2)
                messages, elided = elide_tool_results(current.messages, keep_last=keep)
                if elided == 0:
                    raise
                attempt += 1
                if self._on_recover is not None:
                    self._on_recover(elided)
                current = replace(current, messages=messages)
