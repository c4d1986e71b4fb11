"""Address classification for the egress policy (private module).

Two jobs: read a URL host the way the most lenient resolver would (WHATWG URL Standard,
"IPv4 parser": decimal, octal ``0177``, hex ``0x7f``, and one to four parts, so ``127.1``,
``2130706433`` and ``0x7f.1`` are all 127.0.0.1, exactly what glibc ``inet_aton`` accepts), and
say whether an address lies in a range that must not be reached from a caller- or model-supplied
URL (IANA IPv4/IPv6 Special-Purpose Address Registries, RFC 6890 and successors).

IPv6 addresses that embed an IPv4 address (IPv4-mapped ``::ffff:0:0/96``, IPv4-compatible
``::/96``, NAT64 ``64:ff9b::/96``, 6to4 ``2002::/16``, Teredo ``2001::/32``) are judged on the
embedded address as well as on the IPv6 range, whichever spelling the URL used (``::ffff:7f00:1``
and ``::ffff:127.0.0.1`` are one address to :mod:`ipaddress`).
"""

from __future__ import annotations

import ipaddress
import string
from typing import TypeAlias

__all__ = [
    "IPAddress",
    "InvalidNumericHostError",
    "blocked_range",
    "parse_ipv4_host",
]

IPAddress: TypeAlias = ipaddress.IPv4Address | ipaddress.IPv6Address

_N4 = ipaddress.IPv4Network
_N6 = ipaddress.IPv6Network

_IPV4_BLOCKED: tuple[tuple[ipaddress.IPv4Network, str], ...] = (
    (_N4("0.0.0.0/8"), "unspecified / this network (RFC 791)"),
    (_N4("10.0.0.0/8"), "private (RFC 1918)"),
    (_N4("100.64.0.0/10"), "shared address space / CGNAT (RFC 6598)"),
    (_N4("127.0.0.0/8"), "loopback (RFC 1122)"),
    (_N4("169.254.0.0/16"), "link-local (RFC 3927)"),
    (_N4("172.16.0.0/12"), "private (RFC 1918)"),
    (_N4("192.0.0.0/24"), "IETF protocol assignments (RFC 6890)"),
    (_N4("192.0.2.0/24"), "documentation TEST-NET-1 (RFC 5737)"),
    (_N4("192.88.99.0/24"), "6to4 relay anycast, deprecated (RFC 7526)"),
    (_N4("192.168.0.0/16"), "private (RFC 1918)"),
    (_N4("198.18.0.0/15"), "benchmarking (RFC 2544)"),
    (_N4("198.51.100.0/24"), "documentation TEST-NET-2 (RFC 5737)"),
    (_N4("203.0.113.0/24"), "documentation TEST-NET-3 (RFC 5737)"),
    (_N4("224.0.0.0/4"), "multicast (RFC 5771)"),
    (_N4("240.0.0.0/4"), "reserved (RFC 1112)"),
)

_IPV6_BLOCKED: tuple[tuple[ipaddress.IPv6Network, str], ...] = (
    (_N6("::/128"), "unspecified (RFC 4291)"),
    (_N6("::1/128"), "loopback (RFC 4291)"),
    (_N6("::ffff:0:0/96"), "IPv4-mapped (RFC 4291)"),
    (_N6("::/96"), "IPv4-compatible, deprecated (RFC 4291)"),
    (_N6("64:ff9b:1::/48"), "local-use NAT64 (RFC 8215)"),
    (_N6("100::/64"), "discard-only (RFC 6666)"),
    (_N6("2001::/32"), "Teredo (RFC 4380)"),
    (_N6("2001::/23"), "IETF protocol assignments (RFC 2928)"),
    (_N6("2001:db8::/32"), "documentation (RFC 3849)"),
    (_N6("3fff::/20"), "documentation (RFC 9637)"),
    (_N6("5f00::/16"), "SRv6 SIDs (RFC 9602)"),
    (_N6("fc00::/7"), "unique local (RFC 4193)"),
    (_N6("fe80::/10"), "link-local (RFC 4291)"),
    (_N6("fec0::/10"), "site-local, deprecated (RFC 3879)"),
    (_N6("ff00::/8"), "multicast (RFC 4291)"),
)

_NAT64 = _N6("64:ff9b::/96")
_GLOBAL_UNICAST = _N6("2000::/3")


class InvalidNumericHostError(ValueError):
    """A host that ends in a number (so resolvers read it as an IPv4 address) but is not a valid
    one, e.g. ``425.510.425.510``, ``0x41414141A9FEA9FE`` or ``q177.0.0.1``."""


