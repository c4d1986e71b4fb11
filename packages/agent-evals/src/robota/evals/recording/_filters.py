"""What a cassette keeps of recorded traffic (seed 002, "Cassettes": optional filters run only on
recorded copies; the JSON field filter recursively omits configured volatile keys; recording and
replay share request URL and body filters; response headers are absent by default and can be
captured only through an explicit safe-header filter; conventional sensitive headers are
rejected).

Everything here works on copies: the live request and response the client exchanges are never
changed. Pure functions and one frozen value, no I/O, no third-party recorder.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_plus, urlsplit, urlunsplit

__all__ = [
    "AUTH_SCHEMES",
    "REDACTED",
    "SAFE_REQUEST_HEADERS",
    "SECRET_BODY_FIELD",
    "SECRET_NAME",
    "SECRET_QUERY_PARAMETERS",
    "SENSITIVE_HEADERS",
    "CassetteFilters",
    "is_secret_header",
    "is_secret_parameter",
    "omit_fields",
    "redact",
    "request_secrets",
]

SENSITIVE_HEADERS = frozenset(
    {
        "api-key",
        "authorization",
        "cookie",
        "proxy-authenticate",
        "proxy-authorization",
        "set-cookie",
        "www-authenticate",
        "x-api-key",
        "x-goog-api-key",
    }
)
"""Header names (lower case) a cassette never keeps: credentials (``Authorization``, Anthropic's
``x-api-key``, Gemini's ``x-goog-api-key``, Azure OpenAI's ``api-key``), cookies and
authentication challenges. Asking to keep one raises ``ValueError``."""

SAFE_REQUEST_HEADERS = (
    "accept",
    "anthropic-beta",
    "anthropic-version",
    "content-type",
    "openai-beta",
)
"""Request headers a cassette keeps by default: the ones that select a wire format. Every other
request header (credentials, user agent, SDK telemetry, ``host``, ``content-length``) is
dropped."""

SECRET_QUERY_PARAMETERS = frozenset(
    {
        "access_token",
        "api-key",
        "api_key",
        "apikey",
        "client_secret",
        "key",
        "sig",
        "signature",
        "token",
        "x-goog-api-key",
    }
)
"""Query parameter names (lower case) removed from recorded URLs (Gemini's ``key=``, OAuth
``access_token=``, signed-URL ``sig=``) besides every name :data:`SECRET_NAME` matches; their
values are also redacted everywhere."""

SECRET_NAME = re.compile(
    r"auth|key|token|secret|signature|credential|password|session", re.IGNORECASE
)
"""A name that marks a credential wherever it is found: a request header (``Helicone-Auth``,
``cf-aig-authorization``, ``Ocp-Apim-Subscription-Key``, ``X-Auth-Token``), a query parameter
(``X-Amz-Signature``, ``X-Amz-Security-Token``, ``X-Goog-Credential``, ``auth``,
``password``) or a field of a JSON or form request body (``api_key``, ``client_secret``). It
errs on the side of secrecy: ``max_tokens`` or ``keyword`` in a URL is dropped too."""

SECRET_BODY_FIELD = re.compile(
    r"(x[_-]?)?(api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|(access|refresh|id|"
    r"session|auth|bearer)[_-]?token|token|client[_-]?secret|secret|password|passwd|"
    r"auth|authorization|credentials?)",
    re.IGNORECASE,
)
"""A field name of a JSON request body whose string value is a credential (``api_key``,
``client_secret``, ``access_token``, ``password``), matched whole: unlike :data:`SECRET_NAME` it
leaves a thinking block's ``signature``, a ``prompt_cache_key`` or ``max_tokens`` alone, which
the model's own exchange needs verbatim."""

AUTH_SCHEMES = frozenset(
    {
        "apikey",
        "aws4-hmac-sha256",
        "basic",
        "bearer",
        "concealed",
        "digest",
        "dpop",
        "gnap",
        "hawk",
        "hoba",
        "key",
        "mac",
        "mutual",
        "negotiate",
        "ntlm",
        "oauth",
        "privatetoken",
        "scram-sha-1",
        "scram-sha-256",
        "sharedkey",
        "sharedkeylite",
        "ssws",
        "token",
        "vapid",
    }
)
"""Authentication schemes (lower case; the IANA HTTP Authentication Scheme Registry and common
vendor ones): a request header whose value starts with one and a credential (``Bearer
sk-...``) is a credential header whatever its name."""

