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
import tempfile
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "IMPORT_TARGETS",
    "QUICK_IMPORTS",
    "ROBOTA_IMPORT",
    "SDK_IMPORT",
    "import_times",
    "memory",
    "session_factory",
]

ROOT = Path(__file__).resolve().parents[2]

IMPORT_TARGETS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "robota.core": (("robota.core",), None),
    "robota Agent + OpenAIChatProvider": (
        ("robota.core.agent:Agent", "robota.providers.openai:OpenAIChatProvider"),
        None,
    ),
    "openai (SDK alone)": (("openai:AsyncOpenAI",), None),
    "pydantic_ai Agent": (("pydantic_ai:Agent",), "pydantic_ai"),
    "pydantic_ai Agent + OpenAIChatModel": (
        ("pydantic_ai:Agent", "pydantic_ai.models.openai:OpenAIChatModel"),
        "pydantic_ai",
    ),
    "agents Agent": (("agents:Agent",), "agents"),
}
"""Row label → (what is imported together, peer module required or None). Each entry is a
module, or ``module:name`` to import that module and read the name from it (``from module
import name``): with lazy package exports a bare module import would not load what a user's
first line loads."""

QUICK_IMPORTS = ("robota.core", "robota Agent + OpenAIChatProvider", "openai (SDK alone)")
"""The rows quick mode measures (one fresh process each)."""

ROBOTA_IMPORT = "robota Agent + OpenAIChatProvider"
SDK_IMPORT = "openai (SDK alone)"
"""The two rows of the import target: Robota's core and OpenAI provider over the SDK alone."""

_IMPORT_SNIPPET = (
    "import importlib, sys, time\n"
    "t, c = time.perf_counter(), time.process_time()\n"
    "for spec in sys.argv[1:]:\n"
    "    module, _, name = spec.partition(':')\n"
    "    loaded = importlib.import_module(module)\n"
    "    if name: getattr(loaded, name)\n"
    "print(time.perf_counter() - t, time.process_time() - c)\n"
)


PYCACHE = Path(tempfile.gettempdir()) / "robota-bench-pycache"
"""Where the children write bytecode (``PYTHONPYCACHEPREFIX``), so an import is timed from
cached bytecode even where the environment sets ``PYTHONDONTWRITEBYTECODE`` (as this
repository's machines do: every import would otherwise compile each module again)."""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", str(PYCACHE))
    return env


def _import_once(label: str) -> tuple[float, float]:
    modules, _peer = IMPORT_TARGETS[label]
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT_SNIPPET, *modules],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=_env(),
    )
    wall, cpu = (float(x) * 1000 for x in done.stdout.split())
    return wall, cpu


def import_times(labels: Sequence[str], *, reps: int) -> dict[str, dict[str, float]]:
    """Median milliseconds to import each target in a fresh ``python`` process (interpreter
    start excluded), wall and CPU (``time.process_time``), runs interleaved across targets
    after one unmeasured run each (which leaves the bytecode cached in :data:`PYCACHE`).

    Returns:
        ``{label: {"wall_ms": float, "cpu_ms": float}}``.
    """
    for label in labels:
        _import_once(label)
    walls: dict[str, list[float]] = {label: [] for label in labels}
    cpus: dict[str, list[float]] = {label: [] for label in labels}
    for _ in range(reps):
        for label in labels:
            wall, cpu = _import_once(label)
            walls[label].append(wall)
            cpus[label].append(cpu)
    return {
        label: {
            "wall_ms": statistics.median(walls[label]),
            "cpu_ms": statistics.median(cpus[label]),
        }
        for label in labels
    }


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
