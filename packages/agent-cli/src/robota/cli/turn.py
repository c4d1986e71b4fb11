"""One turn of ``robota run`` or ``robota chat``: the session's answer printed as it streams,
the "waiting for the model…" line while nothing has arrived, Ctrl-C cancelling the turn, and the
failure said in one line (naming the model's URL for a connection failure or a timeout)."""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence

import anyio
from anyio.abc import TaskStatus
from robota.cli.exit_codes import ExitCode
from robota.cli.render import EventPrinter
from robota.cli.waiting import WaitingLine
from robota.core.agent import RunResult
from robota.core.errors import (
    AuthenticationError,
    ConfigurationError,
    PermissionDeniedError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    RobotaError,
    RunCancelledError,
    TruncatedResponseError,
)
from robota.core.host.errors import OwnerOnlyError, PathContainmentError
from robota.core.messages import AssistantMessage, MediaPart, TextPart
from robota.framework.failure_reason import failure_reason
from robota.framework.interactive import InteractiveSession
from robota.session import SessionNotFoundError

__all__ = ["describe_failure", "exit_for", "run_turn", "say", "was_answered"]


def say(message: str) -> None:
    """Write ``robota: <message>`` as one line on standard error."""
    sys.stderr.write(f"robota: {message}\n")
    sys.stderr.flush()


def exit_for(error: BaseException) -> ExitCode:
    """The exit status for a failure: 3 for what the user must fix (configuration,
    credentials, unknown session, unsafe state folder, a path outside the workspace), 130 for
    a cancellation, 7 for an answer cut off at the output token limit, 4 for any other
    provider failure, else 1."""
    if isinstance(
        error,
        (
            AuthenticationError,
            PermissionDeniedError,
            ConfigurationError,
            SessionNotFoundError,
            PathContainmentError,
            OwnerOnlyError,
        ),
    ):
        return ExitCode.CONFIGURATION
    if isinstance(error, RunCancelledError):
        return ExitCode.INTERRUPTED
    if isinstance(error, TruncatedResponseError):
        return ExitCode.TRUNCATED
    if isinstance(error, ProviderError):
        return ExitCode.PROVIDER
    return ExitCode.ERROR


def _retries(error: BaseException) -> str:
    notes = [note for note in getattr(error, "__notes__", ()) if "gave up after" in note]
    return f" ({notes[-1].removeprefix('robota: ')})" if notes else ""


def describe_failure(error: RobotaError, *, url: str | None, timeout: float | None) -> str:
    """The one line said for a failed turn.

    Args:
        error: What the turn raised.
        url: The model's base URL (named for a connection failure or a timeout).
        timeout: The ``--timeout`` in seconds (named for a client-side timeout).

    Example:
        >>> from robota.core.errors import ProviderTimeoutError
        >>> describe_failure(ProviderTimeoutError("Request timed out.", provider="llamacpp"),
        ...                  url="http://127.0.0.1:8080/v1", timeout=5.0)
        'ProviderTimeoutError: no answer from the model at http://127.0.0.1:8080/v1 within 5 s (--timeout)'
    """
    where = url or "the provider"
    if isinstance(error, ProviderConnectionError):
        return (
            f"{type(error).__name__}: cannot connect to {where}: {failure_reason(error)}"
            + _retries(error)
        )
    if isinstance(error, ProviderTimeoutError) and error.status is None:
        limit = f" within {timeout:g} s (--timeout)" if timeout is not None else ""
        return f"{type(error).__name__}: no answer from the model at {where}{limit}" + _retries(
            error
        )
    return f"{type(error).__name__}: {error}"


def was_answered(session: InteractiveSession) -> bool:
    """True when any model output (text, thinking or a tool call) is in the conversation."""
    return any(isinstance(m, AssistantMessage) and m.parts for m in session.messages)


async def run_turn(
    session: InteractiveSession,
    prompt: str | Sequence[TextPart | MediaPart],
    printer: EventPrinter,
    waiting: WaitingLine,
    *,
    url: str | None,
    call_timeout: float | None,
    own_interrupts: bool = True,
) -> ExitCode:
    """Run one turn, printing its events; return its exit status.

    Args:
        session: The session.
        prompt: The user's message: text, or its parts (``@path`` references expanded by
            :func:`robota.cli.attachments.prompt_for`).
        printer: Prints the answer and tool cards (subscribed to ``session``).
        waiting: The "waiting for the model…" line (subscribed to ``session``).
        url: The model's base URL, for the failure line.
        call_timeout: The ``--timeout`` in seconds, for the failure line (the calls
            themselves carry it in the session's model settings).
        own_interrupts: True: Ctrl-C cancels this turn (``robota run``), which then says
            ``robota: interrupted`` on standard error and returns 130; False: the caller
            handles Ctrl-C (``robota chat``).
    """
    result: RunResult | RobotaError = RunCancelledError("turn did not run")
    denied_before = printer.denied  # the chat's printer counts over every turn
    async with anyio.create_task_group() as group:
        if own_interrupts:

            async def watch(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
                with anyio.open_signal_receiver(signal.SIGINT) as signals:
                    task_status.started()
                    async for _ in signals:
                        session.cancel()

            await group.start(watch)
        group.start_soon(waiting.run)
        try:
            result = await session.submit(prompt)
        except RobotaError as exc:
            result = exc
        finally:
            group.cancel_scope.cancel()
    printer.finish()
    if own_interrupts and (
        isinstance(result, RunCancelledError)
        or (not isinstance(result, RobotaError) and result.interrupted)
    ):
        if sys.stderr.isatty():  # below the terminal's ^C
            sys.stderr.write("\n")
        say("interrupted")  # (the chat owns Ctrl-C and says its own line)
        return ExitCode.INTERRUPTED
    if isinstance(result, RobotaError):
        say(describe_failure(result, url=url, timeout=call_timeout))
        return exit_for(result)
    if result.interrupted:
        return ExitCode.INTERRUPTED
    if printer.last_finish_reason == "length":  # kept by --accept-truncated, still incomplete
        say("note: the answer was cut off at the model's output token limit")
        return ExitCode.TRUNCATED
    return ExitCode.PERMISSION_DENIED if printer.denied > denied_before else ExitCode.OK
