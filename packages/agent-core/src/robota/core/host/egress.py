"""Egress policy: may this caller- or model-supplied URL be fetched? (seed 000, "Egress Policy").

The one outbound boundary for every URL a caller or a model hands to a built-in HTTP client.
:meth:`EgressPolicy.check` answers with an :class:`EgressDecision` value, never by raising:

1. The URL is parsed by :class:`httpx.URL` (the parser the fetch itself uses, so the checked
   host is the connected host; ``http://user@127.0.0.1`` and ``http://a@b@10.0.0.1`` are judged
   on the host after the last ``@``). Only ``http``/``https`` are allowed.
2. A host that ends in a number is read as IPv4 the lenient way resolvers do (``127.1``,
   ``2130706433``, ``0x7f.1``, ``0177.0.0.1``); one that ends in a number but is no valid
   address (``425.510.425.510``, ``0x41414141A9FEA9FE``) is refused, never handed to DNS.
   Bracketed IPv6 is judged with the embedded IPv4 of mapped/compatible/NAT64/6to4/Teredo
   forms, in either spelling (``::ffff:7f00:1`` is ``::ffff:127.0.0.1``).
3. Literal addresses in loopback, private, link-local, CGNAT, multicast, reserved, unspecified,
   benchmarking, documentation, unique-local or site-local ranges are refused (the table and its
   RFCs are in ``_addresses.py``); the stdlib :mod:`ipaddress` does the arithmetic.
4. Names on a blocklist (``localhost`` and ``*.localhost`` per RFC 6761, cloud metadata names
   such as ``metadata.google.internal``, ``metadata.goog``, ``instance-data``,
   ``metadata.packet.net``; the ``.local``, ``.internal``, ``.home.arpa`` and ``.localdomain``
   suffixes) and single-label names (``metadata``, ``rancher-metadata``: resolved through search
   domains to internal hosts) are refused. A URL carrying userinfo is refused by default.
5. Anything else is resolved (injectable :class:`Resolver`; the default runs
   ``getaddrinfo`` in a worker thread through :func:`anyio.getaddrinfo`) and refused if ANY
   answer is in a blocked range, or if it does not resolve at all.

Redirects, size and time bounds, header hygiene and connection pinning are in
:mod:`robota.core.host.egress_client`.

Example:
    >>> import anyio
    >>> anyio.run(EgressPolicy().check, "http://0x7f.1/").reason
    <EgressReason.BLOCKED_ADDRESS: 'blocked_address'>
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

import anyio
import httpx
from robota.core.host._addresses import (
    InvalidNumericHostError,
    IPAddress,
    blocked_range,
    parse_ipv4_host,
)

__all__ = [
    "DEFAULT_BLOCKED_HOSTNAMES",
    "DEFAULT_BLOCKED_SUFFIXES",
    "EgressDecision",
    "EgressPolicy",
    "EgressReason",
    "IPAddress",
    "Resolver",
    "system_resolver",
]

DEFAULT_BLOCKED_HOSTNAMES: frozenset[str] = frozenset(
    {
        "localhost",
        "localhost.localdomain",
        "ip6-localhost",
        "ip6-loopback",
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.packet.net",
        "metadata.platformequinix.com",
        "metadata.tencentyun.com",
        "rancher-metadata",
        "kubernetes.default.svc",
    }
)
"""Host names refused outright: loopback aliases (RFC 6761, Debian ``/etc/hosts``) and cloud
instance-metadata endpoints (GCP, AWS, Equinix Metal, Tencent, Rancher, Kubernetes)."""

DEFAULT_BLOCKED_SUFFIXES: tuple[str, ...] = (
    ".localhost",
    ".local",
    ".internal",
    ".home.arpa",
    ".localdomain",
)
"""Name suffixes refused outright: RFC 6761 ``.localhost``, RFC 6762 mDNS ``.local``, the ICANN
private-use ``.internal``, RFC 8375 ``.home.arpa`` and the conventional ``.localdomain``."""

_DOMAIN_CHARS = re.compile(r"^[a-z0-9_-]+(\.[a-z0-9_-]+)*$")


class EgressReason(StrEnum):
    """Why a URL was allowed or refused (the ``reason`` of an :class:`EgressDecision`)."""

    ALLOWED = "allowed"
    INVALID_URL = "invalid_url"
    SCHEME_NOT_ALLOWED = "scheme_not_allowed"
    INVALID_HOST = "invalid_host"
    BLOCKED_HOSTNAME = "blocked_hostname"
    SINGLE_LABEL_HOST = "single_label_host"
    USERINFO_NOT_ALLOWED = "userinfo_not_allowed"
    BLOCKED_ADDRESS = "blocked_address"
    UNRESOLVABLE = "unresolvable"
    RESOLVES_TO_BLOCKED = "resolves_to_blocked_address"
    TOO_MANY_REDIRECTS = "too_many_redirects"


@dataclass(frozen=True, kw_only=True, slots=True)
class EgressDecision:
    """The policy's answer for one URL (one redirect hop).

    Attributes:
        allowed: True when the URL may be fetched, and only at ``addresses``.
        reason: :class:`EgressReason` code; ``ALLOWED`` exactly when ``allowed``.
        url: The URL as given.
        host: The host as it will be resolved (lower case, IDNA ASCII, brackets removed), or
            ``""`` when the URL did not parse.
        port: The effective port (scheme default filled in), or None when unknown.
        addresses: When allowed, the validated addresses to connect to (the literal address,
            or every resolver answer). When refused, the offending addresses, if any.
        detail: Human-readable explanation (which range, which name); not for branching.
    """

    allowed: bool
    reason: EgressReason
    url: str
    host: str = ""
    port: int | None = None
    addresses: tuple[IPAddress, ...] = ()
    detail: str = ""


class Resolver(Protocol):
    """Resolves a host name to its addresses.

    Implementations raise :class:`OSError` (e.g. :class:`socket.gaierror`) when the name does
    not resolve; the policy turns that into an ``UNRESOLVABLE`` refusal.
    """

    async def __call__(self, host: str, port: int, /) -> Sequence[IPAddress]:
        """Return every address ``host`` resolves to (both families), in resolver order."""
        ...


async def system_resolver(host: str, port: int, /) -> Sequence[IPAddress]:
    """Resolve with the system resolver (``getaddrinfo`` in a worker thread, via anyio).

    Raises:
        OSError: The name does not resolve (``socket.gaierror``).
    """
    infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    answers: list[IPAddress] = []
    for _family, _type, _proto, _canonname, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
        if address not in answers:
            answers.append(address)
    return answers


@dataclass(frozen=True, kw_only=True, slots=True)
class _Target:
    url: str
    host: str
    port: int
    literal: IPAddress | None


@dataclass(frozen=True, kw_only=True, slots=True)
class EgressPolicy:
    """Decides whether a URL may be fetched (seed 000, "Egress Policy").

    Attributes:
        resolver: Name resolution; :func:`system_resolver` unless injected (tests inject a
            table).
        blocked_hostnames: Exact names refused (compared lower case, trailing dot removed).
        blocked_suffixes: Name suffixes refused, each starting with a dot.
        allowed_schemes: URL schemes allowed; ``http`` and ``https``.
        allow_userinfo: When False (default) a URL with ``user[:password]@`` is refused.
        allow_single_label: When False (default) a dotless name is refused.
    """

    resolver: Resolver = system_resolver
    blocked_hostnames: frozenset[str] = DEFAULT_BLOCKED_HOSTNAMES
    blocked_suffixes: tuple[str, ...] = DEFAULT_BLOCKED_SUFFIXES
    allowed_schemes: frozenset[str] = field(default_factory=lambda: frozenset({"http", "https"}))
    allow_userinfo: bool = False
    allow_single_label: bool = False

    def check_without_resolving(self, url: str | httpx.URL) -> EgressDecision | None:
        """Apply every rule that needs no DNS.

        Args:
            url: Absolute URL.

        Returns:
            A refusal, an allowed decision for a literal public address, or None when the
            host is a name that must still be resolved (use :meth:`check`).
        """
        target = self._target(url)
        if isinstance(target, EgressDecision):
            return target
        if target.literal is not None:
            return self._allowed(target, (target.literal,))
        return None

    async def check(self, url: str | httpx.URL) -> EgressDecision:
        """Decide whether ``url`` may be fetched, resolving its host if it is a name.

        Args:
            url: Absolute URL.

        Returns:
            The decision; refusals are values, never raised.
        """
        target = self._target(url)
        if isinstance(target, EgressDecision):
            return target
        if target.literal is not None:
            return self._allowed(target, (target.literal,))
        try:
            answers = tuple(await self.resolver(target.host, target.port))
        except OSError as error:
            return self._refuse(
                target.url,
                EgressReason.UNRESOLVABLE,
                f"{target.host!r} does not resolve: {error}",
                host=target.host,
                port=target.port,
            )
        if not answers:
            return self._refuse(
                target.url,
                EgressReason.UNRESOLVABLE,
                f"{target.host!r} resolved to no address",
                host=target.host,
                port=target.port,
            )
        bad = [(answer, blocked_range(answer)) for answer in answers]
        offending = [(answer, why) for answer, why in bad if why is not None]
        if offending:
            return self._refuse(
                target.url,
                EgressReason.RESOLVES_TO_BLOCKED,
                "; ".join(f"{target.host} -> {answer}: {why}" for answer, why in offending),
                host=target.host,
                port=target.port,
                addresses=answers,
            )
        return self._allowed(target, answers)

    def _target(self, url: str | httpx.URL) -> _Target | EgressDecision:
        text = str(url)
        try:
            parsed = url if isinstance(url, httpx.URL) else httpx.URL(url)
            port = parsed.port
        except (httpx.InvalidURL, ValueError, TypeError) as error:
            return self._refuse(text, EgressReason.INVALID_URL, str(error))
        if parsed.scheme not in self.allowed_schemes:
            return self._refuse(
                text, EgressReason.SCHEME_NOT_ALLOWED, f"scheme {parsed.scheme!r} not allowed"
            )
        host = parsed.raw_host.decode("ascii", errors="replace").lower()
        if host == "":
            return self._refuse(text, EgressReason.INVALID_URL, "URL has no host")
        effective_port = port if port is not None else (443 if parsed.scheme == "https" else 80)
        if not 0 < effective_port <= 65535:
            return self._refuse(text, EgressReason.INVALID_URL, f"port {effective_port} invalid")
        refusal = self._host_refusal(text, host, effective_port)
        if isinstance(refusal, EgressDecision):
            return refusal
        if parsed.userinfo and not self.allow_userinfo:
            return self._refuse(
                text,
                EgressReason.USERINFO_NOT_ALLOWED,
                "URL carries user information before '@'",
                host=host,
                port=effective_port,
            )
        return _Target(url=text, host=refusal[0], port=effective_port, literal=refusal[1])

    def _host_refusal(
        self, text: str, host: str, port: int
    ) -> EgressDecision | tuple[str, IPAddress | None]:
        def refuse(reason: EgressReason, detail: str, *addresses: IPAddress) -> EgressDecision:
            return self._refuse(text, reason, detail, host=host, port=port, addresses=addresses)

        if ":" in host:
            try:
                address6 = ipaddress.IPv6Address(host.replace("%25", "%"))
            except ValueError:
                return refuse(EgressReason.INVALID_HOST, f"{host!r} is not an IPv6 address")
            why = blocked_range(address6)
            if why is not None:
                return refuse(EgressReason.BLOCKED_ADDRESS, why, address6)
            return host, address6
        name = host.rstrip(".") if host.rstrip(".") else host
        if not _DOMAIN_CHARS.match(name) or any(len(label) > 63 for label in name.split(".")):
            return refuse(EgressReason.INVALID_HOST, f"{host!r} is not a valid host name")
        try:
            address4 = parse_ipv4_host(name)
        except InvalidNumericHostError as error:
            return refuse(EgressReason.INVALID_HOST, str(error))
        if address4 is not None:
            why = blocked_range(address4)
            if why is not None:
                return refuse(EgressReason.BLOCKED_ADDRESS, f"{address4}: {why}", address4)
            return name, address4
        if name in self.blocked_hostnames or any(
            name.endswith(suffix) for suffix in self.blocked_suffixes
        ):
            return refuse(EgressReason.BLOCKED_HOSTNAME, f"{name!r} is on the host blocklist")
        if "." not in name and not self.allow_single_label:
            return refuse(EgressReason.SINGLE_LABEL_HOST, f"{name!r} is a single-label name")
        return name, None

    @staticmethod
    def _allowed(target: _Target, addresses: tuple[IPAddress, ...]) -> EgressDecision:
        return EgressDecision(
            allowed=True,
            reason=EgressReason.ALLOWED,
            url=target.url,
            host=target.host,
            port=target.port,
            addresses=addresses,
        )

    @staticmethod
    def _refuse(
        url: str,
        reason: EgressReason,
        detail: str,
        *,
        host: str = "",
        port: int | None = None,
        addresses: tuple[IPAddress, ...] = (),
    ) -> EgressDecision:
        return EgressDecision(
            allowed=False,
            reason=reason,
            url=url,
            host=host,
            port=port,
            addresses=addresses,
            detail=detail,
        )
