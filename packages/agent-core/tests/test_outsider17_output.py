"""Outsider attacks on issue 17's structured output (lenient parsing, the ``{"result": ...}``
wrapper, hostile JSON, output functions, ModelRetry, validators, exhausted retries).

Every test runs the real agent loop on the scripted provider. ``# HOLE:`` marks a test that
fails now because the promised behaviour is not delivered; ``# HELD`` marks an attack that the
code withstood.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import anyio
import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError
from robota.core.agent import Agent
from robota.core.agent.events import FinalResult, OutputValidationFailed
from robota.core.agent.output import OutputContext, StructuredDict
from robota.core.agent.result import NO_OUTPUT
from robota.core.cancellation import CancelToken
from robota.core.capabilities import ModelCapabilities
from robota.core.errors import ModelRetry, StructuredOutputError
from robota.core.events import Event
from robota.core.messages import AssistantMessage, UserMessage
from robota.core.testing.recording import EventRecorder
from robota.core.testing.scripted import ScriptedProvider

PROMPTED = ModelCapabilities(native_structured_output=False, json_mode=False)


class Item(BaseModel):
    name: str
    qty: int


class Boxed(BaseModel):
    """An object type whose own field is named ``result``."""

    result: int


class Other(BaseModel):
    label: str


# --- lenient parsing -----------------------------------------------------------------------


@pytest.mark.anyio
async def test_prose_with_a_brace_around_one_json_value_is_tolerated() -> None:
    # HOLE: the module promises "prose around one JSON value" is tolerated, but the span is
    # first "{" to last "}" of the whole text, so a brace inside the prose (after or before
    # the value) makes the one valid value unparseable and burns a retry.
    answer = 'Here you go: {"name": "tea", "qty": 2} (quantities are in {units}).'
    provider = ScriptedProvider([answer, '{"name": "WRONG", "qty": 0}'])
    sink = EventRecorder()
    agent = Agent(provider, output_type=Item, sinks=[sink], output_retries=1)
    result = await agent.run("order")
    assert result.output == Item(name="tea", qty=2)
    assert len(provider.requests) == 1
    assert not sink.of(OutputValidationFailed)


@pytest.mark.anyio
async def test_fenced_answer_followed_by_prose_with_braces_is_tolerated() -> None:
    # HOLE: a fenced JSON block followed by a remark containing "{...}" is neither a whole-text
    # fence nor a clean first-"{"-to-last-"}" span: the answer is refused.
    answer = 'Result:\n```json\n{"name": "tea", "qty": 2}\n```\nFormat was {name, qty}.'
    provider = ScriptedProvider([answer, '{"name": "WRONG", "qty": 0}'])
    agent = Agent(provider, output_type=Item, output_retries=1)
    result = await agent.run("order")
    assert result.output == Item(name="tea", qty=2)
    assert len(provider.requests) == 1


@pytest.mark.anyio
async def test_two_json_objects_in_prose_are_never_silently_merged_or_guessed() -> None:
    # HELD: two candidate objects are ambiguous; the run must not pick one silently (it asks
    # again) and the retry's answer wins.
    answer = 'Either {"name": "a", "qty": 1} or {"name": "b", "qty": 2}.'
    provider = ScriptedProvider([answer, '{"name": "c", "qty": 3}'])
    agent = Agent(provider, output_type=Item, output_retries=1)
    result = await agent.run("order")
    assert result.output == Item(name="c", qty=3)
    assert len(provider.requests) == 2


@pytest.mark.anyio
async def test_a_fence_inside_a_json_string_is_part_of_the_value() -> None:
    # HELD: a whole-text JSON value whose string holds a ``` fence is parsed as the value, not
    # cut at the fence.
    inner = '```json\n{"name": "x", "qty": 9}\n```'
    answer = json.dumps({"name": inner, "qty": 1})
    for text in (answer, f"```json\n{answer}\n```"):
        provider = ScriptedProvider([text])
        result = await Agent(provider, output_type=Item).run("order")
        assert result.output == Item(name=inner, qty=1)


@pytest.mark.anyio
async def test_object_type_with_own_result_field_is_not_unwrapped() -> None:
    # HELD: an object root is sent as is, so {"result": 5} is the object, not a wrapper.
    provider = ScriptedProvider(['{"result": 5}'])
    result = await Agent(provider, output_type=Boxed).run("q")
    assert result.output == Boxed(result=5)


@pytest.mark.anyio
async def test_union_member_with_a_result_field_survives_a_bare_prompted_answer() -> None:
    # HOLE: for a wrapped root (a union) `unwrap` promises a bare value is "returned as is"
    # (a prompted answer may omit the wrapper), but a bare member object whose only field is
    # named `result` is taken for the wrapper: {"result": 5} becomes 5 and is refused, though it
    # is a valid Boxed. Trying the bare value when the unwrapped one does not validate fixes it.
    provider = ScriptedProvider(
        ['{"result": 5}', '{"result": {"label": "fallback"}}'], capabilities=PROMPTED
    )
    agent = Agent(provider, output_type=Boxed | Other, output_retries=1)
    result = await agent.run("q")
    assert result.output == Boxed(result=5)


@pytest.mark.anyio
async def test_union_wrapper_and_bare_value_both_valid_prefers_the_wrapper() -> None:
    # HELD: int | dict[str, int] is wrapped; {"result": 3} is read as the wrapper (the wire
    # contract), giving 3, and a doubly wrapped answer gives the dict.
    provider = ScriptedProvider(['{"result": 3}', '{"result": {"result": 3}}'])
    agent = Agent(provider, output_type=int | dict[str, int])
    assert (await agent.run("a")).output == 3
    assert (await agent.run("b")).output == {"result": 3}


# --- hostile JSON -----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_deeply_nested_answer_is_an_invalid_answer_not_a_crash() -> None:
    # HOLE: json.loads raises RecursionError (not JSONDecodeError) on a deeply nested answer;
    # parse_json_leniently only turns JSONDecodeError into ValueError, so a hostile model's
    # 100 000 "[" crashes the run with RecursionError instead of costing one bounded retry.
    deep = '{"result": ' + "[" * 100_000 + "]" * 100_000 + "}"
    provider = ScriptedProvider([deep, '{"result": [1]}'])
    sink = EventRecorder()
    agent = Agent(provider, output_type=list[Any], sinks=[sink], output_retries=1)
    result = await agent.run("q")
    assert result.output == [1]
    assert len(sink.of(OutputValidationFailed)) == 1


@pytest.mark.anyio
async def test_deeply_nested_schema_dict_answer_does_not_crash() -> None:
    # HOLE: same hole through a JSON Schema dict output type (the prompted transport).
    deep = "[" * 50_000 + "]" * 50_000
    schema = {"type": "array"}
    provider = ScriptedProvider([deep, "[1, 2]"], capabilities=PROMPTED)
    agent = Agent(provider, output_type=schema, output_retries=1)
    result = await agent.run("q")
    assert result.output == [1, 2]


@pytest.mark.anyio
async def test_huge_flat_answer_validates() -> None:
    # HELD: a 1 MB flat answer validates (no recursion, one pass).
    numbers = list(range(150_000))
    provider = ScriptedProvider([json.dumps({"result": numbers})])
    result = await Agent(provider, output_type=list[int]).run("q")
    assert result.output == numbers


@pytest.mark.anyio
@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
async def test_non_json_number_tokens_are_refused(token: str) -> None:
    # HOLE: the instruction asks for "a JSON value" and the wire schema says "number", but the
    # lenient parser is json.loads, which accepts NaN/Infinity; a JSON-Schema output then
    # returns a float('nan') that no JSON encoder can send on. It should be refused (retry).
    schema = StructuredDict(
        {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}
    )
    provider = ScriptedProvider([f'{{"x": {token}}}', '{"x": 1.5}'])
    agent = Agent(provider, output_type=schema, output_retries=1)
    result = await agent.run("q")
    assert result.output == {"x": 1.5}


@pytest.mark.anyio
async def test_duplicate_keys_resolve_like_the_json_parser() -> None:
    # HELD: duplicate keys are resolved deterministically (last wins, as Python's json module
    # and current pydantic-core do), never by merging. Not compared with
    # ``Item.model_validate_json``: pydantic-core 2.27 (the declared floor) keeps the first.
    answer = '{"name": "a", "qty": 1, "qty": 2}'
    provider = ScriptedProvider([answer])
    result = await Agent(provider, output_type=Item).run("q")
    assert result.output == Item(name="a", qty=2)


@pytest.mark.anyio
async def test_empty_answer_costs_a_retry() -> None:
    # HELD: a model answering in the wrong transport (nothing in the text) is asked again.
    provider = ScriptedProvider(["", '{"name": "a", "qty": 1}'])
    result = await Agent(provider, output_type=Item, output_retries=1).run("q")
    assert result.output == Item(name="a", qty=1)


# --- output functions and ModelRetry -----------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("error", [ValueError("boom"), KeyError("k"), RuntimeError("r")])
async def test_output_function_application_error_fails_without_retry(error: Exception) -> None:
    # HELD: any exception but ModelRetry is an application failure: no retry request.
    def finish(city: str) -> str:
        raise error

    provider = ScriptedProvider(['{"city": "Oslo"}', '{"city": "Bergen"}'])
    sink = EventRecorder()
    agent = Agent(provider, output_type=finish, sinks=[sink])
    with pytest.raises(type(error)):
        await agent.run("q")
    assert len(provider.requests) == 1
    assert not sink.of(FinalResult)


@pytest.mark.anyio
async def test_pydantic_validation_error_inside_an_output_function_is_not_a_retry() -> None:
    # HELD: a ValidationError raised by the function's own code is the application's failure.
    def finish(city: str) -> int:
        return TypeAdapter(int).validate_python(city)

    provider = ScriptedProvider(['{"city": "Oslo"}', '{"city": "7"}'])
    with pytest.raises(ValidationError):
        await Agent(provider, output_type=finish).run("q")
    assert len(provider.requests) == 1


@pytest.mark.anyio
async def test_gigantic_model_retry_message_is_retried_and_reported() -> None:
    # HELD: a 1 MB ModelRetry message is a retry like any other; the run's error carries it.
    huge = "x" * 1_000_000

    def finish(city: str) -> str:
        raise ModelRetry(huge)

    provider = ScriptedProvider(['{"city": "a"}', '{"city": "b"}'])
    agent = Agent(provider, output_type=finish, output_retries=1)
    with pytest.raises(StructuredOutputError) as caught:
        await agent.run("q")
    assert caught.value.attempts == 2
    assert caught.value.issues == (huge,)
    assert len(provider.requests) == 2


@pytest.mark.anyio
async def test_non_str_model_retry_message_still_gives_text_issues() -> None:
    # HOLE: ModelRetry(message) stores any object; OutputCheck/StructuredOutputError/
    # OutputValidationFailed promise `issues: tuple[str, ...]` yet carry the raw object.
    def finish(city: str) -> str:
        raise ModelRetry({"why": "no"})  # type: ignore[arg-type]

    provider = ScriptedProvider(['{"city": "a"}'])
    sink = EventRecorder()
    agent = Agent(provider, output_type=finish, output_retries=0, sinks=[sink])
    with pytest.raises(StructuredOutputError) as caught:
        await agent.run("q")
    assert all(isinstance(i, str) for i in caught.value.issues)
    assert all(isinstance(i, str) for e in sink.of(OutputValidationFailed) for i in e.issues)


# --- validators ---------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_validators_chain_their_returned_values_and_see_attempts() -> None:
    # HELD: each validator gets the previous one's return; a ModelRetry is counted as an attempt.
    attempts: list[int] = []

    def first(ctx: OutputContext[Any], value: Item) -> Item:
        if not ctx.partial:  # validators also see streamed partial values
            attempts.append(ctx.attempt)
        if value.qty < 0:
            raise ModelRetry("qty must be >= 0")
        return value.model_copy(update={"name": value.name.upper()})

    async def second(value: Item) -> Item:
        value.qty *= 10  # mutates what the first returned
        return value

    provider = ScriptedProvider(['{"name": "a", "qty": -1}', '{"name": "b", "qty": 2}'])
    sink = EventRecorder()
    agent = Agent(provider, output_type=Item, output_validators=[first, second], sinks=[sink])
    result = await agent.run("q")
    assert result.output == Item(name="B", qty=20)
    assert attempts == [1, 2]
    finals = sink.of(FinalResult)
    assert len(finals) == 1
    assert finals[0].output is result.output


@pytest.mark.anyio
async def test_async_validator_cancelled_mid_way_leaves_no_output_and_clean_history() -> None:
    # HELD: a run cancelled while an async validator awaits resolves as interrupted, emits no
    # FinalResult, and history holds only the prompt and the answer (nothing rewritten).
    entered = anyio.Event()

    async def slow(value: Item) -> Item:
        entered.set()
        await anyio.sleep_forever()
        return value

    provider = ScriptedProvider(['{"name": "a", "qty": 1}'])
    sink = EventRecorder()
    agent = Agent(provider, output_type=Item, output_validators=[slow], sinks=[sink])
    token = CancelToken()
    results: list[Any] = []

    async def go() -> None:
        results.append(await agent.run("q", cancel=token))

    async with anyio.create_task_group() as tg:
        tg.start_soon(go)
        await entered.wait()
        token.cancel()
    (result,) = results
    assert result.interrupted
    assert result.value is NO_OUTPUT
    assert not sink.of(FinalResult)
    assert [type(m) for m in agent.history] == [UserMessage, AssistantMessage]


@pytest.mark.anyio
async def test_exhausted_retries_keep_history_append_only_and_report_issues() -> None:
    # HELD: every attempt and every feedback message stays in history, in order; the error
    # carries the last issues and the attempt count; no FinalResult.
    answers = ['{"name": 1}', '{"qty": "x"}', "not json"]
    provider = ScriptedProvider(list(answers))
    sink = EventRecorder()
    agent = Agent(provider, output_type=Item, output_retries=2, sinks=[sink])
    seen: list[tuple[Any, ...]] = []
    original_emit = sink.emit

    def spy(event: Event) -> None:
        seen.append(agent.history)
        original_emit(event)

    sink.emit = spy  # type: ignore[method-assign]
    with pytest.raises(StructuredOutputError) as caught:
        await agent.run("q")
    error = caught.value
    assert error.attempts == 3
    assert error.issues
    assert "JSON" in error.issues[0]
    for earlier, later in itertools.pairwise(seen):
        assert later[: len(earlier)] == earlier  # append-only at every event
    texts = [m.text for m in agent.history if isinstance(m, AssistantMessage)]
    assert texts == answers
    feedback = [m for m in agent.history if isinstance(m, UserMessage)][1:]
    assert len(feedback) == 2
    assert not sink.of(FinalResult)
    assert [e.will_retry for e in sink.of(OutputValidationFailed)] == [True, True, False]
