"""Figures that need a fresh interpreter: cold import time and memory of idle sessions.

Run as a child: ``python -m tools.bench._fresh memory <family> <sessions>`` prints one JSON
object; the parent helpers below start those children and read them.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["IMPORT_TARGETS", "import_times", "memory", "session_factory"]

ROOT = Path(__file__).resolve().parents[2]

IMPORT_TARGETS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "robota.core": (("robota.core",), None),
    "robota.core.agent + providers.openai": (
        ("robota.core.agent", "robota.providers.openai"),
        None,
    ),
    "pydantic_ai": (("pydantic_ai",), "pydantic_ai"),
    "pydantic_ai + models.openai": (("pydantic_ai", "pydantic_ai.models.openai"), "pydantic_ai"),
    "agents": (("agents",), "agents"),
    "openai (SDK alone)": (("openai",), None),
}
"""Row label → (modules imported together, peer module required or None)."""

_IMPORT_SNIPPET = (
    "import importlib, sys, time\n"
    "t = time.perf_counter()\n"
    "for m in sys.argv[1:]: importlib.import_module(m)\n"
    "print(time.perf_counter() - t)\n"
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def import_times(labels: Sequence[str], *, reps: int) -> dict[str, float]:
    """Median milliseconds to import each target in a fresh ``python`` process (interpreter
    start excluded), runs interleaved across targets."""
    samples: dict[str, list[float]] = {label: [] for label in labels}
    for _ in range(reps):
        for label in labels:
            modules, _peer = IMPORT_TARGETS[label]
            done = subprocess.run(
                [sys.executable, "-c", _IMPORT_SNIPPET, *modules],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT,
                env=_env(),
            )
            samples[label].append(float(done.stdout.strip()) * 1000)
    return {label: statistics.median(v) for label, v in samples.items()}


def memory(families: Sequence[str], sessions: int) -> dict[str, dict[str, float]]:
    """Run one memory child per family (concurrently) and return their JSON figures."""
    children = {
        family: subprocess.Popen(
            [sys.executable, "-m", "tools.bench._fresh", "memory", family, str(sessions)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=_env(),
        )
        for family in families
    }
    out: dict[str, dict[str, float]] = {}
    for family, child in children.items():
        stdout, _ = child.communicate()
        if child.returncode != 0:
            raise RuntimeError(f"memory child for {family} exited with {child.returncode}")
        out[family] = json.loads(stdout.strip().splitlines()[-1])
    return out


# --- the child ---------------------------------------------------------------------------------


def session_factory(family: str) -> Callable[[], Any]:
    """A function creating one idle session (four messages of history) of ``family``."""
    import httpx

    url = "http://127.0.0.1:9/v1"  # never contacted: the sessions stay idle
    client = httpx.AsyncClient()
    if family == "raw":
        from tools.bench._raw import chat_tool_specs

        def raw() -> Any:
            history: list[dict[str, str]] = []
            for i in range(2):
                history.append({"role": "user", "content": f"question {i}"})
                history.append({"role": "assistant", "content": f"answer {i} " * 20})
            return (chat_tool_specs(), history)

        return raw
    if family == "robota":
        from robota.core.agent import Agent
        from robota.core.messages import AssistantMessage, Message, TextPart, UserMessage
        from robota.providers.openai import OpenAIChatProvider

        from tools.bench._robota import robota_tools

        provider = OpenAIChatProvider("bench", base_url=url, http_client=client)

        def robota() -> Any:
            history: list[Message] = []
            for i in range(2):
                history.append(UserMessage.of(f"question {i}"))
                history.append(AssistantMessage(parts=(TextPart(text=f"answer {i} " * 20),)))
            return Agent(provider, model="bench-r0", tools=robota_tools(), history=history)

        return robota
    from tools.bench._peers import agents_session, pydantic_ai_session

    if family == "pydantic_ai":
        return pydantic_ai_session(url, client)
    if family == "openai_agents":
        return agents_session(url, client)
    raise ValueError(f"unknown family {family!r}")


def _rss_kib() -> float:
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return pages * os.sysconf("SC_PAGE_SIZE") / 1024


def _child_memory(family: str, sessions: int) -> dict[str, float]:
    make = session_factory(family)
    make()
    gc.collect()
    rss_before = _rss_kib()
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kept = [make() for _ in range(sessions)]
    gc.collect()
    rss_after = _rss_kib()
    peak_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    del kept
    gc.collect()
    tracemalloc.start()
    kept = [make() for _ in range(sessions)]
    gc.collect()
    traced, _ = tracemalloc.get_traced_memory()
    del kept
    tracemalloc.stop()
    return {
        "sessions": sessions,
        "rss_delta_kib": rss_after - rss_before,
        "peak_rss_kib": float(peak_after),
        "peak_rss_delta_kib": float(peak_after - peak_before),
        "traced_kib": traced / 1024,
        "traced_bytes_per_session": traced / sessions,
    }


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "memory":
        raise SystemExit("usage: python -m tools.bench._fresh memory <family> <sessions>")
    print(json.dumps(_child_memory(sys.argv[2], int(sys.argv[3]))))
