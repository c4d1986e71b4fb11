"""The error taxonomy of Robota (seed 000, "Error Taxonomy", "Abort Classification").

Every error Robota raises derives from :class:`RobotaError`, which carries a machine-readable
``code``, a ``category`` (user, provider, system) and a ``recoverable`` flag, so a caller can
branch on the failure kind without parsing message text. Provider failures also keep the
vendor's HTTP status, error type, request id and ``Retry-After`` delay.

Classification is by type, never by message text: ``isinstance(err, RunCancelledError)`` is the
one answer to "was this an abort?".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, ClassVar

__all__ = [
    "AgentClosedError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "ContentFilterError",
    "ContextWindowExceededError",
    "ErrorCategory",
    "IncompleteToolCallError",
    "InternalServerError",
    "JournalError",
    "MalformedResponseError",
    "MissingExtraError",
    "ModelRetry",
    "NotFoundError",
    "OutputUnavailableError",
    "OverloadedError",
    "PermissionDeniedError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderTimeoutError",
    "QuotaExhaustedError",
    "RateLimitError",
    "RepeatedToolInputError",
    "RobotaError",
    "RunCancelledError",
    "StructuredOutputError",
    "ToolArgumentsError",
    "ToolChoiceViolationError",
    "TruncatedResponseError",
    "UnsupportedCapabilityError",
    "UnsupportedSettingError",
    "is_abort",
]


class ErrorCategory(StrEnum):
    """Who has to act on a failure.

    ``user``: the caller's input or configuration is wrong. ``provider``: the model vendor (or the
    network to it) failed. ``system``: Robota itself or the host environment failed.
    """

    USER = "user"
    PROVIDER = "provider"
    SYSTEM = "system"


class RobotaError(Exception):
    """Base of every Robota error.

    Attributes:
        code: Stable machine-readable identifier, e.g. ``"rate_limited"``.
        category: :class:`ErrorCategory` of the failure.
        recoverable: True when retrying (possibly later, or after a fix the model can make)
            may succeed.

    Subclasses set ``code``, ``category`` and ``recoverable`` as class attributes; a call site
    may override any of them per instance through keyword arguments.

    Every Robota error pickles (for ``multiprocessing``, DBOS workflow results and the like)
    with its type, message and attributes, whatever its constructor's keyword-only arguments:
    unpickling restores the attributes without calling ``__init__``.
    """

    code: ClassVar[str] = "robota_error"
    default_category: ClassVar[ErrorCategory] = ErrorCategory.SYSTEM
    default_recoverable: ClassVar[bool] = False

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        category: ErrorCategory | None = None,
        recoverable: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.error_code: str = code or type(self).code
        self.category: ErrorCategory = category or type(self).default_category
        self.recoverable: bool = (
            type(self).default_recoverable if recoverable is None else recoverable
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.error_code!r}, message={self.message!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as ``(_restore_error, (type, args), attributes)``: rebuilt without calling
        ``__init__`` (whose keyword-only arguments ``args`` does not hold), then every
        attribute is set back, including those an ``ImportError`` or ``OSError`` base keeps
        outside ``__dict__`` (``name``, ``errno``...)."""
        state: dict[str, Any] = dict(vars(self))
        for base, names in _BUILTIN_ATTRIBUTES:
            if isinstance(self, base):
                state.update((name, getattr(self, name)) for name in names)
        return (_restore_error, (type(self), self.args), state)


_BUILTIN_ATTRIBUTES: tuple[tuple[type[BaseException], tuple[str, ...]], ...] = (
    (ImportError, ("name", "path")),
    (OSError, ("errno", "strerror", "filename", "filename2")),
)
"""Attributes built-in exception bases keep outside ``__dict__`` (restored on unpickling)."""


def _restore_error(cls: type[RobotaError], args: tuple[Any, ...]) -> RobotaError:
    """An instance of ``cls`` holding ``args``, without an ``__init__`` call (see
    :meth:`RobotaError.__reduce__`; unpickling then sets its attributes)."""
    error = cls.__new__(cls, *args)
    error.args = args  # an OSError base sets its args in __init__, not in __new__
    return error


# --- user / configuration -------------------------------------------------------------------


class ConfigurationError(RobotaError):
    """The host's configuration cannot work (missing credentials, bad profile, bad option)."""

    code = "configuration"
    default_category = ErrorCategory.USER


class UnsupportedSettingError(ConfigurationError):
    """A model setting the model's profile says it does not support; raised before any request.

    Attributes:
        setting: Name of the :class:`~robota.core.settings.ModelSettings` field.
        model: The model the setting was resolved for.
    """

    code = "unsupported_setting"

    def __init__(self, message: str, *, setting: str, model: str) -> None:
        super().__init__(message)
        self.setting = setting
        self.model = model


