"""Record the HTTP traffic of a live run into a cassette file, with vcrpy as the recorder
(issue #19: "record once against the real API and replay the evals in CI offline"; seed 002,
"Cassettes").

vcrpy (the ``record`` extra, 8.2 or newer) patches the HTTP libraries it knows for the duration
of the block -- the ``httpx`` and ``httpx2`` transports every Robota provider sends through, and
``requests``, ``urllib3``, ``aiohttp`` and others: every request reaches the real server
unchanged, and a filtered copy of the request and of the full response is appended to the
cassette. A streamed
response (Server-Sent Events) is read to its end by the recorder before the client sees it, then
handed on byte for byte, so the cassette holds exactly the bytes the provider's stream parser
read. The file is written when the block ends without an exception (atomically: a failed or
interrupted run leaves the previous file, or none).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import math
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self, get_args

from robota.core.extras import raise_missing_extra, require_extra
from robota.evals.recording._encoding import decoded_body
from robota.evals.recording._filters import (
    SAFE_REQUEST_HEADERS,
    CassetteFilters,
    redact,
    request_secrets,
)
from robota.evals.recording._format import dump, from_document, load, to_document

__all__ = ["CassetteRecording", "RecordMode", "record_cassette"]

RecordMode = Literal["once", "overwrite", "replay"]
"""``once``: record when the file does not exist, else replay it strictly (a request it does not
hold fails); ``overwrite``: always record, replacing the file; ``replay``: never record (the file
must exist)."""

_DISTRIBUTION = "robota-agent-evals"
_EXTRA = "record"
_VCR_FLOOR = (8, 2)
"""vcrpy 8.2 patches the ``httpx``/``httpx2`` transports (earlier releases patch the client and
know no ``httpx2``, which Anthropic's SDK sends through)."""
_MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "robota_body")


def _release(version: str) -> tuple[int, ...]:
    numbers: list[int] = []
    for piece in version.split(".")[:2]:
        digits = "".join(c for c in piece if c.isdigit())
        numbers.append(int(digits or 0))
    return tuple(numbers)


@dataclass(frozen=True, slots=True)
class _Vcrpy:
    """The parts of vcrpy a recording uses."""

    VCR: Any
    Request: Any
    CassetteNotFoundError: Any
    CannotOverwriteExistingCassetteException: Any
    serialize: Any
    deserialize: Any


def _vcr() -> _Vcrpy:
    """vcrpy, imported on first use.

    Raises:
        MissingExtraError: vcrpy is not installed, or older than 8.2.
    """
    require_extra("vcr", distribution=_DISTRIBUTION, extra=_EXTRA)
    try:
        version = importlib.metadata.version("vcrpy")
    except importlib.metadata.PackageNotFoundError:
        version = ""
    if version and _release(version) < _VCR_FLOOR:
        raise_missing_extra(
            ImportError(f"vcrpy {version} is older than 8.2", name="vcr"),
            module="vcr",
            distribution=_DISTRIBUTION,
            extra=_EXTRA,
        )
    try:
        config = importlib.import_module("vcr.config")
        request = importlib.import_module("vcr.request")
        filesystem = importlib.import_module("vcr.persisters.filesystem")
        serialize = importlib.import_module("vcr.serialize")
        errors = importlib.import_module("vcr.errors")
    except ImportError as error:
        raise_missing_extra(error, module="vcr", distribution=_DISTRIBUTION, extra=_EXTRA)
    return _Vcrpy(
        VCR=config.VCR,
        Request=request.Request,
        CassetteNotFoundError=filesystem.CassetteNotFoundError,
        CannotOverwriteExistingCassetteException=errors.CannotOverwriteExistingCassetteException,
        serialize=serialize.serialize,
        deserialize=serialize.deserialize,
    )


def _as_bytes(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, bytes | bytearray):
        return bytes(body)
    read = getattr(body, "read", None)
    if callable(read):
        data = read()
        return data if isinstance(data, bytes) else str(data).encode("utf-8")
    return b"".join(bytes(chunk) for chunk in body)


