"""Compaction: summarize older turns with a summary request that always fits (seed 004,
``compact``, ``compact:start``/``compact:end``; seed 003, compaction and the fallback chain;
issue #15).

:func:`compact` summarizes the older turns of a conversation with the model and returns a new,
shorter history: a summary message, the files recently read (re-read from disk, bounded), and
the most recent turns verbatim. The removed messages are kept in the returned
:class:`CompactionRecord` so the host can persist them — nothing is lost.

The summary request is sized for the compaction model before it is sent: it is pairing-repaired
(:func:`robota.core.agent.pairing.repair_pairing`), estimated with the agent's own token
estimate, and shortened (:func:`~robota.session.compaction.fit_messages`: tool output first,
oldest and largest first, head and tail kept around a readable marker) until it fits the
model's context window less the answer's reserve and a margin. When even the shortest form
cannot fit, its tool exchanges are flattened into plain-text transcripts (no tool pairs, so
pairing cannot break) and shortened again; only when even that cannot fit (the instruction
alone exceeds the window) is :class:`SummaryTooLargeError` raised, and nothing is sent. The call goes through
:class:`~robota.session.compaction.OverflowRecoveringProvider`, so a provider that still reports
an overflow gets a smaller request, a bounded number of times.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import anyio
import anyio.to_thread
from robota.core.agent.context import estimate_tokens
from robota.core.agent.pairing import PairingRepair, repair_pairing
from robota.core.errors import ContextWindowExceededError, ErrorCategory, RobotaError
from robota.core.host.errors import PathContainmentError
from robota.core.host.paths import resolve_inside
from robota.core.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextPart,
    UserMessage,
    dump_messages,
)
from robota.core.provider import ModelRequest, Provider
from robota.core.settings import ModelSettings
from robota.core.usage import Usage
from robota.session.compaction._fit import (
    ElisionNotes,
    FitResult,
    fit_messages,
    flatten_to_transcript,
)
from robota.session.compaction._overflow import (
    WINDOW_MARGIN,
    OverflowRecoveringProvider,
    window_budget,
)

__all__ = [
    "DEFAULT_SUMMARY_ANSWER_TOKENS",
    "DEFAULT_SUMMARY_INSTRUCTION",
    "SUMMARY_NOTES",
    "CompactionError",
    "CompactionRecord",
    "SummaryRequest",
    "SummaryTooLargeError",
    "compact",
]

DEFAULT_SUMMARY_INSTRUCTION = (
    "Summarize the conversation so far for your own later use: the user's goals, decisions "
    "made, files and facts discovered, work completed, and what remains to do. Be complete "
    "but concise. Answer with the summary only."
)
"""Neutral instruction for the summary call (override per call)."""

DEFAULT_SUMMARY_ANSWER_TOKENS = 8_192
"""Tokens reserved for the summary when neither the caller nor the settings say: at most this,
a quarter of the window, and the model's ``max_output_tokens``."""

SUMMARY_NOTES = ElisionNotes(why="for the summary")
"""Markers used in the summary request (``[… 812,345 characters of tool output elided for the
summary …]``)."""


class CompactionError(RobotaError):
    """The summary call failed or returned nothing, or there is nothing to compact."""

    code = "compaction_failed"
    default_recoverable = True


def _fit_source(
    source: Sequence[Message], budget: int, protected: frozenset[int], notes: ElisionNotes | None
) -> FitResult:
    """Fit the summary request; when shortening every part is not enough (thousands of tiny
    tool calls: the structure itself is too large), the tool exchanges are flattened into
    plain-text transcripts (no tool pairs left to break) and that is shortened instead; when even
    that is too large (thousands of tiny plain turns), the whole older history becomes one
    transcript, shortened to head and tail."""
    fit = fit_messages(source, budget, protected=protected, notes=notes)
    if fit.fits:
        return fit
    best = fit
    for everything in (False, True):
        flat = flatten_to_transcript(source, keep_last=1, everything=everything)
        if flat == tuple(source):
            continue
        flat_fit = fit_messages(flat, budget, protected=frozenset({len(flat) - 1}), notes=notes)
        if flat_fit.fits:
            return flat_fit
        if flat_fit.estimated_tokens < best.estimated_tokens:
            best = flat_fit
    return best


class SummaryTooLargeError(CompactionError):
    """The summary request cannot fit the compaction model's window even with every tool
    result, message text and the system prompt elided (or the window leaves no room for the
    answer). Raised before anything is sent.

    Attributes:
        model: The compaction model.
        context_window: Its context window (tokens).
        budget_tokens: Tokens the request could take (window less answer and margin); may be
            zero or negative when the window is too small for the answer alone.
        minimum_tokens: Estimated tokens of the shortest form of the request.
    """

    code = "compaction_summary_too_large"
    default_category = ErrorCategory.USER
    default_recoverable = False

    def __init__(
        self,
        message: str,
        *,
        model: str,
        context_window: int,
        budget_tokens: int,
        minimum_tokens: int,
    ) -> None:
        super().__init__(message)
        self.model = model
        self.context_window = context_window
        self.budget_tokens = budget_tokens
        self.minimum_tokens = minimum_tokens


