"""A real llama.cpp server for integration tests: locate what ``.ci/setup-llamacpp`` prepared,
start ``llama-server`` on 127.0.0.1 with a free port, wait for ``/health``, stop it.

Developers without the prepared server set ``ROBOTA_SKIP_LLAMA=1`` to skip these tests; without
it a missing server fails them.
"""

from ._locate import (
    MODEL_FILE,
    SKIP_VARIABLE,
    LlamaFiles,
    LlamaUnavailableError,
    default_llama_dir,
    locate,
    skip_requested,
)
from ._server import MODEL_ALIAS, LlamaServer, LlamaStartError, free_port, start_server
from ._shared import shared_server

__all__ = [
    "MODEL_ALIAS",
    "MODEL_FILE",
    "SKIP_VARIABLE",
    "LlamaFiles",
    "LlamaServer",
    "LlamaStartError",
    "LlamaUnavailableError",
    "default_llama_dir",
    "free_port",
    "locate",
    "shared_server",
    "skip_requested",
    "start_server",
]
