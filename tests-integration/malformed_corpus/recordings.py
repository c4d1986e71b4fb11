"""Recorded vendor traffic as a truncation corpus: every recorded streamed response and every
recorded buffered JSON 200 answer of a model call, cut at every event boundary, inside events
and inside UTF-8 sequences.

Interactions are discovered by what they are (method, path shape, content), never by file name;
the ones no adapter covers are counted with a reason.
"""

from __future__ import annotations

import os
import random
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from robota.core.testing.cassette import Interaction, load_cassette

from malformed_corpus.model import Answer, CallMode, Case, Expect
from malformed_corpus.sse import SseEvent, StreamRule, is_sse_body, json_rule, parse_events
from malformed_corpus.sse import stream_rule as sse_stream_rule

__all__ = [
    "Recorded",
    "cassette_root",
    "cut_cases",
    "discover",
    "full_case",
]

INSIDE_PER_EVENT = 1
"""Random cut points sampled strictly inside each event (besides the boundaries)."""
UTF8_PER_STREAM = 6
"""Cut points sampled inside multi-byte UTF-8 sequences of each stream."""
JSON_RANDOM_CUTS = 3
"""Random cut points inside each buffered JSON body."""
UTF8_PER_JSON = 2


def cassette_root() -> Path:
    """``ROBOTA_CASSETTE_DIR`` or ``<repo>/../shared/cassettes/pydantic-ai``."""
    env = os.environ.get("ROBOTA_CASSETTE_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    repo = next(p for p in here.parents if (p / "packages").is_dir())
    return repo.parent / "shared" / "cassettes" / "pydantic-ai"


@dataclass(frozen=True, kw_only=True, slots=True)
class Recorded:
    """One recorded 200 answer of a model call.

    Attributes:
        family: The adapter family whose wire it is.
        source: ``folder/file.yaml#index``.
        model: The model the request named.
        headers: Recorded response headers.
        body: Recorded body.
        streamed: True for an event stream (served to the adapter's stream path).
        rule: The vendor rule applied to the whole body.
        events: The framed events (streams only).
    """

    family: str
    source: str
    model: str
    headers: dict[str, str]
    body: bytes
    streamed: bool
    rule: StreamRule
    events: tuple[SseEvent, ...] = ()

    @property
    def mode(self) -> str:
        return "stream" if self.streamed else "buffered"

    @property
    def kind(self) -> str:
        if self.streamed:
            return "recorded-sse"
        return "recorded-json" if self.rule.why != "a JSON object body" else "recorded-other"


def _family(interaction: Interaction) -> str | None:
    if interaction.method != "POST":
        return None
    path = interaction.path
    last = path.rsplit("/", 1)[-1]
    if path.endswith("/chat/completions"):
        return "openai-chat"
    if path.endswith("/responses"):
        return "openai-responses"
    if path.endswith("/messages"):
        return "anthropic"
    if last.endswith((":generateContent", ":streamGenerateContent")):
        return "gemini"
    return None


def _skip_reason(interaction: Interaction) -> str:
    method = interaction.method
    last = interaction.path.rstrip("/").rsplit("/", 1)[-1]
    if method != "POST":
        return f"{method} request (not a model call)"
    if ":" in last:
        last = last.rsplit(":", 1)[-1]
    elif any(ch.isdigit() for ch in last) and len(last) > 20:
        last = "<id>"
    return f"POST .../{last} (not a model call)"


def _model(family: str, interaction: Interaction) -> str:
    if family == "gemini":
        last = urlsplit(interaction.uri).path.rsplit("/", 1)[-1]
        return last.split(":", 1)[0]
    body: Any = interaction.request_body
    if isinstance(body, dict) and isinstance(body.get("model"), str):
        return str(body["model"])
    return "unknown-model"


def discover(root: Path) -> tuple[list[Recorded], Counter[str]]:
    """Every recorded model-call answer under ``root`` and the skipped interactions by reason."""
    found: list[Recorded] = []
    skipped: Counter[str] = Counter()
    for path in sorted(root.rglob("*.yaml")):
        try:
            cassette = load_cassette(path)
        except ValueError:
            skipped["file is not a vcrpy cassette"] += 1
            continue
        for index, interaction in enumerate(cassette.interactions):
            family = _family(interaction)
            if family is None:
                skipped[_skip_reason(interaction)] += 1
                continue
            if interaction.status != 200:
                skipped[
                    f"recorded {interaction.status} (error path: the hand-made shapes cover it)"
                ] += 1
                continue
            content_type = interaction.headers.get("content-type", "")
            streamed = is_sse_body(content_type, interaction.body)
            source = f"{path.parent.name}/{path.name}#{index}"
            events: tuple[SseEvent, ...] = ()
            if streamed:
                events = tuple(parse_events(interaction.body))
                rule = sse_stream_rule(family, list(events))
            else:
                rule = json_rule(family, interaction.json)
            found.append(
                Recorded(
                    family=family,
                    source=source,
                    model=_model(family, interaction),
                    headers=dict(interaction.headers),
                    body=interaction.body,
                    streamed=streamed,
                    rule=rule,
                    events=events,
                )
            )
    return found, skipped


def full_case(recorded: Recorded) -> Case:
    """The uncut body. Its expectation is provisional (``either`` with no answer) when the
    vendor rule holds; the runner judges it against itself."""
    rule = recorded.rule
    if rule.complete is False:
        expect = Expect.error(f"the uncut body lacks {rule.why}")
    else:
        expect = Expect(kind="either", why="uncut body (its own reference)")
    return Case(
        family=recorded.family,
        kind=recorded.kind,
        where=f"full ({len(recorded.body)} bytes)",
        mode="stream" if recorded.streamed else "buffered",
        model=recorded.model,
        full=recorded.body,
        headers=recorded.headers,
        expect=expect,
        source=recorded.source,
    )


def _rng(recorded: Recorded) -> random.Random:
    return random.Random(zlib.crc32(recorded.source.encode()))


def _utf8_inner(body: bytes, start: int = 0, end: int | None = None) -> list[int]:
    """Offsets inside multi-byte UTF-8 sequences (a continuation byte starts there)."""
    stop = len(body) if end is None else end
    return [i for i in range(max(start, 1), stop) if body[i] & 0xC0 == 0x80]


def _stream_points(recorded: Recorded) -> dict[int, str]:
    """Cut offsets of a stream with a description of each."""
    body = recorded.body
    events = recorded.events
    total = len(events)
    rng = _rng(recorded)
    points: dict[int, str] = {0: "empty body"}

    def name(event: SseEvent) -> str:
        return f"{event.index + 1}/{total} {event.label()}"

    final = recorded.rule.final
    for event in events:
        points.setdefault(event.end, f"event boundary after {name(event)}")
        inner = range(event.start + 1, event.data_end)
        for offset in rng.sample(inner, min(INSIDE_PER_EVENT, len(inner))):
            points.setdefault(offset, f"inside event {name(event)}")
        near_end = final is not None and event.index >= final.index - 1
        if near_end or rng.random() < 0.1:
            points.setdefault(event.data_end, f"event {name(event)} without its end of line")
            if event.data_end + 1 < event.end:
                points.setdefault(event.data_end + 1, f"event {name(event)} without its blank line")
            points.setdefault(event.start + 1, f"first byte of event {name(event)}")
    inner_utf8 = _utf8_inner(body)
    picked = rng.sample(inner_utf8, min(UTF8_PER_STREAM, len(inner_utf8)))
    if final is not None:
        picked += _utf8_inner(body, final.start, final.data_end)[:2]
    for offset in picked:
        owner = next((e for e in events if e.start <= offset < e.end), None)
        where = f" in event {name(owner)}" if owner is not None else ""
        points[offset] = f"inside a UTF-8 sequence{where}"
    points.pop(len(body), None)
    return points


def _json_points(recorded: Recorded) -> dict[int, str]:
    body = recorded.body
    size = len(body.rstrip())
    if size <= 2:
        return {0: "empty body"}
    rng = _rng(recorded)
    points: dict[int, str] = {0: "empty body", 1: "first byte", size - 1: "last byte missing"}
    points.setdefault(size // 2, "inside the JSON")
    for offset in rng.sample(range(2, size - 1), min(JSON_RANDOM_CUTS, size - 3)):
        points.setdefault(offset, "inside the JSON")
    inner = _utf8_inner(body)
    for offset in rng.sample(inner, min(UTF8_PER_JSON, len(inner))):
        points[offset] = "inside a UTF-8 sequence"
    if size < len(body):
        points[size] = "trailing whitespace cut"
    return points


def _stream_expect(recorded: Recorded, cut: int, answer: Answer) -> Expect:
    final = recorded.rule.final
    assert final is not None
    last_end = recorded.events[-1].end
    if cut < final.data_end:
        return Expect.error(f"cut before the end of {final.label()}")
    if cut < final.end:
        return Expect(
            kind="either",
            answer=answer,
            why=f"{final.label()} complete but not dispatched by a blank line",
        )
    if cut < last_end:
        return Expect(kind="either", answer=answer, why=f"cut after {final.label()}")
    return Expect(kind="answer", answer=answer, why=f"cut after {final.label()}")


def _json_expect(recorded: Recorded, cut: int, answer: Answer) -> Expect:
    if cut < len(recorded.body.rstrip()):
        return Expect.error("cut inside the JSON body")
    return Expect(kind="answer", answer=answer, why="only whitespace cut")


def cut_cases(
    recorded: Recorded,
    reference: Answer | None,
    *,
    mode: CallMode | None = None,
    limit: int | None = None,
) -> Iterator[Case]:
    """The truncations of ``recorded``. ``reference`` is the adapter's answer on the uncut body
    (None when the uncut body raised or broke the vendor rule: every cut must then raise a typed
    error). ``mode`` overrides the call mode (``agent-stream`` / ``agent-buffered``); ``limit``
    keeps an evenly spread sample of the cut points."""
    points = _stream_points(recorded) if recorded.streamed else _json_points(recorded)
    offsets = sorted(points)
    if limit is not None and len(offsets) > limit:
        step = len(offsets) / limit
        keep = {offsets[int(i * step)] for i in range(limit)}
        if recorded.rule.final is not None:
            keep |= {o for o in offsets if o >= recorded.rule.final.start}
        offsets = sorted(keep)
    size = len(recorded.body)
    if mode is not None:
        points[size] = "full body"
        offsets.append(size)
    call: CallMode = mode or ("stream" if recorded.streamed else "buffered")
    for cut in offsets:
        if reference is None:
            expect = Expect.error(
                f"uncut body lacks {recorded.rule.why}"
                if recorded.rule.complete is False
                else "the uncut body raised"
            )
        elif recorded.streamed:
            expect = _stream_expect(recorded, cut, reference)
        else:
            expect = _json_expect(recorded, cut, reference)
        yield Case(
            family=recorded.family,
            kind=("agent-" if mode is not None else "") + recorded.kind,
            where=f"{cut}/{size} ({points[cut]})",
            mode=call,
            model=recorded.model,
            full=recorded.body,
            cut=cut,
            headers=recorded.headers,
            expect=expect,
            source=recorded.source,
        )
