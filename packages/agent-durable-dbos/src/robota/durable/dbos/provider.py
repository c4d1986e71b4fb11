"""A provider whose every model call is a DBOS step (seed 000, "Execution Journal and
Continuation": a model call is recorded before the loop uses it; on recovery a recorded response
answers again without a provider call, and a call with no recorded response is issued again).

DBOS checkpoints a step's output when the step returns; recovery replays the workflow and a
completed step returns its checkpoint instead of running. A call interrupted mid-stream has no
checkpoint and runs again, which is the journal rule for an unrecorded response.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from robota.core.capabilities import ModelCapabilities, ModelInfo
from robota.core.errors import MalformedResponseError
from robota.core.journal import decode_response, encode_response
from robota.core.messages import JsonValue
from robota.core.provider import ModelRequest, Provider, ResponseCompleted, StreamEvent

from dbos import DBOS

__all__ = ["MODEL_CALL_STEP", "DBOSProvider"]

MODEL_CALL_STEP = "robota.model_call"
"""DBOS step name of one model call."""


class DBOSProvider(Provider):
    """Wraps a provider so each call runs as the DBOS step :data:`MODEL_CALL_STEP`.

    The inner stream is consumed inside the step, so a consumer receives only the final
    :class:`~robota.core.provider.ResponseCompleted` (no text deltas): a delta seen before a
    crash could not be taken back. Outside a DBOS workflow the call runs as a plain call.

    Args:
        inner: The real provider.

    Raises (from ``stream``):
        ProviderError: what the inner provider raised (DBOS checkpoints it too, so recovery
            fails the same way).
        MalformedResponseError: the inner stream ended without a final response.
    """

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name = inner.name
        self.default_model = inner.default_model

    def model_info(self, model: str) -> ModelInfo | None:
        return self.inner.model_info(model)

    def capabilities(self, model: str) -> ModelCapabilities:
        return self.inner.capabilities(model)

    async def count_tokens(self, request: ModelRequest) -> int | None:
        return await self.inner.count_tokens(request)

    async def _call(self, request: ModelRequest) -> JsonValue:
        async for event in self.inner.stream(request):
            if isinstance(event, ResponseCompleted):
                return encode_response(event.response)
        raise MalformedResponseError(
            "provider stream ended without a final response", provider=self.inner.name
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        recorded: Any = await DBOS.run_step_async({"name": MODEL_CALL_STEP}, self._call, request)
        yield ResponseCompleted(response=decode_response(recorded))