def _ipv4_number(part: str) -> int | None:
    """WHATWG "IPv4 number parser": ``0x``/``0X`` hex, leading ``0`` octal, else decimal."""
    if part[:2] in ("0x", "0X"):
        digits, base, alphabet = part[2:], 16, string.hexdigits
    elif len(part) > 1 and part[0] == "0":
        digits, base, alphabet = part[1:], 8, "01234567"
    else:
        digits, base, alphabet = part, 10, string.digits
    if digits == "":
        return 0
    if not all(char in alphabet for char in digits):
        return None
    return int(digits, base)


def parse_ipv4_host(host: str) -> ipaddress.IPv4Address | None:
    """Read ``host`` as an IPv4 address the way the WHATWG URL Standard and ``inet_aton`` do.

    Args:
        host: An ASCII host name (no brackets), any case, optional trailing dot.

    Returns:
        The address when ``host`` is an IPv4 literal in any spelling (``127.1``,
        ``2130706433``, ``0x7f.0.0.1``, ``0177.0.0.1``); None when ``host`` is a domain name
        (its last label is not numeric).

    Raises:
        InvalidNumericHostError: The last label is numeric but the whole is not a valid
            address (a part over 255, over four parts, a value over 2**32, a non-number part).
    """
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    last = parts[-1]
    if last == "" or _ipv4_number(last) is None:
        return None
    if len(parts) > 4 or any(part == "" for part in parts):
        raise InvalidNumericHostError(f"{host!r} ends in a number but is not an IPv4 address")
    numbers: list[int] = []
    for part in parts:
        number = _ipv4_number(part)
        if number is None:
            raise InvalidNumericHostError(f"{host!r}: {part!r} is not an IPv4 number")
        numbers.append(number)
    if any(number > 255 for number in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise InvalidNumericHostError(f"{host!r}: an IPv4 part is out of range")
    value = numbers[-1]
    for index, number in enumerate(numbers[:-1]):
        value += number * 256 ** (3 - index)
    return ipaddress.IPv4Address(value)


def _blocked_v4(address: ipaddress.IPv4Address) -> str | None:
    for network, name in _IPV4_BLOCKED:
        if address in network:
            return name
    if not address.is_global:
        return "not globally routable (ipaddress.is_global)"
    return None


def _embedded_v4(address: ipaddress.IPv6Address) -> list[tuple[str, ipaddress.IPv4Address]]:
    embedded: list[tuple[str, ipaddress.IPv4Address]] = []
    if address.ipv4_mapped is not None:
        embedded.append(("IPv4-mapped", address.ipv4_mapped))
    packed = address.packed
    if packed[:12] == bytes(12) and int(address) > 1:
        embedded.append(("IPv4-compatible", ipaddress.IPv4Address(packed[12:])))
    if address in _NAT64:
        embedded.append(("NAT64", ipaddress.IPv4Address(packed[12:])))
    if address.sixtofour is not None:
        embedded.append(("6to4", address.sixtofour))
    if address.teredo is not None:
        server, client = address.teredo
        embedded.extend((("Teredo server", server), ("Teredo client", client)))
    return embedded


def blocked_range(address: IPAddress) -> str | None:
    """Name the special-purpose range ``address`` lies in, or None when it may be reached.

    Args:
        address: An IPv4 or IPv6 address (an IPv6 scope id is ignored).

    Returns:
        A human-readable range name with its RFC, e.g. ``"loopback (RFC 1122)"`` or
        ``"IPv4-mapped 127.0.0.1: loopback (RFC 1122)"``; None for a globally routable unicast
        address. IPv6 is allowed only inside global unicast ``2000::/3`` (or NAT64
        ``64:ff9b::/96`` with a public embedded address).
    """
    if isinstance(address, ipaddress.IPv4Address):
        return _blocked_v4(address)
    if address.scope_id is not None:
        address = ipaddress.IPv6Address(address.compressed.split("%")[0])
    for how, v4 in _embedded_v4(address):
        reason = _blocked_v4(v4)
        if reason is not None:
            return f"{how} {v4}: {reason}"
    for network, name in _IPV6_BLOCKED:
        if address in network:
            return name
    if address in _NAT64:
        return None
    if address not in _GLOBAL_UNICAST:
        return "reserved IPv6 space outside global unicast 2000::/3 (RFC 4291)"
    if not address.is_global:
        return "not globally routable (ipaddress.is_global)"
    return None
