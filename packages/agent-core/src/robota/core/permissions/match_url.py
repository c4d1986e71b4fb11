"""URL-kind patterns: scheme, host, port and path matched as separate parts (seed 000,
"Permission Argument Registry": never one wildcard over the whole URL).

Pattern forms:

=====================================  ==================================================
``domain:example.com``                 Host ``example.com``, any scheme, port and path.
``domain:*.example.com``               Any subdomain of ``example.com`` (not the apex).
``https://example.com/docs/**``        Scheme, host, default port, path glob.
``https://*.example.com:8443/**``      Explicit port; ``:*`` means any port.
``https://example.com``                No path: any path.
``*://example.com/**``                 Any of ``http``/``https``.
=====================================  ==================================================

Rules: the host is compared case-insensitively after IDNA encoding (``bücher.example`` equals
``xn--bcher-kva.example``) and without a trailing dot; the only host wildcard is one leading
``*.`` label (any depth of subdomain, never the apex) or ``*`` alone (any host). A pattern
without a port matches only the scheme's default port. The path is a ``wcmatch`` glob
(``GLOBSTAR``) over the URL's path after removing ``.``/``..`` segments; the query and fragment
are ignored. Userinfo (``user:pw@``) is not part of the host.

An argument is unevaluable (never allowed, asked on deny/ask) when it does not parse, has no
host, holds a backslash, whitespace, control character or ``%`` in its authority (parsers
disagree about those), has an invalid port, or percent-encodes ``.``, ``/`` or ``\\`` in its path.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from robota.core.permissions._outcome import Match
from wcmatch import glob

__all__ = ["ParsedUrl", "match_url", "parse_url"]

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
_BAD_AUTHORITY = re.compile(r"[\\\s%\x00-\x1f\x7f]")
_ENCODED_SEPARATOR = re.compile(r"%(2e|2f|5c)", re.IGNORECASE)
_FLAGS = glob.GLOBSTAR | glob.DOTGLOB | glob.BRACE | glob.FORCEUNIX
_HOST_LABELS = re.compile(r"^[a-z0-9_-]+(\.[a-z0-9_-]+)*$|^\[[0-9a-f:.]+\]$")


@dataclass(frozen=True, kw_only=True, slots=True)
class ParsedUrl:
    """A URL split into the parts rules match.

    Attributes:
        scheme: Lower-case scheme, e.g. ``"https"``.
        host: Lower-case ASCII (IDNA) host without a trailing dot; IPv6 in brackets.
        port: Explicit port or the scheme's default; None when neither is known.
        path: Path with dot segments removed; ``"/"`` when empty.
    """

    scheme: str
    host: str
    port: int | None
    path: str


def parse_url(value: object) -> ParsedUrl | None:
    """Split a URL argument into parts, or return None when it cannot be judged.

    Args:
        value: The tool's argument.

    Returns:
        The parts, or None (see the module docstring for what is refused).
    """
    if not isinstance(value, str) or not value or any(ord(c) < 0x20 for c in value):
        return None
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if not scheme or _BAD_AUTHORITY.search(parts.netloc) or not parts.netloc:
        return None
    host = _host(parts.hostname)
    if host is None or _ENCODED_SEPARATOR.search(parts.path):
        return None
    if port is None:
        port = _DEFAULT_PORTS.get(scheme)
    path = posixpath.normpath(parts.path or "/")
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    if parts.path.endswith("/") and path != "/":
        path += "/"
    return ParsedUrl(scheme=scheme, host=host, port=port, path=path)


def match_url(pattern: str, value: object) -> Match:
    """Match a URL pattern against a URL argument, part by part.

    Args:
        pattern: A form from the module docstring.
        value: The tool's argument.

    Returns:
        :attr:`Match.YES`/:attr:`Match.NO`; :attr:`Match.UNEVALUABLE` when either side cannot be
        parsed.

    Example:
        >>> match_url("domain:*.example.com", "https://docs.example.com/a")
        <Match.YES: 'yes'>
        >>> match_url("https://example.com/**", "https://example.com.evil.net/")
        <Match.NO: 'no'>
    """
    url = parse_url(value)
    spec = _parse_pattern(pattern)
    if url is None or spec is None:
        return Match.UNEVALUABLE
    schemes, host, port, path = spec
    if schemes is not None and url.scheme not in schemes:
        return Match.NO
    if not _host_matches(host, url.host):
        return Match.NO
    if port == "default":
        if url.port != _DEFAULT_PORTS.get(url.scheme):
            return Match.NO
    elif port is not None and url.port != port:
        return Match.NO
    if path is not None and not _path_matches(path, url.path):
        return Match.NO
    return Match.YES


def _host(raw: str | None) -> str | None:
    if not raw:
        return None
    host = raw.rstrip(".").lower() if raw != "." else ""
    if not host:
        return None
    if host.startswith("["):
        return host if _HOST_LABELS.match(host) else None
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
        return host if _HOST_LABELS.match(host) else None
    try:
        ascii_host = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        return None
    return ascii_host if _HOST_LABELS.match(ascii_host) else None


_Spec = tuple[frozenset[str] | None, str, "int | str | None", str | None]


def _parse_pattern(pattern: str) -> _Spec | None:
    text = pattern.strip()
    if text.startswith("domain:"):
        host = _pattern_host(text[len("domain:") :])
        return None if host is None else (None, host, None, None)
    if "://" not in text:
        return None
    scheme_text, rest = text.split("://", 1)
    scheme_text = scheme_text.lower()
    if scheme_text == "*":
        schemes: frozenset[str] | None = frozenset({"http", "https"})
    elif re.fullmatch(r"[a-z][a-z0-9+.-]*", scheme_text):
        schemes = frozenset({scheme_text})
    else:
        return None
    authority, slash, path_text = rest.partition("/")
    if "@" in authority or not authority:
        return None
    port: int | str | None = "default"
    host_text = authority
    if authority.startswith("["):
        close = authority.find("]")
        if close < 0:
            return None
        host_text, port_text = authority[: close + 1], authority[close + 1 :]
    else:
        host_text, _, port_text = authority.partition(":")
        port_text = f":{port_text}" if port_text or authority.endswith(":") else ""
    if port_text:
        if port_text == ":*":
            port = None
        elif re.fullmatch(r":[0-9]{1,5}", port_text) and int(port_text[1:]) <= 65535:
            port = int(port_text[1:])
        else:
            return None
    host = _pattern_host(host_text)
    if host is None:
        return None
    path = f"/{path_text}" if slash and path_text not in ("", "**") else None
    return schemes, host, port, path


def _pattern_host(text: str) -> str | None:
    text = text.strip()
    if text == "*":
        return "*"
    wildcard = text.startswith("*.")
    body = text[2:] if wildcard else text
    if "*" in body or not body:
        return None
    host = _host(body)
    if host is None:
        return None
    return f"*.{host}" if wildcard else host


def _host_matches(pattern: str, host: str) -> bool:
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        return host.endswith(pattern[1:]) and len(host) > len(pattern) - 1
    return host == pattern


def _path_matches(pattern: str, path: str) -> bool:
    if glob.globmatch(path, pattern, flags=_FLAGS):
        return True
    return path.endswith("/") and glob.globmatch(path.rstrip("/"), pattern, flags=_FLAGS)
