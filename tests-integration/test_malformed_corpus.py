"""Malformed-response corpus (issue #14): every provider response is a correct answer or a typed
error (a ``robota.core.errors.RobotaError``), never a silent partial success.

Two sources, each fed to the real adapters (OpenAI Chat Completions, OpenAI Responses,
Anthropic Messages, Gemini, and ``OpenAIChatProvider`` on every OpenAI-compatible server profile)
through an injected ``httpx.AsyncClient`` over ``httpx.MockTransport`` (no network):

* Recorded vendor traffic (``ROBOTA_CASSETTE_DIR`` or ``../shared/cassettes/pydantic-ai``):
  every recorded event stream and every buffered JSON 200 answer of a model call, cut at every
  event boundary, inside events and inside UTF-8 sequences. The reference is the same adapter's
  answer on the uncut body; a cut at or after the vendor's final event (``[DONE]``,
  ``response.completed``, ``message_stop``, the chunk with ``finishReason``) must give exactly
  that answer, a cut before it a typed error. A sample also runs through a real ``Agent``.
* Hand-made broken-server shapes, by class (see ``malformed_corpus/shapes.py``).

Verdicts: ``answer`` (the expected answer), ``typed_errors`` (a RobotaError), ``silent_success``
(a success where a typed error was due, or one differing from the full answer in text, tool
calls, finish reason or usage), ``untyped`` (any other exception). One line ``malformed:
tried=N silent_success=S untyped=U typed_errors=E answers=A`` is printed (collected by the
repository's conftest). A typed error of the wrong class (or where the answer was due) fails
the separate error-class test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from malformed_corpus import CorpusRun, cassette_root, run_corpus

pytestmark = [
    pytest.mark.integration,
    # Recordings name retired models; the vendor SDK warns on every call.
    pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning"),
]


@pytest.fixture(scope="module")
def corpus() -> CorpusRun:
    root = cassette_root()
    if not root.is_dir():
        pytest.skip(f"no recorded traffic at {root} (set ROBOTA_CASSETTE_DIR)")
    return anyio.run(run_corpus, root)


def _summary(run: CorpusRun) -> None:
    print(run.figures_line())
    wrong = len(run.failures("wrong_error"))
    print(
        f"  wrong_error={wrong} runtime={run.seconds:.1f}s "
        f"adapter calls sending >1 request={run.extra_requests} "
        f"sending none={len(run.no_request)}"
    )
    print(
        "  skipped interactions: " + ", ".join(f"{r}={n}" for r, n in sorted(run.skipped.items()))
    )
    print("\n".join(run.breakdown()))


def test_malformed_corpus_has_no_silent_success_or_untyped_error(corpus: CorpusRun) -> None:
    _summary(corpus)
    assert corpus.results, "the corpus ran no case"
    silent = len(corpus.failures("silent_success"))
    untyped = len(corpus.failures("untyped"))
    assert (silent, untyped) == (0, 0), (
        f"silent_success={silent} untyped={untyped}\n" + corpus.report("silent_success", "untyped")
    )


def test_malformed_corpus_errors_have_the_right_class(corpus: CorpusRun) -> None:
    wrong = corpus.failures("wrong_error")
    assert not wrong, f"wrong_error={len(wrong)}\n" + corpus.report("wrong_error")
