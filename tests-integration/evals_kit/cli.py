"""Running the real ``robota eval`` command against an agent module and a dataset written into a
temporary folder (``test_evals_cli.py``).

The agent module replays real recorded provider traffic (``../cassettes/*_read_file.yaml``,
derived from ``shared/cassettes/pydantic-ai``): the model calls ``read_file`` on ``notes.txt``,
the tool answers, the model gives its final text. No network: each provider is built by its
package's ``replay_provider`` over an in-memory transport.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "CANDIDATE_TEXT",
    "CASSETTES",
    "FINAL_TEXT",
    "PROMPT",
    "ROBOTA",
    "hide_evals_program",
    "robota",
    "robota_env",
    "write_agents",
    "write_dataset",
]

CASSETTES = Path(__file__).resolve().parent.parent / "cassettes"
ROBOTA = Path(sys.executable).with_name("robota")
"""The installed ``robota`` console script of this environment."""
PROMPT = "Read notes.txt and answer."
FINAL_TEXT = "The capital of France is Paris."
"""The recorded final answer of ``openai_responses_read_file.yaml`` (OpenAI Responses)."""
CANDIDATE_TEXT = "The capital of Mexico is Mexico City."
"""The recorded final answer of ``google_read_file.yaml`` (Gemini): the "changed" agent."""

_AGENTS = '''
"""Agents for `robota eval` (written by evals_kit.cli)."""

from dataclasses import dataclass
from pathlib import Path

import anyio
from robota.core.agent import Agent
from robota.core.testing.cassette import Cassette, load_cassette
from robota.core.tools.function import tool
from robota.evals import Evaluator
from robota.evals.io.registry import EvaluatorRegistry
from robota.providers.google.replay import provider_for_cassette as google_replay
from robota.providers.openai.replay import replay_provider as openai_replay

CASSETTES = Path({cassettes!r})


@tool
def read_file(path: str) -> str:
    """Read a file.

    Args:
        path: The file's path.
    """
    return "Robota notes: the launch code is 7319.\\n"


def _recording(name: str, runs: int) -> Cassette:
    recorded = load_cassette(CASSETTES / name)
    return Cassette(path=recorded.path, interactions=list(recorded.interactions) * runs)


def openai_agent(runs: int = 1) -> Agent:
    """An agent whose provider replays the OpenAI Responses recording ``runs`` times."""
    provider = openai_replay(_recording("openai_responses_read_file.yaml", runs))
    return Agent(provider, model="gpt-4o", tools=[read_file], retry=None)


def make_candidate() -> Agent:
    """The "changed" agent: another model (the Gemini recording), enough for 4 case runs."""
    provider = google_replay(_recording("google_read_file.yaml", 4))
    return Agent(provider, model="gemini-3-pro-preview", tools=[read_file], retry=None)


agent = openai_agent(runs=4)
"""An Agent object, built at import."""


async def answer(inputs):
    """An async function of the inputs: a fresh replayed agent per case run."""
    return await openai_agent().run(inputs)


async def hang(inputs):
    """Signals that a case started, then waits until cancelled (Ctrl-C)."""
    Path("started.marker").write_text("started")
    await anyio.sleep(3600)


not_an_agent = 42


def needs_arguments(model, provider):
    return None


@dataclass(frozen=True)
class ShortAnswer(Evaluator):
    """The output has at most ``limit`` characters."""

    limit: int = 200

    def evaluate(self, ctx):
        return len(str(ctx.output)) <= self.limit


registry = EvaluatorRegistry([ShortAnswer])
evaluator_list = [ShortAnswer]
'''


def write_agents(folder: Path, module: str = "agents") -> Path:
    """Write the agent module ``module.py`` into ``folder``; returns its path."""
    path = folder / f"{module}.py"
    path.write_text(textwrap.dedent(_AGENTS.format(cassettes=str(CASSETTES))), encoding="utf-8")
    return path


def write_dataset(
    path: Path,
    cases: Sequence[Mapping[str, Any]],
    *,
    name: str = "capitals",
    evaluators: Sequence[Any] = ("ExactMatch", {"Contains": {"value": "Paris"}}),
    report_evaluators: Sequence[Any] = (),
) -> Path:
    """Write a version-1 dataset file (YAML or JSON by suffix); returns ``path``."""
    document: dict[str, Any] = {
        "version": 1,
        "name": name,
        "evaluators": list(evaluators),
        "cases": [dict(case) for case in cases],
    }
    if report_evaluators:
        document["report_evaluators"] = list(report_evaluators)
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def robota_env(cwd: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment :func:`robota` runs the command in: this one, with ``$ROBOTA_HOME``
    under ``cwd``, ``NO_COLOR`` set and no variable that forces a terminal, plus ``extra``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "PYTHONPATH")
    }
    env["ROBOTA_HOME"] = str(cwd / ".robota-home")
    env["NO_COLOR"] = "1"
    env.update(extra or {})
    return env


def robota(
    args: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 120.0,
) -> subprocess.CompletedProcess[str]:
    """Run the real ``robota`` command with ``args`` in ``cwd`` (``$ROBOTA_HOME`` under it)."""
    return subprocess.run(
        [str(ROBOTA), *args],
        cwd=cwd,
        env=robota_env(cwd, env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def hide_evals_program() -> str:
    """A Python program that runs ``robota`` (``sys.argv[1:]``) in an interpreter where
    ``robota.evals`` looks uninstalled (as without the ``evals`` extra)."""
    return textwrap.dedent(
        """
        import importlib.abc
        import sys

        class _HideEvals(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "robota.evals" or name.startswith("robota.evals."):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None

        sys.meta_path.insert(0, _HideEvals())
        from robota.cli.main import main

        code = main(sys.argv[1:])
        assert "robota.evals" not in sys.modules
        raise SystemExit(code)
        """
    )