class MissingExtraError(ConfigurationError, ImportError):
    """An optional part of a distribution was used without its extra installed, e.g.
    ``import robota.tools.mcp`` without ``mcp``.

    Also an :class:`ImportError` (``name`` is the missing module), so ``except ImportError``
    around an optional import keeps working. The message names the command that fixes it:
    ``pip install "robota-agent-tools[mcp]"``.

    Attributes:
        module: The missing (or unusable) third-party module, e.g. ``"mcp"``.
        distribution: The Robota distribution that declares the extra, e.g.
            ``"robota-agent-tools"``.
        extra: The extra's name, e.g. ``"mcp"``.
    """

    code = "missing_extra"

    def __init__(self, message: str, *, module: str, distribution: str, extra: str) -> None:
        super().__init__(message)
        self.name = module
        self.module = module
        self.distribution = distribution
        self.extra = extra


class UnsupportedCapabilityError(ConfigurationError):
    """A requested capability (hosted tool, media kind, structured output) the model or provider
    instance states it does not support. Raised before any network I/O."""

    code = "unsupported_capability"


class OutputUnavailableError(RobotaError):
    """``RunResult.output`` was read on a run that ended without a validated structured output
    (it was interrupted before one)."""

    code = "output_unavailable"
    default_category = ErrorCategory.USER


class AgentClosedError(RobotaError):
    """A run was requested on an agent whose disposal has started (seed 000, "Disposal
    Contract")."""

    code = "agent_closed"
    default_category = ErrorCategory.USER


class ToolArgumentsError(RobotaError):
    """A tool call's arguments failed validation against the tool's schema.

    Inside a run this never escapes: it becomes an error tool result the model can repair.

    Attributes:
        tool_name: The tool the arguments were for.
        issues: Human-readable validation issues, each naming the JSON path.
    """

    code = "invalid_tool_arguments"
    default_category = ErrorCategory.USER
    default_recoverable = True

    def __init__(self, message: str, *, tool_name: str, issues: Sequence[str]) -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self.issues = tuple(issues)


# --- run control ----------------------------------------------------------------------------


class RunCancelledError(RobotaError):
    """The caller asked the run to stop (the Python form of the seed's ``AbortError``).

    Raised when a run's cancellation was already requested when its FIFO turn arrived; a run
    cancelled while in flight instead completes with an ``interrupted`` result.

    Attributes:
        reason: The caller's reason, if any.
    """

    code = "cancelled"
    default_category = ErrorCategory.USER
    default_recoverable = True

    def __init__(self, message: str = "run cancelled", *, reason: object = None) -> None:
        super().__init__(message)
        self.reason = reason


def is_abort(error: BaseException) -> bool:
    """Return True when ``error`` means "the caller asked to stop" (seed 000, "Abort
    Classification"). Decided by type only, never by message text."""
    return isinstance(error, RunCancelledError)


class RepeatedToolInputError(RobotaError):
    """A tool was invoked with byte-identical input more times than the configured limit within
    one run: the agent failed to make progress. Distinct from an abort (seed 000, "Identical-tool-
    input guard").

    Attributes:
        tool_name: The repeated tool.
        count: How many identical calls were seen.
    """

    code = "repeated_tool_input"
    default_category = ErrorCategory.SYSTEM
    default_recoverable = True

    def __init__(self, message: str, *, tool_name: str, count: int) -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self.count = count


class ToolChoiceViolationError(RobotaError):
    """The provider returned a tool call although the run asked for ``tool_choice="none"``."""

    code = "tool_choice_violation"
    default_category = ErrorCategory.PROVIDER


class ContextWindowExceededError(RobotaError):
    """The prompt does not fit the model's context window.

    Raised by the pre-send guard (``provider_reported=False``) or classified from a provider's
    error (``provider_reported=True``; then ``provider_error`` holds the vendor details).

    Attributes:
        estimated_tokens: Robota's estimate of the prompt size, if known.
        context_window: The model's context window in tokens, if known.
    """

    code = "context_window_exceeded"
    default_category = ErrorCategory.USER

    def __init__(
        self,
        message: str,
        *,
        estimated_tokens: int | None = None,
        context_window: int | None = None,
        provider_error: ProviderError | None = None,
    ) -> None:
        super().__init__(message)
        self.estimated_tokens = estimated_tokens
        self.context_window = context_window
        self.provider_error = provider_error
        self.provider_reported = provider_error is not None


class StructuredOutputError(RobotaError):
    """The model's final answer did not validate against the requested output type after the
    retry budget was spent (seed 000, "Structured Output Contract").

    Attributes:
        issues: Validation issues of the last attempt.
        attempts: Number of attempts made (first try plus retries).
    """

    code = "structured_output_invalid"
    default_category = ErrorCategory.PROVIDER

    def __init__(self, message: str, *, issues: Sequence[str], attempts: int) -> None:
        super().__init__(message)
        self.issues = tuple(issues)
        self.attempts = attempts