def _header_pairs(headers: Any) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for name, value in dict(headers or {}).items():
        values: list[Any] = list(value) if isinstance(value, list | tuple) else [value]
        pairs.extend((str(name), str(item)) for item in values)
    return pairs


def _body_value(body: Any) -> tuple[str, Any]:
    data = _as_bytes(body)
    try:
        return ("json", json.loads(data))
    except (ValueError, RecursionError):
        return ("bytes", data)


def _same_json(left: Any, right: Any) -> bool:
    """Equal JSON values of equal types: ``true`` is not ``1``, ``1`` is not ``1.0`` (Python's
    ``True == 1`` would say they are); a ``NaN`` equals a ``NaN``."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        mine: dict[str, Any] = left
        theirs: dict[str, Any] = right
        return mine.keys() == theirs.keys() and all(
            _same_json(value, theirs[key]) for key, value in mine.items()
        )
    if isinstance(left, list):
        first: list[Any] = left
        second: list[Any] = right
        return len(first) == len(second) and all(
            _same_json(a, b) for a, b in zip(first, second, strict=True)
        )
    if isinstance(left, float) and math.isnan(left):
        return math.isnan(right)
    return bool(left == right)


def _same_body(recorded: Any, live: Any) -> None:
    """vcrpy matcher: equal JSON documents (types compared too: ``true`` is not ``1``), or
    equal bytes (an absent body counts as empty).

    Raises:
        AssertionError: the bodies differ (vcrpy's way of saying "no match").
    """
    old_kind, old_value = _body_value(recorded.body)
    new_kind, new_value = _body_value(live.body)
    if old_kind != new_kind:
        raise AssertionError("request bodies differ")
    try:
        same = _same_json(old_value, new_value)
    except RecursionError:
        same = _as_bytes(recorded.body) == _as_bytes(live.body)
    if not same:
        raise AssertionError("request bodies differ")


class _Session:
    """One recording's filters, the credentials seen so far, and vcrpy's hooks."""

    def __init__(self, filters: CassetteFilters, vcr: _Vcrpy) -> None:
        self.filters = filters
        self.secrets: set[str] = set()
        self.recorded = 0
        self._vcr = vcr

    def request(self, request: Any) -> Any:
        """``before_record_request``: the filtered copy of a request (also applied to each live
        request before strict replay compares it with the recorded ones)."""
        pairs = _header_pairs(request.headers)
        content_type = next((v for n, v in pairs if n.lower() == "content-type"), "")
        raw = _as_bytes(request.body)
        self.secrets |= request_secrets(pairs, str(request.uri), raw, content_type)
        body = self.filters.body(raw, content_type=content_type)
        headers = {name: values[0] for name, values in self.filters.request_headers(pairs).items()}
        return self._vcr.Request(
            request.method,
            redact(self.filters.uri(str(request.uri)), self.secrets),
            redact(body, self.secrets) or None,
            redact(headers, self.secrets),
        )

    def response(self, response: dict[str, Any]) -> dict[str, Any]:
        """``before_record_response``: the filtered copy of a response."""
        raw = response.get("body")
        body = _as_bytes(raw.get("string") if isinstance(raw, dict) else raw)
        received: dict[str, list[str]] = {}
        for name, value in _header_pairs(response.get("headers")):
            received.setdefault(name, []).append(value)
        body, received = decoded_body(body, received)
        pairs = [(name, value) for name, values in received.items() for value in values]
        content_type = next((v for n, v in pairs if n.lower() == "content-type"), "")
        self.recorded += 1
        return {
            "status": dict(response["status"]),
            "headers": redact(self.filters.response_headers(pairs), self.secrets),
            "body": {
                "string": redact(self.filters.body(body, content_type=content_type), self.secrets)
            },
        }

    def serialize(self, data: dict[str, Any]) -> str:
        """vcrpy serializer: the file's text, every credential seen in this session redacted."""
        return dump(redact(to_document(data), self.secrets))

    def deserialize(self, text: str) -> dict[str, Any]:
        """vcrpy serializer: a file's text in vcrpy's shape."""
        shaped = from_document(load(text))
        for interaction in shaped["interactions"]:
            request = interaction["request"]
            interaction["request"] = {
                k: request.get(k) for k in ("method", "uri", "body", "headers")
            }
            interaction["response"].setdefault("status", {}).setdefault("message", "")
        return shaped


_MATCHER_WORDS = {"robota_body": "body", "_same_body": "body"}
"""vcrpy names a failed matcher by its registered name or its function's name."""


def _mismatch_message(path: Path, request: Any, error: BaseException) -> str:
    """The message of a live request the cassette cannot answer, in this API's terms."""
    what = f"{getattr(request, 'method', '?')} {getattr(request, 'uri', '?')}"
    reason = getattr(error, "reason", "")
    similar: Any = getattr(error, "similar_requests", None) or []
    cassette: Any = getattr(error, "cassette", None)
    if not reason and not similar and cassette is not None:
        # vcrpy before 9 carries neither: ask its cassette for the closest recorded requests
        try:
            similar = cassette.find_requests_with_most_matches(request) or []
        except Exception:  # a vcrpy without it: the message stays general
            similar = []
        if similar and not similar[0][2]:  # every matcher agreed: it was served already
            reason = "already_played"
    if reason == "already_played":
        why = "every recorded interaction matching it was already served (each is served once)"
    else:
        try:
            differing: list[str] = [_MATCHER_WORDS.get(str(n), str(n)) for n, _ in similar[0][2]]
        except (IndexError, TypeError, ValueError):
            differing = []
        why = "no recorded interaction matches it" + (
            f" (the closest differs in {', '.join(dict.fromkeys(differing))})" if differing else ""
        )
    return (
        f"{path}: the cassette has no answer for {what}: {why}. Replay is strict: a request "
        "must equal a recorded one in method, URL and body (JSON bodies compared as documents, "
        "types included: true is not 1). If the run changed on purpose (another prompt, model "
        'or tool), record the cassette again with record_cassette(path, mode="overwrite").'
    )


def _strict_replay(cassette: Any, path: Path, vcr: _Vcrpy) -> None:
    """Make ``cassette`` refuse a request it cannot answer with :func:`_mismatch_message`
    (vcrpy's own exception, so code catching ``CannotOverwriteExistingCassetteException`` still
    does, whose message would otherwise advise vcrpy's ``record_mode`` settings)."""
    original = cassette.can_play_response_for

    def can_play_response_for(request: Any) -> bool:
        if original(request):
            return True
        if cassette.write_protected and cassette.filter_request(request):
            error = vcr.CannotOverwriteExistingCassetteException(
                cassette=cassette, failed_request=request
            )
            error.args = (_mismatch_message(path, cassette.filter_request(request), error),)
            raise error
        return False

    cassette.can_play_response_for = can_play_response_for


class _Persister:
    """vcrpy persister: UTF-8 files written atomically (a replaced file keeps its permissions,
    a new one is 0644); ``overwrite`` never reads the old file."""

    def __init__(self, vcr: _Vcrpy, *, read_existing: bool) -> None:
        self._vcr = vcr
        self._read_existing = read_existing

    def load_cassette(self, cassette_path: Any, serializer: Any) -> Any:
        file = Path(cassette_path)
        if not self._read_existing or not file.is_file():
            raise self._vcr.CassetteNotFoundError()
        return self._vcr.deserialize(file.read_text(encoding="utf-8"), serializer)

    def save_cassette(self, cassette_path: Any, cassette_dict: Any, serializer: Any) -> None:
        text: str = self._vcr.serialize(cassette_dict, serializer)
        file = Path(cassette_path)
        file.parent.mkdir(parents=True, exist_ok=True)
        mode = file.stat().st_mode & 0o777 if file.exists() else 0o644
        handle, temporary = tempfile.mkstemp(prefix=f".{file.name}.", dir=file.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
                stream.write(text)
            os.chmod(temporary, mode)  # mkstemp makes 0600; a cassette is a shared fixture
            os.replace(temporary, file)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


class CassetteRecording:
    """A recording block; made by :func:`record_cassette`, used as ``with`` or ``async with``.

    Attributes:
        path: The cassette file.
        mode: The record mode.
        filters: What the cassette keeps of each request and response.
    """

    def __init__(self, path: Path, *, mode: RecordMode, filters: CassetteFilters) -> None:
        self.path = path
        self.mode: RecordMode = mode
        self.filters = filters
        self._vcr = _vcr()
        self._session = _Session(filters, self._vcr)
        self._context: Any = None
        self._cassette: Any = None
        self._replaying = False

    @property
    def replaying(self) -> bool:
        """True while an existing cassette is replayed instead of recorded (``once`` over an
        existing file, or ``replay``)."""
        return self._replaying

    @property
    def recorded(self) -> int:
        """Interactions recorded by this block so far (0 when replaying)."""
        return 0 if self._replaying else self._session.recorded

    @property
    def played(self) -> int:
        """Recorded interactions served from the file by this block so far."""
        return 0 if self._cassette is None else int(self._cassette.play_count)

    def __enter__(self) -> Self:
        """Start recording (or replaying).

        Raises:
            RuntimeError: the block is already open.
            FileNotFoundError: mode ``replay`` and the file does not exist.
        """
        if self._context is not None:
            raise RuntimeError(f"the recording of {self.path} is already open")
        exists = self.path.is_file()
        if self.mode == "replay" and not exists:
            raise FileNotFoundError(f"{self.path}: no cassette to replay (mode='replay')")
        self._replaying = exists and self.mode != "overwrite"
        session = self._session
        config = self._vcr.VCR(
            record_mode="none" if self.mode == "replay" else "once",
            match_on=_MATCH_ON,
            before_record_request=session.request,
            before_record_response=session.response,
            serializer="robota",
            record_on_exception=False,
        )
        config.register_serializer("robota", session)
        config.register_matcher("robota_body", _same_body)
        config.register_persister(_Persister(self._vcr, read_existing=self._replaying))
        context = config.use_cassette(str(self.path))
        self._cassette = context.__enter__()
        self._context = context
        session.recorded = 0  # loading a cassette runs the record hooks over what it holds
        _strict_replay(self._cassette, self.path, self._vcr)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Stop recording; write the file when new interactions were recorded and the block
        raised nothing."""
        context, self._context = self._context, None
        if context is not None:
            context.__exit__(exc_type, exc, traceback)

    async def __aenter__(self) -> Self:
        """As :meth:`__enter__`."""
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """As :meth:`__exit__`."""
        self.__exit__(exc_type, exc, traceback)


def record_cassette(
    path: str | os.PathLike[str],
    *,
    filter_json_fields: Iterable[str] = (),
    keep_response_headers: Iterable[str] = ("content-type",),
    keep_request_headers: Iterable[str] = SAFE_REQUEST_HEADERS,
    mode: RecordMode = "once",
) -> CassetteRecording:
    """Record the HTTP traffic of the block into the cassette at ``path``, which
    ``robota.core.testing.cassette.load_cassette`` and every provider's ``replay_provider`` read.

    Example:
        ```python
        async with record_cassette("cassettes/capital.yaml"):
            result = await agent.run("What is the capital of France?")
        ```

    Every HTTP request the process makes while the block is open is recorded (provider SDKs
    through ``httpx``/``httpx2``; a tool's calls through ``requests`` or ``aiohttp`` too); open
    one recording at a time. What the file keeps: the method; the URL without user info and
    without credential query parameters (``key``, ``api_key``, ``access_token``, ``sig``, any
    name ``SECRET_NAME`` matches such as ``X-Amz-Signature`` or ``auth``); the
    ``keep_request_headers``; the request body (JSON as ``parsed_body``); the status; the
    ``keep_response_headers``; and the response body as the client read it (decompressed; JSON
    as ``parsed_body``, a stream as text, byte for byte). Credential headers are never kept: the
    conventional ones (``Authorization``, ``x-api-key``, ``x-goog-api-key``, ``api-key``,
    ``Cookie``), any header whose name ``SECRET_NAME`` matches (``auth``, ``key``, ``token``,
    ``secret``, ``signature``, ``credential``, ``password``, ``session``: ``Helicone-Auth``,
    ``Ocp-Apim-Subscription-Key``) and any header whose value has an auth scheme
    (``Bearer ...``, ``Basic ...``: ``AUTH_SCHEMES``). The value of every credential a request
    carried -- those headers' values and tokens (a Basic user name and password both), the
    credential query parameters, a URL's user info, and the string values of secret-named
    fields of a JSON or form request body (``api_key``, ``client_secret``); 8 characters or
    longer -- is replaced by ``REDACTED`` wherever it occurs in the file (an error body
    echoing a key; a thinking block's ``signature`` too). Filters change only the recorded
    copy, never the live traffic.

    Replay (``once`` over an existing file, or ``replay``) is strict: a live request is
    filtered the same way and must equal a recorded one in method, URL and body (JSON compared
    as documents, types included: ``true`` is not ``1``); each recorded interaction is served
    once; a request with none left raises vcrpy's ``CannotOverwriteExistingCassetteException``
    from the HTTP call, its message naming the request (method and URL, credentials filtered),
    why it did not match, and ``mode="overwrite"`` to record the cassette again. In CI use
    ``mode="replay"``: a missing file then fails (``FileNotFoundError``) instead of calling the
    live API.

    Interactions are stored in the order their responses completed, and a streamed response
    reaches the client only once it has been read whole (its bytes are unchanged). The
    providers' ``replay_provider`` match on method and path in that order, so record a run
    with concurrent model calls (``max_concurrency`` > 1) for strict replay only, or record
    it with one call at a time.

    Args:
        path: The cassette file (``.yaml``); its folder is created on write.
        filter_json_fields: Keys omitted at any depth from recorded JSON bodies and from the
            JSON events of recorded streams (none by default: dropping an ``id`` would break
            replay of APIs that link items by id, e.g. Responses' ``previous_response_id``).
        keep_response_headers: Response headers kept (default only ``content-type``, which
            replay needs to tell a stream from JSON).
        keep_request_headers: Request headers kept (default :data:`SAFE_REQUEST_HEADERS`).
        mode: See :data:`RecordMode`.

    Returns:
        A :class:`CassetteRecording` to use as ``with`` or ``async with``.

    Raises:
        ValueError: a header to keep is sensitive (``authorization``, ``set-cookie``, ...: see
            ``SENSITIVE_HEADERS``; a request header to keep also when ``SECRET_NAME`` matches
            it), or ``mode`` is unknown.
        TypeError: a collection of names is a single string.
        MissingExtraError: vcrpy is not installed (``pip install "robota-agent-evals[record]"``)
            or older than 8.2.
    """
    if mode not in get_args(RecordMode):
        raise ValueError(f"mode must be one of {', '.join(get_args(RecordMode))}, not {mode!r}")
    for what, names in (
        ("filter_json_fields", filter_json_fields),
        ("keep_response_headers", keep_response_headers),
        ("keep_request_headers", keep_request_headers),
    ):
        if isinstance(names, str):
            raise TypeError(f"{what} must be a collection of names, not one string")
    filters = CassetteFilters(
        filter_json_fields=tuple(filter_json_fields),
        keep_response_headers=tuple(keep_response_headers),
        keep_request_headers=tuple(keep_request_headers),
    )
    return CassetteRecording(Path(path), mode=mode, filters=filters)