@dataclass(frozen=True, kw_only=True, slots=True)
class SummaryRequest:
    """How the summary request was sized and sent.

    Attributes:
        model: The model it was sent to.
        context_window: The window it was sized for (tokens), None when unknown (then it was
            sent unshortened and only overflow recovery could shrink it).
        answer_tokens: Tokens reserved for the summary (sent as ``max_tokens``), if any.
        budget_tokens: Estimated tokens the request could take, if the window is known.
        original_tokens: Estimated tokens of the unshortened, pairing-repaired request.
        sent_tokens: Estimated tokens of the request that was answered.
        changed_parts: Parts shortened or elided in that request.
        overflow_retries: Times the provider reported an overflow and a smaller request was
            sent.
        repairs: Pairing repairs made (e.g. a stored tool call without a result).
    """

    model: str
    context_window: int | None
    answer_tokens: int | None
    budget_tokens: int | None
    original_tokens: int
    sent_tokens: int
    changed_parts: int
    overflow_retries: int
    repairs: tuple[PairingRepair, ...] = ()

    def to_json(self) -> dict[str, object]:
        """JSON form (inside :meth:`CompactionRecord.to_json`)."""
        return {
            "model": self.model,
            "context_window": self.context_window,
            "answer_tokens": self.answer_tokens,
            "budget_tokens": self.budget_tokens,
            "original_tokens": self.original_tokens,
            "sent_tokens": self.sent_tokens,
            "changed_parts": self.changed_parts,
            "overflow_retries": self.overflow_retries,
            "repairs": [
                {"kind": r.kind, "call_id": r.call_id, "name": r.name} for r in self.repairs
            ],
        }


@dataclass(frozen=True, kw_only=True, slots=True)
class CompactionRecord:
    """The outcome of one compaction.

    Attributes:
        at: When it happened (UTC).
        reason: ``manual`` or ``auto``.
        summary: The summary text.
        removed: The messages replaced by the summary (kept verbatim so nothing is lost).
        messages: The new history (summary, restored files, recent turns).
        usage: Usage of the summary call.
        restored_files: Paths whose current content was attached.
        summary_request: How the summary request was sized and sent.
    """

    at: datetime
    reason: str
    summary: str
    removed: tuple[Message, ...]
    messages: tuple[Message, ...]
    usage: Usage = field(default_factory=Usage)
    restored_files: tuple[str, ...] = ()
    summary_request: SummaryRequest | None = None

    def to_json(self) -> dict[str, object]:
        """JSON form (for the session record's metadata)."""
        out: dict[str, object] = {
            "at": self.at.isoformat(),
            "reason": self.reason,
            "summary": self.summary,
            "removed": json.loads(dump_messages(self.removed))["messages"],
            "restored_files": list(self.restored_files),
        }
        if self.summary_request is not None:
            out["summary_request"] = self.summary_request.to_json()
        return out


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