class ModelRetry(Exception):
    """Raised by a tool body, an output function or an output validator to send ``message``
    back to the model and let it try again (a model-safe retry, bounded by the tool's
    ``max_retries`` or the run's ``output_retries``). It is not a failure of the run: any other
    exception from those callables is an application failure.

    Attributes:
        message: What the model is told (e.g. ``"the city must be in Norway"``); any other
            object is kept as ``str(message)``, whole (never truncated).

    Example:
        >>> def check(city: str) -> str:
        ...     if city != "Oslo":
        ...         raise ModelRetry("answer with the capital")
        ...     return city
    """

    def __init__(self, message: str) -> None:
        text = str(message)  # a non-str message is kept as its text: issues are always str
        super().__init__(text)
        self.message: str = text


class JournalError(RobotaError):
    """A write to the execution journal failed; the run fails rather than risking a repeated
    effect (seed 000, "Execution Journal and Continuation")."""

    code = "journal_write_failed"


# --- provider -------------------------------------------------------------------------------


class ProviderError(RobotaError):
    """A model provider failed. Keeps the vendor's facts so a caller (or a fallback chain) can
    decide from them, not from the text.

    Attributes:
        provider: Provider name, e.g. ``"anthropic"``.
        status: HTTP status code, if the failure had one.
        vendor_type: The vendor's error type string (e.g. ``"overloaded_error"``).
        request_id: The vendor's request id header, if any.
        retry_after: Seconds the vendor asked us to wait (``Retry-After``), if any.
        body: The decoded error body (JSON) when available, for diagnostics.
    """

    code = "provider_error"
    default_category = ErrorCategory.PROVIDER

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        status: int | None = None,
        vendor_type: str | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
        body: Mapping[str, Any] | None = None,
        recoverable: bool | None = None,
    ) -> None:
        super().__init__(message, recoverable=recoverable)
        self.provider = provider
        self.status = status
        self.vendor_type = vendor_type
        self.request_id = request_id
        self.retry_after = retry_after
        self.body = dict(body) if body is not None else None


class BadRequestError(ProviderError):
    """HTTP 400/422: the request was malformed for this vendor."""

    code = "bad_request"


class AuthenticationError(ProviderError):
    """HTTP 401: missing or invalid credentials."""

    code = "authentication"
    default_category = ErrorCategory.USER


class PermissionDeniedError(ProviderError):
    """HTTP 403: the credentials are valid but not allowed to do this."""

    code = "permission_denied"
    default_category = ErrorCategory.USER


class NotFoundError(ProviderError):
    """HTTP 404: unknown model or endpoint."""

    code = "not_found"
    default_category = ErrorCategory.USER


class RateLimitError(ProviderError):
    """HTTP 429 (rate limit): retry later, honouring ``retry_after``."""

    code = "rate_limited"
    default_recoverable = True


class QuotaExhaustedError(ProviderError):
    """The account's quota or credit is spent (429 ``insufficient_quota`` and alikes): retrying
    does not help."""

    code = "quota_exhausted"
    default_category = ErrorCategory.USER


class OverloadedError(ProviderError):
    """HTTP 529 / 503 overloaded: the vendor is temporarily out of capacity."""

    code = "overloaded"
    default_recoverable = True


class InternalServerError(ProviderError):
    """HTTP 5xx from the vendor."""

    code = "server_error"
    default_recoverable = True


class ProviderTimeoutError(ProviderError):
    """HTTP 408 or a client-side timeout."""

    code = "timeout"
    default_recoverable = True


class ProviderConnectionError(ProviderError):
    """The connection to the vendor failed before a response."""

    code = "connection"
    default_recoverable = True


class ContentFilterError(ProviderError):
    """The vendor refused or stopped the answer for content policy reasons."""

    code = "content_filter"


class MalformedResponseError(ProviderError):
    """The vendor's response could not be decoded into neutral events, or it did not complete
    by the vendor's own rules (a stream cut before its final event, an empty or HTML body where
    JSON was due, an envelope missing a required field).

    Recoverable: a cut stream or a gateway's error page is usually transient, so a retry policy
    may retry it (never after the first streamed event reached the caller).

    Attributes:
        missing: What the response lacked, e.g. ``"[DONE] after the last chunk"``,
            ``"message_stop event"``, ``"JSON object body"``; None when not a missing part.
        api: The API surface, e.g. ``"chat.completions"``, ``"messages"``, when known.
    """

    code = "malformed_response"
    default_recoverable = True

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        missing: str | None = None,
        api: str | None = None,
        status: int | None = None,
        vendor_type: str | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
        body: Mapping[str, Any] | None = None,
        recoverable: bool | None = None,
    ) -> None:
        super().__init__(
            message,
            provider=provider,
            status=status,
            vendor_type=vendor_type,
            request_id=request_id,
            retry_after=retry_after,
            body=body,
            recoverable=recoverable,
        )
        self.missing = missing
        self.api = api


class TruncatedResponseError(ProviderError):
    """The answer stopped at the max-tokens limit (finish category ``length``). A run raises it
    unless the caller opted into accepting a truncated answer."""

    code = "truncated"
    default_recoverable = True


class IncompleteToolCallError(ProviderError):
    """A tool call's arguments were cut off (stream ended or max tokens) and cannot be parsed."""

    code = "incomplete_tool_call"
    default_recoverable = True
