"""A private PostgreSQL cluster for the benchmark: ``initdb`` + ``pg_ctl`` on 127.0.0.1 at a free
port, in a temporary folder, stopped and removed on exit (the same recipe as the
``postgres`` fixture of ``tests-integration/test_dbos_kill.py``).

Debian's ``postgresql`` package provides the binaries (``tests-integration/REQUIREMENTS-postgres.sh``
installs it). ``initdb`` refuses to run as root, so as root the cluster belongs to the
``postgres`` user and every command runs through ``runuser -u postgres``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Generator
from pathlib import Path

__all__ = ["pg_bin", "postgres_available", "private_postgres"]


def pg_bin(name: str) -> str | None:
    """Path of PostgreSQL's ``name`` binary (newest Debian version first, then ``PATH``), or
    None when it is not installed."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def postgres_available() -> bool:
    """True when ``initdb`` and ``pg_ctl`` exist (and ``runuser`` when running as root)."""
    needed = [pg_bin("initdb"), pg_bin("pg_ctl")]
    if os.geteuid() == 0:
        needed.append(shutil.which("runuser"))
    return all(needed)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def private_postgres(*, max_connections: int = 100) -> Generator[str]:
    """Start a throwaway cluster; yields ``postgresql://postgres@127.0.0.1:<port>`` (trust
    authentication, so append ``/<database>``; DBOS creates a missing database itself).

    Args:
        max_connections: The server's ``max_connections`` setting.

    Raises:
        RuntimeError: PostgreSQL is not installed (see :func:`postgres_available`).
        subprocess.CalledProcessError: ``initdb`` or ``pg_ctl start`` failed.
    """
    initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
    if initdb is None or pg_ctl is None or not postgres_available():
        raise RuntimeError(
            "PostgreSQL is not installed (tests-integration/REQUIREMENTS-postgres.sh)"
        )
    root = Path(tempfile.mkdtemp(prefix="robota-bench-pg-"))
    data = root / "data"
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    try:
        subprocess.run(
            [*as_user, initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
            check=True,
            capture_output=True,
        )
        options = (
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1 "
            f"-c max_connections={max_connections}"
        )
        log = str(root / "server.log")
        subprocess.run(
            [*as_user, pg_ctl, "-D", str(data), "-l", log, "-w", "-o", options, "start"],
            check=True,
            capture_output=True,
        )
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(
            [*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(root, ignore_errors=True)
