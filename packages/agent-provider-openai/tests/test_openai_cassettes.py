"""Every recorded OpenAI-shaped interaction replayed through the adapters.

For each recorded model call the independent reader (``_openai_recorded.py``) decides the outcome from
the recorded bytes alone — an answer, or the typed error the recorded status / error body names,
or a malformed-response error for a body that is no complete answer — and the adapter must
produce exactly that. A typed error that matches counts as decoded (``errors_typed`` says how
many of the decoded were errors). Interactions that are not model calls (file uploads, vector
stores, polling) are skipped with a reason. One summary line per API surface:
``cassettes(openai chat): decoded=N errors_typed=M skipped=K total=T failed=F``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _openai_recorded as READER  # pyright: ignore[reportImplicitRelativeImport]
import pytest
from robota.core.errors import ContextWindowExceededError, MalformedResponseError, RobotaError
from robota.core.messages import ThinkingPart, UserMessage
from robota.core.provider import ModelRequest, ModelResponse, ResponseCompleted, TextDelta
from robota.core.testing.cassette import Cassette, Interaction
from robota.providers.openai.replay import replay_provider

UNCOVERED_REASONS = {
    "/files": "file upload / deletion (Files API, not a model call)",
    "/vector_stores": "vector store management (not a model call)",
    "/conversations": "conversation objects (server-side state, not a model call)",
    "/responses/compact": "server-side compaction endpoint (not a model call)",
    "/responses/input_tokens": "input token counting endpoint (OpenAI: count_tokens returns None)",
}


def uncovered_reason(method: str, path: str) -> str | None:
    if method == "POST" and path.endswith(READER.MODEL_PATHS):
        return None
    if method == "GET" and "/responses/" in path:
        return "background-mode polling GET /responses/{id} (not a model call)"
    for marker, reason in UNCOVERED_REASONS.items():
        if marker in path:
            return reason
    return f"{method} {path}: not a model call"


@dataclass
class Case:
    file: Path
    index: int
    interaction: Interaction

    @property
    def id(self) -> str:
        return f"{self.file.parent.name}/{self.file.stem}#{self.index}"


def collect() -> tuple[list[Case], list[tuple[Case, str]]]:
    """(model calls, skipped (case, reason)) over every cassette under the root."""
    covered: list[Case] = []
    skipped: list[tuple[Case, str]] = []
    for file, interactions in READER.recordings():
        for index, interaction in enumerate(interactions):
            if not READER.is_openai_shaped(interaction.host, interaction.path):
                continue
            case = Case(file=file, index=index, interaction=interaction)
            reason = uncovered_reason(interaction.method, interaction.path)
            if reason is None:
                covered.append(case)
            else:
                skipped.append((case, reason))
    return covered, skipped


def compare(response: ModelResponse, deltas: list[str], exp: Any) -> list[str]:
    """What differs between the adapter's answer and the reader's."""
    got_calls = [(c.name, c.arguments) for c in response.message.tool_calls]
    got_thinking = "".join(p.text for p in response.message.parts if isinstance(p, ThinkingPart))
    problems: list[str] = []
    if response.message.text != exp.text:
        problems.append(f"text {response.message.text[:60]!r} != {exp.text[:60]!r}")
    if exp.delta_text is not None and "".join(deltas) != exp.delta_text:
        problems.append("streamed text deltas differ")
    if got_thinking != exp.thinking:
        problems.append(f"thinking {got_thinking[:60]!r} != {exp.thinking[:60]!r}")
    if got_calls != exp.tool_calls:
        problems.append(f"tool calls {got_calls} != {exp.tool_calls}")
    u = response.usage
    got_usage = (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.reasoning_tokens)
    want_usage = (exp.input_tokens, exp.output_tokens, exp.cache_read_tokens, exp.reasoning_tokens)
    if got_usage != want_usage:
        problems.append(f"usage {got_usage} != {want_usage}")
    if response.raw_finish_reason != exp.raw_finish:
        problems.append(f"finish {response.raw_finish_reason} != {exp.raw_finish}")
    return problems


def check_error(error: RobotaError, want: Any) -> list[str]:
    """What differs between the adapter's error and the reader's expectation."""
    if not isinstance(error, want.error):
        return [f"error class {type(error).__name__} != {want.error.__name__} ({want.why})"]
    inner = error.provider_error if isinstance(error, ContextWindowExceededError) else error
    if want.status is not None and getattr(inner, "status", None) != want.status:
        return [f"status {getattr(inner, 'status', None)} != {want.status}"]
    if isinstance(error, MalformedResponseError) and not str(error):
        return ["malformed error without a message"]
    return []


async def run_case(case: Case) -> tuple[bool, str | None]:
    """Replay one interaction: (outcome was a typed error, what differed or None)."""
    i = case.interaction
    want = READER.outcome(i)
    provider = replay_provider(Cassette(path=case.file, interactions=[i]))
    model = (i.request_body or {}).get("model") or "unknown-model"
    request = ModelRequest(model=str(model), messages=(UserMessage.of("replayed"),))
    deltas: list[str] = []
    try:
        if i.is_stream:
            response: ModelResponse | None = None
            async for event in provider.stream(request):
                if isinstance(event, TextDelta):
                    deltas.append(event.text)
                elif isinstance(event, ResponseCompleted):
                    response = event.response
            assert response is not None
        else:
            response = await provider.complete(request)
    except RobotaError as error:
        if isinstance(want, READER.Expected):
            return True, f"unexpected {error!r}"
        return True, "; ".join(check_error(error, want)) or None
    finally:
        await provider.aclose()
    if isinstance(want, READER.Refused):
        return False, f"answered, but expected {want.error.__name__} ({want.why})"
    return False, "; ".join(compare(response, deltas, want)) or None


@pytest.mark.anyio
async def test_every_recorded_openai_interaction_decodes() -> None:
    covered, skipped = collect()
    if not covered and not skipped:
        pytest.skip(f"no OpenAI-shaped recordings under {READER.cassette_root()}")
    tally: dict[str, dict[str, int]] = {
        s: {"decoded": 0, "errors_typed": 0, "skipped": 0, "failed": 0}
        for s in ("chat", "responses")
    }
    failures: list[str] = []
    for case in covered:
        counts = tally[READER.surface(case.interaction.path)]
        typed, problem = await run_case(case)
        if problem is None:
            counts["decoded"] += 1
            counts["errors_typed"] += int(typed)
        else:
            counts["failed"] += 1
            failures.append(f"{case.id}: {problem}")
    for case, reason in skipped:
        tally[READER.surface(case.interaction.path)]["skipped"] += 1
        print(f"not covered: {case.id}: {reason}")
    for failure in failures:
        print(f"FAILED {failure}")
    for name, counts in tally.items():
        total = counts["decoded"] + counts["skipped"] + counts["failed"]
        print(
            f"cassettes(openai {name}): decoded={counts['decoded']} "
            f"errors_typed={counts['errors_typed']} skipped={counts['skipped']} "
            f"total={total} failed={counts['failed']}"
        )
    assert failures == []
