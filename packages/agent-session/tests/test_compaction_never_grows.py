"""An elision never grows what it shortens (found by a hypothesis draw of
``test_fit_keeps_protected_messages_and_tool_ids``: a 74-character ASCII system prompt at budget 0
was "elided" into a marker that serializes longer, because ``…`` is 3 bytes of UTF-8 and the
size the estimate counts is the serialized one). Every shortening path keeps a part whose
shortened form is not smaller, and does not count it as changed."""

from __future__ import annotations

import pytest
from robota.core.agent.context import estimate_tokens
from robota.core.messages import (
    AssistantMessage,
    HostedToolResultPart,
    MediaPart,
    Message,
    ProviderDetailsPart,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
    dump_messages,
)
from robota.session.compaction import ELIDED_TEXT, ElisionNotes, elide_tool_results, fit_messages
from robota.session.compaction._fit import flatten_to_transcript

DIGITS = ("0123456789" * 8)[:74]  # the drawn system prompt
NOTES = ElisionNotes()


def between(template: str) -> str:
    """ASCII text longer than its marker in characters, shorter in serialized bytes (each
    ``…`` is 3 bytes of UTF-8): the case the character count got wrong."""
    for length in range(1, 400):
        note = template.format(count=length, why=NOTES.why)
        if len(note) < length < len(note.encode()):
            return ("0123456789" * 40)[:length]
    raise AssertionError(template)


SYSTEM, TEXT, OUTPUT, ARGUMENT = (
    between(t) for t in (NOTES.system, NOTES.text, NOTES.tool_output, NOTES.argument)
)
CALL = ToolCallPart(id="c1", name="read_file", arguments={"path": "a"})


def _result(*content: TextPart | MediaPart) -> ToolResultMessage:
    return ToolResultMessage(
        results=(ToolResultPart(call_id="c1", name="read_file", content=content),)
    )


SHORT: dict[str, Message] = {
    "system prompt": SystemMessage(content=SYSTEM),
    "tool output": _result(TextPart(text=OUTPUT)),
    "user text": UserMessage.of(TEXT),
    "assistant text": AssistantMessage(parts=(TextPart(text=TEXT),)),
    "a small image": UserMessage(
        parts=(MediaPart(media_kind="image", media_type="image/png", data=b"\x89PNG"),)
    ),
    "a small image in tool output": _result(
        MediaPart(media_kind="image", media_type="image/png", data=b"\x89PNG")
    ),
    "a little reasoning": AssistantMessage(parts=(ThinkingPart(text="hm"),)),
    "little provider details": AssistantMessage(
        parts=(ProviderDetailsPart(provider="x", data={"a": 1}),)
    ),
    "raw tool-call arguments": AssistantMessage(
        parts=(ToolCallPart(id="c1", name="read_file", arguments=None, raw_arguments=ARGUMENT),)
    ),
    "a tool-call argument": AssistantMessage(
        parts=(ToolCallPart(id="c1", name="read_file", arguments={"path": ARGUMENT}),)
    ),
    "a hosted tool result": AssistantMessage(
        parts=(HostedToolResultPart(call_id="h1", name="web_search", content={"q": ARGUMENT}),)
    ),
}


def _history(message: Message) -> list[Message]:
    if isinstance(message, ToolResultMessage):
        return [AssistantMessage(parts=(CALL,)), message]
    if any(isinstance(p, ToolCallPart) for p in getattr(message, "parts", ())):
        call = message.tool_calls[0] if isinstance(message, AssistantMessage) else CALL
        return [message, _result_for(call)]
    return [message]


def _result_for(call: ToolCallPart) -> ToolResultMessage:
    return ToolResultMessage(
        results=(ToolResultPart(call_id=call.id, name=call.name, content=(TextPart(text="k"),)),)
    )


def test_the_drawn_system_prompt_is_kept_at_budget_0() -> None:
    messages = [SystemMessage(content=DIGITS), UserMessage.of("instruction")]
    fit = fit_messages(messages, 0, protected=frozenset({1}))
    assert fit.messages == tuple(messages)
    assert fit.changed_parts == 0
    assert fit.estimated_tokens == fit.original_tokens
    assert not fit.fits


@pytest.mark.parametrize("label", list(SHORT))
def test_a_part_smaller_than_its_marker_is_kept(label: str) -> None:
    messages = _history(SHORT[label])
    fit = fit_messages(messages, 0)
    assert fit.estimated_tokens <= fit.original_tokens
    if fit.changed_parts == 0:
        assert fit.messages == tuple(messages)
    for before, after in zip(messages, fit.messages, strict=True):
        if before != after:  # whatever changed got smaller
            assert len(dump_messages([after])) < len(dump_messages([before]))


TEXTS = [
    "system prompt",
    "tool output",
    "user text",
    "assistant text",
    "raw tool-call arguments",
    "a tool-call argument",
    "a hosted tool result",
]
"""The paths that cut text around a marker (media, reasoning and provider details are
replaced or dropped whole, which is smaller even for the small ones above)."""


@pytest.mark.parametrize("label", TEXTS)
def test_a_text_shorter_than_its_marker_is_not_changed(label: str) -> None:
    messages = _history(SHORT[label])
    fit = fit_messages(messages, 0)
    assert fit.messages == tuple(messages)
    assert fit.changed_parts == 0


def test_a_long_part_is_still_shortened() -> None:
    messages = [SystemMessage(content=DIGITS * 100), UserMessage.of("instruction")]
    fit = fit_messages(messages, 100, protected=frozenset({1}))
    assert fit.changed_parts == 1
    assert fit.estimated_tokens < fit.original_tokens


def test_elide_tool_results_keeps_a_result_shorter_than_the_marker() -> None:
    call = ToolCallPart(id="c2", name="read_file", arguments={"path": "b"})
    short = _result(TextPart(text="ok"))
    long = ToolResultMessage(
        results=(ToolResultPart(call_id="c2", name="read_file", content=(TextPart(text=DIGITS),)),)
    )
    messages = [AssistantMessage(parts=(CALL,)), short, AssistantMessage(parts=(call,)), long]
    out, elided = elide_tool_results(messages, keep_last=0)
    assert out[1] == short  # "ok" is shorter than the marker: kept, not counted
    assert isinstance(out[3], ToolResultMessage)
    assert out[3].results[0].text == ELIDED_TEXT
    assert elided == 1
    again, elided_again = elide_tool_results(out, keep_last=0)
    assert again == out
    assert elided_again == 0
    assert estimate_tokens(out) < estimate_tokens(messages)


def test_the_older_history_transcript_is_not_grown() -> None:
    # the summary request's last resort: the whole older history as one transcript, fitted
    def flat(pad: int) -> tuple[Message, ...]:
        older = [UserMessage.of("0" * pad), AssistantMessage(parts=(TextPart(text="b"),))]
        return flatten_to_transcript([*older, UserMessage.of("go")], everything=True)

    def text_of(message: Message) -> str:
        assert isinstance(message, UserMessage)
        [part] = message.parts
        assert isinstance(part, TextPart)
        return part.text

    messages = flat(len(TEXT) - len(text_of(flat(0)[0])))
    assert text_of(messages[0]).startswith("user: 0")
    assert len(text_of(messages[0])) == len(TEXT)
    fit = fit_messages(messages, 0, protected=frozenset({1}))
    assert fit.messages == messages
    assert fit.changed_parts == 0
