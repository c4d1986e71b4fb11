"""Cases, expectations and verdicts of the malformed-response corpus (issue #14: every provider
response is a correct answer or a typed error, never a silent partial success)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from robota.core.errors import RobotaError
from robota.core.messages import AssistantMessage, TextPart, ThinkingPart, ToolCallPart
from robota.core.provider import ModelResponse

__all__ = [
    "Answer",
    "CallMode",
    "Case",
    "Expect",
    "Problem",
    "Result",
    "Verdict",
    "answer_of",
    "judge",
]

CallMode = Literal["stream", "buffered", "agent-stream", "agent-buffered"]
Verdict = Literal["answer", "typed_error", "silent_success", "untyped"]
Problem = Literal["silent_success", "untyped", "wrong_error"]


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


@dataclass(frozen=True, kw_only=True, slots=True)
class Answer:
    """What a user sees of one response. A field left None is not compared.

    Attributes:
        text: The answer text (text parts joined).
        thinking: Reasoning text (thinking parts joined).
        tool_calls: ``(id, name, arguments)`` of every tool call (hosted ones marked), arguments
            as canonical JSON (or ``raw:`` and the raw string when they did not parse).
        finish_reason: Neutral finish reason.
        raw_finish_reason: The vendor's finish reason.
        usage: ``(input_tokens, output_tokens)``.
    """

    text: str | None = None
    thinking: str | None = None
    tool_calls: tuple[tuple[str, str, str], ...] | None = None
    finish_reason: str | None = None
    raw_finish_reason: str | None = None
    usage: tuple[int, int] | None = None

    def differences(self, got: Answer) -> list[str]:
        """Names of the fields (set here) on which ``got`` differs."""
        fields = (
            ("text", self.text, got.text),
            ("thinking", self.thinking, got.thinking),
            ("tool calls", self.tool_calls, got.tool_calls),
            ("finish", self.finish_reason, got.finish_reason),
            ("raw finish", self.raw_finish_reason, got.raw_finish_reason),
            ("usage", self.usage, got.usage),
        )
        return [name for name, want, have in fields if want is not None and want != have]

    def describe(self) -> str:
        """A one-line summary for reports."""
        out: list[str] = []
        if self.text is not None:
            out.append(f"text={_short(self.text)}({len(self.text)})")
        if self.thinking:
            out.append(f"thinking=({len(self.thinking)} chars)")
        if self.tool_calls:
            out.append("calls=[" + ", ".join(name for _, name, _ in self.tool_calls) + "]")
        if self.finish_reason is not None:
            out.append(f"finish={self.finish_reason}")
        if self.usage is not None:
            out.append(f"usage={self.usage[0]}/{self.usage[1]}")
        return " ".join(out)


def _arguments(part: ToolCallPart) -> str:
    if part.arguments is None:
        return "raw:" + part.raw_arguments
    return json.dumps(part.arguments, sort_keys=True)


def answer_of(
    message: AssistantMessage, response: ModelResponse | None = None, *, usage: bool = True
) -> Answer:
    """The :class:`Answer` of an assistant message (and of its response, when there is one:
    finish reason and usage are then read from the response)."""
    text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
    thinking = "".join(p.text for p in message.parts if isinstance(p, ThinkingPart))
    calls = tuple(
        (p.id, ("hosted:" if p.hosted else "") + p.name, _arguments(p))
        for p in message.parts
        if isinstance(p, ToolCallPart)
    )
    finish = response.finish_reason if response is not None else message.finish_reason
    raw = response.raw_finish_reason if response is not None else message.raw_finish_reason
    counted = response.usage if response is not None else message.usage
    return Answer(
        text=text,
        thinking=thinking,
        tool_calls=calls,
        finish_reason=finish,
        raw_finish_reason=raw,
        usage=(counted.input_tokens, counted.output_tokens)
        if usage and counted is not None
        else None,
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class Expect:
    """What a case must produce.

    ``answer``: exactly ``answer`` (a typed error is a wrong error). ``either``: ``answer`` or
    any typed error. ``error``: a typed error of one of ``errors``.

    Attributes:
        kind: ``answer``, ``either`` or ``error``.
        answer: The answer a success must equal (fields left None are not compared).
        errors: Acceptable error classes for ``error``.
        why: Why, in the vendor's terms (e.g. ``cut before message_stop``).
    """

    kind: Literal["answer", "either", "error"]
    answer: Answer | None = None
    errors: tuple[type[RobotaError], ...] = (RobotaError,)
    why: str = ""

    @staticmethod
    def error(why: str, *errors: type[RobotaError]) -> Expect:
        """A typed error is due (any :class:`RobotaError` when ``errors`` is empty)."""
        return Expect(kind="error", errors=errors or (RobotaError,), why=why)

    def describe(self) -> str:
        """What was expected, for reports."""
        if self.kind == "error":
            names = "/".join(e.__name__ for e in self.errors)
            return f"expected {names} ({self.why})" if self.why else f"expected {names}"
        assert self.answer is not None
        prefix = "the full answer" if self.kind == "answer" else "the answer or a typed error"
        return f"expected {prefix} [{self.answer.describe()}]" + (
            f" ({self.why})" if self.why else ""
        )


@dataclass(frozen=True, kw_only=True, slots=True)
class Case:
    """One call of a real adapter on a served response.

    Attributes:
        family: Provider key (``openai-chat``, ``openai-responses``, ``anthropic``, ``gemini``,
            ``compat:<profile>``).
        kind: Shape or recording kind (``recorded-sse``, ``recorded-json``, ``empty-200``...).
        where: The cut (``812/16611 (inside event 5/64 content_block_delta)``) or ``full``.
        mode: ``stream`` drives ``Provider.stream``; ``buffered`` calls the adapter's
            ``complete``; ``agent-*`` runs a real :class:`~robota.core.Agent` over it.
        model: The model named in the request.
        full: The whole body; the served body is ``full[:cut]``.
        cut: Where the body is cut (None: served whole).
        status: HTTP status served.
        headers: Response headers served.
        expect: The expectation.
        source: The recording (``folder/file.yaml#n``), for recorded cases.
    """

    family: str
    kind: str
    where: str
    mode: CallMode
    model: str
    full: bytes
    expect: Expect
    cut: int | None = None
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=lambda: {})
    source: str = ""

    @property
    def body(self) -> bytes:
        """The served body."""
        return self.full if self.cut is None else self.full[: self.cut]

    @property
    def label(self) -> str:
        """``family/kind[source]@where``."""
        source = f"[{self.source}]" if self.source else ""
        return f"{self.family}/{self.kind}{source}@{self.where}"


@dataclass(frozen=True, kw_only=True, slots=True)
class Result:
    """A judged case.

    Attributes:
        case: The case.
        verdict: ``answer`` (a success equal to the expected answer), ``typed_error`` (a
            :class:`RobotaError`), ``silent_success`` (any other success), ``untyped`` (any
            other exception).
        problem: None when the expectation held; else ``silent_success``, ``untyped`` or
            ``wrong_error`` (a typed error of the wrong class, or where the answer was due).
        got: What happened, for reports.
    """

    case: Case
    verdict: Verdict
    problem: Problem | None
    got: str


def _error_text(error: BaseException) -> str:
    text = str(error).replace("\n", " ")
    text = text if len(text) <= 90 else text[:89] + "…"
    missing = getattr(error, "missing", None)
    suffix = f" missing={missing!r}" if missing else ""
    return f"{type(error).__name__}({text!r}){suffix}"


def judge(case: Case, outcome: Answer | BaseException) -> Result:
    """The verdict on ``outcome`` (an :class:`Answer` or the raised exception)."""
    expect = case.expect
    if isinstance(outcome, Answer):
        want = expect.answer
        if expect.kind != "error" and want is not None:
            diff = want.differences(outcome)
            if not diff:
                return Result(case=case, verdict="answer", problem=None, got="the answer")
            return Result(
                case=case,
                verdict="silent_success",
                problem="silent_success",
                got=f"success [{outcome.describe()}] differing in {', '.join(diff)}; "
                + expect.describe(),
            )
        return Result(
            case=case,
            verdict="silent_success",
            problem="silent_success",
            got=f"success [{outcome.describe()}]; {expect.describe()}",
        )
    if isinstance(outcome, RobotaError):
        if expect.kind == "answer":
            return Result(
                case=case,
                verdict="typed_error",
                problem="wrong_error",
                got=f"{_error_text(outcome)}; {expect.describe()}",
            )
        if expect.kind == "error" and not isinstance(outcome, expect.errors):
            return Result(
                case=case,
                verdict="typed_error",
                problem="wrong_error",
                got=f"{_error_text(outcome)}; {expect.describe()}",
            )
        return Result(case=case, verdict="typed_error", problem=None, got=_error_text(outcome))
    return Result(
        case=case,
        verdict="untyped",
        problem="untyped",
        got=f"untyped {_error_text(outcome)}; {expect.describe()}",
    )
