"""Running one hostile-project case through the real ``robota`` command and judging it.

A :class:`Case` writes the user's and the project's files into a fresh :class:`World`, runs
``robota run`` against a fresh :class:`VendorServer`, and asks its judge whether anything
crossed. A judge returns the evidence of a crossing (or, for a *control* case, of the effect
the harness must be able to see), or None.

Every case, whatever its own judge says, also fails when a user secret reached the loopback
server outside the user's own endpoint (``Case.own_prefix``).
"""

from __future__ import annotations

import secrets
import subprocess
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from trust_boundaries.vendor import ScriptedCall, VendorServer
from trust_boundaries.world import Attempt, World, make_world
from trust_boundaries.zygote import Zygote

__all__ = [
    "MARKER",
    "Case",
    "Run",
    "effect_token",
    "marker_created",
    "model_called",
    "refused",
    "run_cases",
    "shell",
    "user_profile",
]

MARKER = "MARKER"
"""The file a scripted ``touch`` would create in the project."""


def shell(command: str) -> ScriptedCall:
    """A scripted ``shell`` call."""
    return ScriptedCall(name="shell", arguments={"command": command})


def user_profile(url: str) -> dict[str, object]:
    """User settings choosing the user's own keyless OpenAI-compatible endpoint at ``url``."""
    return {
        "providers": {"mine": {"type": "openai-compatible", "base_url": url + "/v1", "model": "m"}},
        "provider": "mine",
    }


def effect_token() -> tuple[str, str]:
    """``(printed, source)``: a random token and a shell spelling of it that does not contain
    it (``echo PWN""ED-x`` prints ``PWNED-x``), so the token in a request proves code ran."""
    tail = secrets.token_hex(6)
    return f"PWNED-{tail}", f'PWN""ED-{tail}'


@dataclass(kw_only=True)
class Run:
    """What one case produced.

    Attributes:
        world: The user, the project and the environment.
        server: The loopback vendor (with every request it saw).
        proc: The finished ``robota`` process.
    """

    world: World
    server: VendorServer
    proc: subprocess.CompletedProcess[str]

    def tail(self) -> str:
        """Exit status and the end of stderr, for evidence."""
        err = " | ".join(self.proc.stderr.strip().splitlines()[-3:])
        return f"exit={self.proc.returncode} stderr={err[-300:]!r}"


Setup = Callable[[World, str], None]
Judge = Callable[[Run], str | None]


@dataclass(frozen=True, kw_only=True)
class Case:
    """One attempt (or control) through the CLI.

    Attributes:
        row: Brief row.
        name: What the project author tried (the exact setup, for the report).
        setup: Writes files given the world and the vendor URL.
        judge: Evidence of a crossing, or None.
        script: The model's tool calls.
        args: Options after ``robota run --no-title``.
        cwd: Working directory relative to the project ('' = the project).
        env: Extra environment (values may contain ``{url}`` and ``{project}``).
        own_prefix: Request targets that are the user's own endpoint (may carry the user's
            key); every other request must carry no secret.
        control: A harness check: the judge must find the effect.
        git: Make the project a Git worktree.
    """

    row: str
    name: str
    setup: Setup
    judge: Judge
    script: Sequence[ScriptedCall] = ()
    args: Sequence[str] = ()
    cwd: str = ""
    env: dict[str, str] = field(default_factory=dict[str, str])
    own_prefix: str | None = None
    control: bool = False
    git: bool = True


def _secret_leak(run: Run, own_prefix: str | None) -> str | None:
    found: list[str] = []
    for seen in run.server.seen:
        if own_prefix is not None and seen.target.startswith(own_prefix):
            continue
        names = run.world.leaked(seen.raw())
        if names:
            found.append(f"{seen.method} {seen.target} carried {', '.join(names)}")
    return "; ".join(found) or None


def run_case(case: Case, base: Path, zygote: Zygote | None) -> tuple[Case, str | None]:
    """Run ``case`` in the new folder ``base``; the crossing evidence (None: held)."""
    with VendorServer(script=case.script) as server:
        world = make_world(base, proxy=server.url, git=case.git, zygote=zygote)
        names = {
            "url": server.url,
            "project": str(world.project),
            "gateway": world.secrets["MY_GATEWAY_KEY"],
        }
        for key, value in case.env.items():
            world.env[key] = value.format(**names)
        case.setup(world, server.url)
        cwd = world.project / case.cwd if case.cwd else world.project
        args = [a.format(**names) for a in case.args]
        proc = world.robota("run", "--no-title", *args, "please do the task", cwd=cwd)
        run = Run(world=world, server=server, proc=proc)
        evidence = [e for e in (_secret_leak(run, case.own_prefix), case.judge(run)) if e]
        if case.control:
            judged = case.judge(run)
            return case, None if judged else f"control saw no effect: {run.tail()}"
        return case, "; ".join(evidence) or None


def run_cases(cases: Sequence[Case], base: Path, *, workers: int = 6) -> list[Attempt]:
    """Run every case (in parallel) and return the attempts, controls excluded.

    Raises:
        AssertionError: a control case saw no effect (the harness could not see a crossing).
    """
    with Zygote() as zygote, ThreadPoolExecutor(max_workers=workers) as pool:

        def one(item: tuple[int, Case]) -> tuple[Case, str | None]:
            return run_case(item[1], base / f"c{item[0]}", zygote)

        results = list(pool.map(one, enumerate(cases)))
    broken = [f"{c.row} / {c.name}: {e}" for c, e in results if c.control and e]
    assert not broken, "controls failed:\n" + "\n".join(broken)
    return [
        Attempt(row=c.row, name=c.name, crossed=e is not None, detail=e or "held")
        for c, e in results
        if not c.control
    ]


# -- judges --------------------------------------------------------------------------------


def marker_created(run: Run) -> str | None:
    """The scripted ``touch MARKER`` ran."""
    if (run.world.project / MARKER).exists():
        return f"{MARKER} was created ({run.tail()})"
    return None


def model_called(run: Run) -> str | None:
    """The model endpoint was called at all."""
    if run.server.model_requests:
        return f"{len(run.server.model_requests)} model request(s) ({run.tail()})"
    return None


def refused(run: Run, *needles: str) -> str | None:
    """The run was not refused with the configuration exit status (3) naming ``needles``."""
    if run.proc.returncode != 3:
        return f"not refused: {run.tail()}"
    missing = [n for n in needles if n not in run.proc.stderr]
    if missing:
        return f"refused without naming {missing}: {run.tail()}"
    return None