REDACTED = "REDACTED"
"""What a credential found in a recorded body, URL or header value is replaced with."""

_SECRET_HEADERS = frozenset(
    {"api-key", "authorization", "cookie", "proxy-authorization", "x-api-key", "x-goog-api-key"}
)
_MIN_SECRET_LENGTH = 8
"""Shorter credential values are not searched for in bodies (a 3-letter value would corrupt
unrelated text); their headers and query parameters are still dropped."""
_FRAMING = frozenset({"connection", "content-length", "keep-alive", "transfer-encoding"})
_LINE_END = re.compile(r"(\r\n|\r|\n)")
_FORM = "application/x-www-form-urlencoded"
_SINGLE_TOKEN_SCHEMES = frozenset({"apikey", "basic", "bearer", "key", "ssws", "token"})
"""Schemes whose credentials are one token (a base64 ``=`` in it is not a parameter)."""


def is_secret_header(name: str, value: str = "") -> bool:
    """Whether a request header is a credential: a conventional credential header or cookie,
    a name :data:`SECRET_NAME` matches, or a value in an :data:`AUTH_SCHEMES` scheme.

    Example:
        >>> is_secret_header("Helicone-Auth"), is_secret_header("X-Trace", "Bearer abc")
        (True, True)
        >>> is_secret_header("anthropic-version", "2023-06-01")
        False
    """
    lowered = name.strip().lower()
    return (
        lowered in _SECRET_HEADERS
        or SECRET_NAME.search(lowered) is not None
        or _scheme(value) is not None
    )


def is_secret_parameter(name: str) -> bool:
    """Whether a query parameter or body field named ``name`` (raw, percent-encoded or not)
    holds a credential: :data:`SECRET_QUERY_PARAMETERS` or a :data:`SECRET_NAME` match."""
    decoded = unquote_plus(name).strip()
    return decoded.lower() in SECRET_QUERY_PARAMETERS or SECRET_NAME.search(decoded) is not None


def _scheme(value: str) -> tuple[str, str] | None:
    """``(scheme, credentials)`` of an ``Authorization``-style value, else None."""
    scheme, _, rest = value.strip().partition(" ")
    rest = rest.strip()
    if rest and scheme.lower() in AUTH_SCHEMES:
        return scheme.lower(), rest
    return None


def _lower_names(names: Iterable[str], *, what: str) -> tuple[str, ...]:
    if isinstance(names, str):
        raise TypeError(f"{what} must be a collection of header names, not one string")
    lowered = tuple(dict.fromkeys(name.strip().lower() for name in names))
    sensitive = sorted(set(lowered) & SENSITIVE_HEADERS)
    if what == "keep_request_headers":
        sensitive = sorted({name for name in lowered if is_secret_header(name)} | set(sensitive))
    if sensitive:
        raise ValueError(
            f"{what} cannot keep the sensitive header(s) {', '.join(sensitive)}: "
            "a cassette never stores credentials, cookies or authentication challenges"
        )
    return lowered


