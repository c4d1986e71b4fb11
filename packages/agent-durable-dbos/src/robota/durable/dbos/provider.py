"""A provider whose every model call is a DBOS step (seed 000, "Execution Journal and
Continuation": a model call is recorded before the loop uses it; on recovery a recorded response
answers again without a provider call, and a model call the journal shows as sent without a
recorded response is refused for reconciliation rather than guessed).

DBOS checkpoints a step's output when the step returns; recovery replays the workflow and a
completed step returns its checkpoint instead of running. Each call is two steps:

1. ``robota.model_start`` records the *execution nonce* of the workflow execution that reached
   it first (fresh per execution of the workflow function); on recovery it returns the nonce the
   earlier execution recorded.
2. ``robota.model_call`` sends the request and returns the response. When it has no checkpoint
   and step 1 belongs to an earlier execution, the call was sent before a crash and its response
   was never recorded: the step raises :class:`~robota.core.journal.ReconciliationError`
   (``unrecorded_model_call``) instead of sending it again — unless the recovering process built
   the provider with ``resend_unrecorded_model_call=True``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from robota.core.errors import MalformedResponseError
from robota.core.journal import ReconciliationError, decode_response, encode_response
from robota.core.messages import JsonValue
from robota.core.provider import (
    DelegatingProvider,
    ModelRequest,
    Provider,
    ResponseCompleted,
    StreamEvent,
)

from dbos import DBOS

__all__ = ["MODEL_CALL_STEP", "MODEL_START_STEP", "DBOSProvider"]

MODEL_CALL_STEP = "robota.model_call"
"""DBOS step name of one model call."""

MODEL_START_STEP = "robota.model_start"
"""DBOS step name of the "model call sent" marker."""


class DBOSProvider(DelegatingProvider):
    """Wraps a provider so each call runs as the DBOS steps :data:`MODEL_START_STEP` and
    :data:`MODEL_CALL_STEP`.

    The inner stream is consumed inside the step, so a consumer receives only the final
    :class:`~robota.core.provider.ResponseCompleted` (no text deltas): a delta seen before a
    crash could not be taken back. Outside a DBOS workflow the call runs as a plain call.

    Args:
        inner: The real provider.
        nonce: The current workflow execution's nonce (fresh per execution); None skips the
            marker step (no refusal is possible then).
        resend_unrecorded_model_call: Send again a call an earlier execution sent without a
            recorded response (the host opted in); otherwise it is refused.

    Raises (from ``stream``):
        ProviderError: what the inner provider raised (DBOS checkpoints it too, so recovery
            fails the same way).
        MalformedResponseError: the inner stream ended without a final response.
        ReconciliationError: (``unrecorded_model_call``) see the module docstring; the workflow
            ends with it.
    """

    def __init__(
        self,
        inner: Provider,
        nonce: str | None = None,
        *,
        resend_unrecorded_model_call: bool = False,
    ) -> None:
        super().__init__(inner)
        self.nonce = nonce
        self.resend_unrecorded_model_call = resend_unrecorded_model_call
        self._calls = 0

    async def aclose(self) -> None:
        """Nothing to release: the inner provider is not owned by this wrapper."""

    async def _start(self) -> JsonValue:
        return {"nonce": self.nonce}

    async def _call(self, started_earlier: bool, step: int, request: ModelRequest) -> JsonValue:
        if started_earlier and not self.resend_unrecorded_model_call:
            run_id = DBOS.workflow_id or "?"
            raise ReconciliationError(
                f"workflow {run_id}: model call {step} was sent by an earlier execution and "
                "its response was never recorded (it may have been billed and may have asked "
                "for tools); recover with DBOSAgent(..., resend_unrecorded_model_call=True) to "
                "send it again",
                reason="unrecorded_model_call",
                run_id=run_id,
                steps=(step,),
            )
        async for event in self.inner.stream(request):
            if isinstance(event, ResponseCompleted):
                return encode_response(event.response)
        raise MalformedResponseError(
            "provider stream ended without a final response", provider=self.inner.name
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        step = self._calls
        self._calls += 1
        started_earlier = False
        if self.nonce is not None:
            marker: Any = await DBOS.run_step_async({"name": MODEL_START_STEP}, self._start)
            started_earlier = marker["nonce"] != self.nonce
        recorded: Any = await DBOS.run_step_async(
            {"name": MODEL_CALL_STEP}, self._call, started_earlier, step, request
        )
        yield ResponseCompleted(response=decode_response(recorded))
