"""One ``llama-server`` shared by every llama.cpp test module of a pytest session.

Each test module declares its own session-scoped fixture that enters :func:`shared_server`; the
first entry starts the server and the last exit stops it, so both modules talk to one process
and it is gone when the session ends. The reference count lives in this module (imported once
per process), the only state it keeps.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from ._locate import SKIP_VARIABLE, LlamaUnavailableError, locate, skip_requested
from ._server import LlamaServer, LlamaStartError, start_server

__all__ = ["shared_server"]


@dataclass(kw_only=True, slots=True)
class _Holder:
    server: LlamaServer | None = None
    users: int = 0


_HOLDER = _Holder()


@contextmanager
def shared_server(log_dir: Path) -> Generator[LlamaServer]:
    """Enter the shared server, starting it on first use; stop it when the last user leaves.

    ``ROBOTA_SKIP_LLAMA=1`` skips the calling tests. Otherwise a missing binary or model, or a
    server that does not start, FAILS them (``pytest.fail``) with the reason and the command
    that prepares the files: CI must prove the real server works, not skip silently.
    """
    if skip_requested():
        pytest.skip(f"{SKIP_VARIABLE}=1: llama.cpp server tests skipped")
    if _HOLDER.server is None:
        problem: str | None = None
        try:
            _HOLDER.server = start_server(
                locate(), log_dir=log_dir, temperature=0.0, seed=1
            )  # greedy: the same answer every run
        except (LlamaUnavailableError, LlamaStartError) as exc:
            problem = str(exc)
        if problem is not None:
            pytest.fail(problem, pytrace=False)
    server = _HOLDER.server
    assert server is not None
    _HOLDER.users += 1
    try:
        yield server
    finally:
        _HOLDER.users -= 1
        if _HOLDER.users == 0:
            server.stop()
            _HOLDER.server = None