@dataclass(frozen=True, kw_only=True, slots=True)
class CassetteFilters:
    """The filters a recording applies to its copy of each request and response (and that
    strict replay applies to each live request before comparing it with the recorded one).

    Attributes:
        filter_json_fields: Keys omitted at any depth from JSON request and response bodies and
            from the JSON ``data:`` lines of Server-Sent Events (an event holding none of them
            keeps its exact bytes).
        keep_request_headers: Request header names (any case) kept; default
            :data:`SAFE_REQUEST_HEADERS`.
        keep_response_headers: Response header names (any case) kept; every other response
            header is absent. ``content-type`` is what replay needs (it tells a stream from a
            JSON body).

    Raises:
        ValueError: ``keep_request_headers`` or ``keep_response_headers`` names a header of
            :data:`SENSITIVE_HEADERS`, or ``keep_request_headers`` names a credential header
            (:func:`is_secret_header`).
        TypeError: a header collection is a single string.
    """

    filter_json_fields: tuple[str, ...] = ()
    keep_request_headers: tuple[str, ...] = SAFE_REQUEST_HEADERS
    keep_response_headers: tuple[str, ...] = ("content-type",)

    def __post_init__(self) -> None:
        if isinstance(self.filter_json_fields, str):
            raise TypeError("filter_json_fields must be a collection of keys, not one string")
        object.__setattr__(self, "filter_json_fields", tuple(self.filter_json_fields))
        object.__setattr__(
            self,
            "keep_request_headers",
            _lower_names(self.keep_request_headers, what="keep_request_headers"),
        )
        object.__setattr__(
            self,
            "keep_response_headers",
            _lower_names(self.keep_response_headers, what="keep_response_headers"),
        )

    def request_headers(self, headers: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
        """The kept request headers, lower-case names, values in order; a credential header
        (:func:`is_secret_header`) never is."""
        return _kept(
            ((name, value) for name, value in headers if not is_secret_header(name, value)),
            self.keep_request_headers,
        )

    def response_headers(self, headers: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
        """The kept response headers, lower-case names, values in order. The framing headers
        (``content-length``, ``transfer-encoding``, ``connection``, ``keep-alive``) are never
        kept: the recorded body is whole, decoded and possibly filtered, so they would be wrong.
        """
        kept = _kept(headers, self.keep_response_headers)
        return {name: values for name, values in kept.items() if name not in _FRAMING}

    def uri(self, uri: str) -> str:
        """``uri`` without user info and without credential query parameters
        (:func:`is_secret_parameter`; the other parameters keep their order and spelling).

        Example:
            >>> CassetteFilters().uri("https://h/v1/m:generate?alt=sse&key=AIza-secret")
            'https://h/v1/m:generate?alt=sse'
        """
        parts = urlsplit(uri)
        netloc = parts.netloc.rpartition("@")[2]
        kept = [
            piece
            for piece in parts.query.split("&")
            if piece and not is_secret_parameter(piece.partition("=")[0])
        ]
        return urlunsplit((parts.scheme, netloc, parts.path, "&".join(kept), parts.fragment))

    def body(self, body: bytes, *, content_type: str = "") -> bytes:
        """``body`` with :attr:`filter_json_fields` omitted: a JSON document is re-encoded
        compactly; an event stream (``text/event-stream``) is filtered event by event; any
        other body is returned unchanged."""
        if not self.filter_json_fields or not body:
            return body
        fields = frozenset(self.filter_json_fields)
        if "text/event-stream" in content_type.lower():
            return _filtered_events(body, fields)
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            return body
        if not _holds_any(value, fields):
            return body
        return _compact(omit_fields(value, fields)).encode()


def _kept(headers: Iterable[tuple[str, str]], names: tuple[str, ...]) -> dict[str, list[str]]:
    kept: dict[str, list[str]] = {}
    for name, value in headers:
        lowered = name.lower()
        if lowered in names and lowered not in SENSITIVE_HEADERS:
            kept.setdefault(lowered, []).append(value)
    return kept


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _holds_any(value: Any, fields: frozenset[str]) -> bool:
    if isinstance(value, dict):
        items: dict[str, Any] = value
        return any(key in fields or _holds_any(item, fields) for key, item in items.items())
    if isinstance(value, list):
        entries: list[Any] = value
        return any(_holds_any(item, fields) for item in entries)
    return False


def omit_fields(value: Any, fields: frozenset[str]) -> Any:
    """``value`` (parsed JSON) without the keys in ``fields``, at any depth; a new value.

    Example:
        >>> omit_fields({"id": "r1", "items": [{"id": "m1", "text": "hi"}]}, frozenset({"id"}))
        {'items': [{'text': 'hi'}]}
    """
    if isinstance(value, dict):
        items: dict[str, Any] = value
        return {key: omit_fields(item, fields) for key, item in items.items() if key not in fields}
    if isinstance(value, list):
        entries: list[Any] = value
        return [omit_fields(item, fields) for item in entries]
    return value


def _filtered_events(body: bytes, fields: frozenset[str]) -> bytes:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return body
    pieces = _LINE_END.split(text)
    for index in range(0, len(pieces), 2):
        line = pieces[index]
        if not line.startswith("data:"):
            continue
        payload = line[5:]
        space = " " if payload.startswith(" ") else ""
        try:
            value = json.loads(payload)
        except (ValueError, RecursionError):
            continue
        if _holds_any(value, fields):
            pieces[index] = f"data:{space}{_compact(omit_fields(value, fields))}"
    return "".join(pieces).encode("utf-8")


def request_secrets(
    headers: Iterable[tuple[str, str]], uri: str, body: bytes = b"", content_type: str = ""
) -> set[str]:
    """The credential values a request carries: each credential header's value
    (:func:`is_secret_header`) and its credentials after an auth scheme (a ``Basic`` token also
    gives its decoded user name and password; ``name=value`` parameters such as AWS's
    ``Signature=`` their secret-named values), each cookie's value, each credential query
    parameter's value, a URL's user name and password, and the string values of secret-named
    fields of a JSON body (at any depth) or of a form body. Values shorter than 8 characters
    are left out (see the module constant).

    Example:
        >>> sorted(request_secrets([("X-Auth-Token", "tok-123456789")], "https://h/?sig=s1g-value"))
        ['s1g-value', 'tok-123456789']
    """
    found: set[str] = set()
    for name, value in headers:
        if not is_secret_header(name, value):
            continue
        found.add(value.strip())
        if name.strip().lower() == "cookie":
            found.update(c.partition("=")[2].strip() for c in value.split(";"))
            continue
        found.update(_credentials(value))
    parts = urlsplit(uri)
    for part in (parts.username, parts.password):
        if part:
            found.add(unquote_plus(part))
    for piece in parts.query.split("&"):
        name, _, value = piece.partition("=")
        if value and is_secret_parameter(name):
            found.update({value, unquote_plus(value)})
    found.update(_body_secrets(body, content_type))
    return {secret for secret in found if len(secret) >= _MIN_SECRET_LENGTH}


def _credentials(value: str) -> set[str]:
    """The secrets inside a credential header's value (see :func:`request_secrets`)."""
    scheme = _scheme(value)
    if scheme is None:
        return set()
    name, token = scheme
    found = {token}
    if name == "basic":
        try:
            decoded = base64.b64decode(token, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            decoded = ""
        user, _, password = decoded.partition(":")
        found.update({user, password})
    if name in _SINGLE_TOKEN_SCHEMES:
        return found
    for item in token.split(","):
        key, separator, secret = item.strip().partition("=")
        if separator and SECRET_NAME.search(key):
            found.add(secret.strip().strip('"'))
    return found


def _body_secrets(body: bytes, content_type: str) -> set[str]:
    """The string values of secret-named fields of a JSON or form request body, each also as
    it is spelled inside JSON text."""
    if not body:
        return set()
    found: set[str] = set()
    if _FORM in content_type.lower():
        for piece in body.decode("latin-1").split("&"):
            name, _, value = piece.partition("=")
            if value and is_secret_parameter(name):
                found.update({value, unquote_plus(value)})
        return found
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return found
    stack: list[Any] = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            items: dict[str, Any] = node
            for key, item in items.items():
                if isinstance(item, str) and SECRET_BODY_FIELD.fullmatch(key):
                    found.update(
                        {item, json.dumps(item)[1:-1], json.dumps(item, ensure_ascii=False)[1:-1]}
                    )
                else:
                    stack.append(item)
        elif isinstance(node, list):
            entries: list[Any] = node
            stack.extend(entries)
    return found


def redact(value: Any, secrets: Iterable[str]) -> Any:
    """``value`` (a cassette document: dicts, lists, strings, bytes, numbers) with every
    occurrence of each secret in a string, bytes value or mapping key replaced by
    :data:`REDACTED`; a new value. The longest secrets are replaced first."""
    ordered = sorted(set(secrets), key=len, reverse=True)
    if not ordered:
        return value
    return _redacted(value, ordered)


def _redacted(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, bytes):
        for secret in secrets:
            value = value.replace(secret.encode("utf-8"), REDACTED.encode())
        return value
    if isinstance(value, Mapping):
        items: Mapping[Any, Any] = value
        return {_redacted(key, secrets): _redacted(item, secrets) for key, item in items.items()}
    if isinstance(value, list | tuple):
        entries: list[Any] = list(value)  # pyright: ignore[reportUnknownArgumentType]
        return [_redacted(item, secrets) for item in entries]
    return value
