"""Run the corpus: recorded truncations (the reference answer is each adapter's own reading of
the uncut body), hand-made shapes, and a sample through a real Agent; then judge and report."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from malformed_corpus.families import VENDOR_FAMILIES, Adapters
from malformed_corpus.model import Answer, Case, Expect, Problem, Result, judge
from malformed_corpus.recordings import Recorded, cut_cases, discover, full_case
from malformed_corpus.shapes import shape_cases

__all__ = ["CorpusRun", "run_corpus"]

AGENT_STREAMS_PER_FAMILY = 1
AGENT_JSON_PER_FAMILY = 1
AGENT_CUTS = 24
PROBLEM_TITLES: dict[Problem, str] = {
    "silent_success": "SILENT SUCCESS (a success where a typed error was due, or differing "
    "from the full answer)",
    "untyped": "UNTYPED EXCEPTION (not a RobotaError)",
    "wrong_error": "WRONG ERROR (a typed error of the wrong class, or where the answer was due)",
}


@dataclass(kw_only=True, slots=True)
class CorpusRun:
    """Everything one run produced."""

    results: list[Result] = field(default_factory=lambda: [])
    skipped: Counter[str] = field(default_factory=lambda: Counter[str]())
    seconds: float = 0.0
    extra_requests: int = 0
    no_request: list[str] = field(default_factory=lambda: [])

    def count(self, verdict: str) -> int:
        return sum(1 for r in self.results if r.verdict == verdict)

    def figures_line(self) -> str:
        """The ``malformed:`` summary line the repository's conftest collects."""
        return (
            f"malformed: tried={len(self.results)} "
            f"silent_success={self.count('silent_success')} "
            f"untyped={self.count('untyped')} "
            f"typed_errors={self.count('typed_error')} "
            f"answers={self.count('answer')}"
        )

    def failures(self, *problems: Problem) -> list[Result]:
        return [r for r in self.results if r.problem in problems]

    def breakdown(self) -> list[str]:
        """Counts by class, family and kind (one example each), for the printed summary."""
        lines: list[str] = []
        for problem in PROBLEM_TITLES:
            failed = self.failures(problem)
            if not failed:
                continue
            lines.append(f"  {problem}={len(failed)}:")
            groups: dict[tuple[str, str], list[Result]] = defaultdict(list)
            for result in failed:
                groups[(result.case.family, _kind_group(result.case))].append(result)
            for (family, kind), members in sorted(groups.items()):
                example = members[0]
                lines.append(
                    f"    {family}/{kind}: {len(members)}  e.g. {example.case.label}: "
                    f"got {example.got}"
                )
        return lines

    def report(self, *problems: Problem, per_source: int = 4) -> str:
        """Every failing case of ``problems`` as ``family/kind@cut: got …``, grouped by class
        and family/kind; long runs of cuts of one recording are shortened to ``per_source``
        lines and a count."""
        out: list[str] = []
        for problem in problems:
            failed = self.failures(problem)
            if not failed:
                continue
            out.append(f"== {PROBLEM_TITLES[problem]}: {len(failed)}")
            by_group: dict[str, list[Result]] = defaultdict(list)
            for result in failed:
                by_group[f"{result.case.family}/{_kind_group(result.case)}"].append(result)
            for group, members in sorted(by_group.items()):
                out.append(f"-- {group}: {len(members)}")
                by_source: dict[str, list[Result]] = defaultdict(list)
                for result in members:
                    by_source[result.case.source].append(result)
                for source_members in by_source.values():
                    for result in source_members[:per_source]:
                        out.append(f"   {result.case.label}: got {result.got}")
                    if len(source_members) > per_source:
                        out.append(
                            f"   ... and {len(source_members) - per_source} more cuts of "
                            f"{source_members[0].case.source}"
                        )
        return "\n".join(out)


def _kind_group(case: Case) -> str:
    return case.kind


def _normalized(outcome: Answer | BaseException, body: bytes) -> Answer | BaseException:
    """Tool-call ids the adapter made up (absent from the served bytes, e.g. Gemini's
    synthetic ids) compare as equal."""
    if not isinstance(outcome, Answer) or not outcome.tool_calls:
        return outcome
    calls = tuple(
        (call_id if call_id and call_id.encode() in body else "<generated>", name, arguments)
        for call_id, name, arguments in outcome.tool_calls
    )
    return replace(outcome, tool_calls=calls)


async def _run(
    adapters: Adapters, run: CorpusRun, case: Case, *, record: bool = True
) -> Answer | BaseException:
    """Call, normalize and (when ``record``) judge and keep the result."""
    outcome, requests = await adapters.call(case)
    outcome = _normalized(outcome, case.full)
    if requests > 1:
        run.extra_requests += 1
    if requests == 0:
        run.no_request.append(case.label)
    if record:
        run.results.append(judge(case, outcome))
    return outcome


def _without_usage(answer: Answer) -> Answer:
    return replace(answer, usage=None)


async def _recorded(adapters: Adapters, run: CorpusRun, recorded: Iterable[Recorded]) -> None:
    agent_streams: Counter[str] = Counter()
    agent_json: Counter[str] = Counter()
    for item in recorded:
        case = full_case(item)
        outcome = await _run(adapters, run, case, record=False)
        if case.expect.kind == "either" and isinstance(outcome, Answer):
            case = replace(case, expect=Expect(kind="either", answer=outcome, why="uncut body"))
        run.results.append(judge(case, outcome))
        complete = item.rule.complete is not False
        reference = outcome if isinstance(outcome, Answer) and complete else None
        for cut in cut_cases(item, reference):
            await _run(adapters, run, cut)
        if reference is None or reference.tool_calls or reference.finish_reason != "stop":
            continue
        if item.family not in VENDOR_FAMILIES:
            continue
        counter, limit = (
            (agent_streams, AGENT_STREAMS_PER_FAMILY)
            if item.streamed
            else (agent_json, AGENT_JSON_PER_FAMILY)
        )
        if counter[item.family] >= limit:
            continue
        counter[item.family] += 1
        mode = "agent-stream" if item.streamed else "agent-buffered"
        for cut in cut_cases(item, _without_usage(reference), mode=mode, limit=AGENT_CUTS):
            await _run(adapters, run, cut)


async def run_corpus(root: Path) -> CorpusRun:
    """Run every case; recordings come from ``root``."""
    started = time.perf_counter()
    run = CorpusRun()
    recorded, skipped = discover(root)
    run.skipped = skipped
    adapters = Adapters()
    try:
        await _recorded(adapters, run, recorded)
        for case in shape_cases():
            await _run(adapters, run, case)
    finally:
        await adapters.aclose()
    run.seconds = time.perf_counter() - started
    return run