def _answer_reserve(
    provider: Provider,
    model: str,
    window: int | None,
    max_answer_tokens: int | None,
    settings: ModelSettings,
) -> int | None:
    if max_answer_tokens is not None:
        return max_answer_tokens
    if settings.max_tokens is not None:
        return settings.max_tokens
    if window is None:
        return None  # nothing known: leave the provider's own default
    info = provider.model_info(model)
    limits = [DEFAULT_SUMMARY_ANSWER_TOKENS, max(1, window // 4)]
    if info is not None and info.max_output_tokens:
        limits.append(info.max_output_tokens)
    return min(limits)


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
    context_window: int | None = None,
    max_answer_tokens: int | None = None,
    margin_tokens: int | None = None,
    max_overflow_retries: int = 2,
    notes: ElisionNotes = SUMMARY_NOTES,
    on_repair: Callable[[PairingRepair], None] | None = None,
    on_recover: Callable[[int], None] | None = None,
) -> CompactionRecord:
    """Summarize all but the last ``keep_last_turns`` user turns with a request that fits.

    The summary request (system prompt, the removed turns, the instruction; no tools,
    ``tool_choice="none"``) is pairing-repaired, then shortened until its estimate is at most
    ``context_window - answer - margin``; ``answer`` is also sent as ``max_tokens``. It is sent
    through :class:`~robota.session.compaction.OverflowRecoveringProvider`: if the provider still
    reports an overflow, the request is re-fitted to half its size (a quarter when the window is
    unknown) and re-sent, at most ``max_overflow_retries`` times.

    Args:
        provider: Provider for the summary call.
        model: Model for the summary call (a fallback chain's compaction rule may pick another
            than the session's; seed 003).
        messages: The current history (a leading system message is kept as is).
        reason: Recorded reason.
        keep_last_turns: Recent user turns kept verbatim.
        instruction: The summary instruction (neutral default; never shortened).
        workspace: When given, files the removed turns read (via ``read_tools`` with a
            ``path`` argument) are re-read from here and attached, most recent first.
        read_tools: Tool names whose ``path`` argument marks a read file.
        max_restored_files: At most this many files are restored.
        max_file_bytes: Each restored file is cut at this many bytes.
        settings: Extra settings for the summary call.
        context_window: The compaction model's window in tokens; default
            ``provider.model_info(model).context_window``. When neither is known the request
            is sent unshortened and only overflow recovery can shrink it.
        max_answer_tokens: Tokens reserved for the summary; default ``settings.max_tokens``,
            else the smallest of :data:`DEFAULT_SUMMARY_ANSWER_TOKENS`, a quarter of the
            window and the model's ``max_output_tokens``.
        margin_tokens: Tokens kept free for the estimate's error; default 10% of the window.
        max_overflow_retries: Bound on re-sends after a provider-reported overflow.
        notes: Marker texts placed where content was elided.
        on_repair: Called with each pairing repair of the summary request.
        on_recover: Called with the number of parts changed on each overflow retry.

    Raises:
        CompactionError: when there is nothing to compact, or the summary is empty.
        SummaryTooLargeError: before anything is sent, when the request cannot fit the window
            even with everything but the instruction elided.
        ContextWindowExceededError: when the provider still reports an overflow after the
            retries, or the request cannot be made smaller.
        ProviderError: when the summary call fails otherwise.

    Example:
        >>> import anyio
        >>> from robota.core.testing.scripted import ScriptedProvider
        >>> provider = ScriptedProvider(["The user pasted a long log."], context_window=32_768)
        >>> history = [UserMessage.of("log: " + "x" * 1_000_000),
        ...            UserMessage.of("second"), UserMessage.of("third")]
        >>> record = anyio.run(compact, provider, "local-32k", history)
        >>> sizing = record.summary_request
        >>> sizing.original_tokens > 250_000, sizing.sent_tokens <= sizing.budget_tokens == 21_300
        (True, True)
        >>> record.removed == (history[0],)  # kept verbatim for the session record
        True
    """
    settings = settings or ModelSettings()
    head = tuple(m for m in messages[:1] if isinstance(m, SystemMessage))
    body = tuple(messages[len(head) :])
    cut = _split(body, keep_last_turns)
    if cut == 0:
        raise CompactionError("nothing to compact: the history has no older turns")
    removed, kept = body[:cut], body[cut:]

    if context_window is None:
        info = provider.model_info(model)
        context_window = info.context_window if info is not None else None
    window = context_window or None
    answer = _answer_reserve(provider, model, window, max_answer_tokens, settings)
    budget: int | None = None
    if window is not None:
        margin = margin_tokens if margin_tokens is not None else int(window * WINDOW_MARGIN)
        budget = window - (answer or 0) - margin

    repairs: list[PairingRepair] = []

    def note_repair(repair: PairingRepair) -> None:
        repairs.append(repair)
        if on_repair is not None:
            on_repair(repair)

    source = (
        *repair_pairing((*head, *removed), on_repair=note_repair),
        UserMessage.of(instruction),
    )
    protected = frozenset({len(source) - 1})
    original_tokens = estimate_tokens(source)
    sent = source
    changed = 0
    if window is not None and budget is not None:
        fit = _fit_source(source, max(budget, 0), protected, notes)
        if not fit.fits:
            raise SummaryTooLargeError(
                f"the summary request cannot fit {model!r}: even with every tool result and "
                f"message elided it needs about {fit.estimated_tokens} tokens, and the "
                f"{window}-token window leaves {budget} after the answer and margin; nothing "
                "was sent",
                model=model,
                context_window=window,
                budget_tokens=budget,
                minimum_tokens=fit.estimated_tokens,
            )
        sent, changed = fit.messages, fit.changed_parts

    retries = 0

    def shrink(
        original: ModelRequest,
        refused: ModelRequest,
        attempt: int,
        error: ContextWindowExceededError,
    ) -> tuple[ModelRequest, int] | None:
        nonlocal retries, sent, changed
        refused_tokens = estimate_tokens(refused.messages)
        known = window is not None or error.context_window is not None
        target = refused_tokens // (2 if known else 4)
        reported = window_budget(error.context_window, answer)
        if reported is not None:
            target = min(target, reported)
        fit = _fit_source(source, target, protected, notes)
        if fit.estimated_tokens >= refused_tokens:
            return None
        retries = attempt
        sent, changed = fit.messages, fit.changed_parts
        return replace(refused, messages=fit.messages), max(1, fit.changed_parts)

    recovering = OverflowRecoveringProvider(
        provider, max_attempts=max_overflow_retries, on_recover=on_recover, shrink=shrink
    )
    request_settings = replace(settings, tool_choice="none")
    if answer is not None:
        request_settings = replace(request_settings, max_tokens=answer)
    response = await recovering.complete(
        ModelRequest(model=model, messages=sent, settings=request_settings)
    )
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
        summary_request=SummaryRequest(
            model=model,
            context_window=window,
            answer_tokens=answer,
            budget_tokens=budget,
            original_tokens=original_tokens,
            sent_tokens=estimate_tokens(sent),
            changed_parts=changed,
            overflow_retries=retries,
            repairs=tuple(repairs),
        ),
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
