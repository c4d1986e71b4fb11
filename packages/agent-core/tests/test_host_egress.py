"""Egress policy (seed 000, "Egress Policy"): classification of URL hosts in every spelling."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from robota.core.host.egress import EgressDecision, EgressPolicy, EgressReason, IPAddress


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class _TableResolver:
    """Resolver over a fixed table; unknown names fail like NXDOMAIN."""

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table
        self.calls: list[str] = []

    async def __call__(self, host: str, port: int, /) -> Sequence[IPAddress]:
        self.calls.append(host)
        if host not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [ipaddress.ip_address(answer) for answer in self.table[host]]


def _static(url: str) -> EgressDecision | None:
    return EgressPolicy().check_without_resolving(url)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://example.com/", EgressReason.SCHEME_NOT_ALLOWED),
        ("file:///etc/passwd", EgressReason.SCHEME_NOT_ALLOWED),
        ("example.com/path", EgressReason.SCHEME_NOT_ALLOWED),
        ("http://[::1", EgressReason.INVALID_URL),
        ("http://127.0.0.1:99999/", EgressReason.INVALID_URL),
        ("http://127.0.0.1/", EgressReason.BLOCKED_ADDRESS),
        ("http://127.1/", EgressReason.BLOCKED_ADDRESS),
        ("http://2130706433/", EgressReason.BLOCKED_ADDRESS),
        ("http://0x7f.1/", EgressReason.BLOCKED_ADDRESS),
        ("http://0177.1/", EgressReason.BLOCKED_ADDRESS),
        ("http://0x7F000001/", EgressReason.BLOCKED_ADDRESS),
        ("http://127.0.0.1./", EgressReason.BLOCKED_ADDRESS),
        ("http://[::ffff:7f00:1]/", EgressReason.BLOCKED_ADDRESS),
        ("http://[::ffff:127.0.0.1]/", EgressReason.BLOCKED_ADDRESS),
        ("http://[::127.0.0.1]/", EgressReason.BLOCKED_ADDRESS),
        ("http://[64:ff9b::10.0.0.1]/", EgressReason.BLOCKED_ADDRESS),
        ("http://[2002:c0a8:0101::1]/", EgressReason.BLOCKED_ADDRESS),
        ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", EgressReason.BLOCKED_ADDRESS),
        ("http://[fd00:ec2::254]/", EgressReason.BLOCKED_ADDRESS),
        ("http://[fec0::1]/", EgressReason.BLOCKED_ADDRESS),
        ("http://[fe80::1%25eth0]/", EgressReason.BLOCKED_ADDRESS),
        ("http://[ff02::1]/", EgressReason.BLOCKED_ADDRESS),
        ("http://[::]/", EgressReason.BLOCKED_ADDRESS),
        ("http://100.100.100.200/", EgressReason.BLOCKED_ADDRESS),
        ("http://169.254.169.254/latest/meta-data/", EgressReason.BLOCKED_ADDRESS),
        ("http://192.0.0.192/", EgressReason.BLOCKED_ADDRESS),
        ("http://198.18.0.1/", EgressReason.BLOCKED_ADDRESS),
        ("http://224.0.0.1/", EgressReason.BLOCKED_ADDRESS),
        ("http://255.255.255.255/", EgressReason.BLOCKED_ADDRESS),
        ("http://0.0.0.0/", EgressReason.BLOCKED_ADDRESS),
        ("http://425.510.425.510/", EgressReason.INVALID_URL),
        ("http://0x41414141A9FEA9FE/", EgressReason.INVALID_HOST),
        ("http://7147006462/", EgressReason.INVALID_HOST),
        ("http://q177.0.0.1/", EgressReason.INVALID_HOST),
        ("http://%31%32%37.0.0.1/", EgressReason.INVALID_HOST),
        ("http://localhost/", EgressReason.BLOCKED_HOSTNAME),
        ("http://LOCALHOST./", EgressReason.BLOCKED_HOSTNAME),
        ("http://api.localhost/", EgressReason.BLOCKED_HOSTNAME),
        ("http://metadata.google.internal/", EgressReason.BLOCKED_HOSTNAME),
        ("http://metadata.goog/", EgressReason.BLOCKED_HOSTNAME),
        ("http://instance-data/", EgressReason.BLOCKED_HOSTNAME),
        ("http://printer.local/", EgressReason.BLOCKED_HOSTNAME),
        ("http://router.home.arpa/", EgressReason.BLOCKED_HOSTNAME),
        ("http://intranet/", EgressReason.SINGLE_LABEL_HOST),
        ("http://user@example.com/", EgressReason.USERINFO_NOT_ALLOWED),
        ("http://user:pw@127.0.0.1/", EgressReason.BLOCKED_ADDRESS),
        ("http://a@b@10.0.0.1/", EgressReason.BLOCKED_ADDRESS),
        ("http://google.com:80+&@127.88.23.245:22/#+@google.com:80/", EgressReason.BLOCKED_ADDRESS),
    ],
)
def test_refusals_without_dns(url: str, reason: EgressReason) -> None:
    decision = _static(url)
    assert decision is not None
    assert decision.allowed is False
    assert decision.reason is reason


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("http://8.8.8.8/", "8.8.8.8"),
        ("https://134744072/", "8.8.8.8"),
        ("http://0x08080808/", "8.8.8.8"),
        ("https://[2606:4700:4700::1111]/", "2606:4700:4700::1111"),
        ("http://[64:ff9b::8.8.8.8]/", "64:ff9b::808:808"),
    ],
)
def test_public_literals_are_allowed_with_their_address(url: str, address: str) -> None:
    decision = _static(url)
    assert decision is not None
    assert decision.allowed is True
    assert decision.reason is EgressReason.ALLOWED
    assert decision.addresses == (ipaddress.ip_address(address),)


def test_mapped_loopback_names_the_embedded_address() -> None:
    decision = _static("http://[::ffff:7f00:1]/")
    assert decision is not None
    assert decision.detail == "IPv4-mapped 127.0.0.1: loopback (RFC 1122)"


@pytest.mark.anyio
async def test_name_is_resolved_and_any_private_answer_refuses() -> None:
    resolver = _TableResolver({"mixed.example": ["93.184.216.34", "10.0.0.7"]})
    decision = await EgressPolicy(resolver=resolver).check("https://mixed.example/a")
    assert decision.allowed is False
    assert decision.reason is EgressReason.RESOLVES_TO_BLOCKED
    assert decision.host == "mixed.example"
    assert decision.port == 443
    assert "10.0.0.7: private (RFC 1918)" in decision.detail


@pytest.mark.anyio
async def test_public_name_is_allowed_with_every_answer() -> None:
    resolver = _TableResolver({"example.com": ["93.184.216.34", "2606:2800:220:1::1"]})
    decision = await EgressPolicy(resolver=resolver).check("http://example.com:8080/")
    assert decision.allowed is True
    assert decision.port == 8080
    assert decision.addresses == (
        ipaddress.ip_address("93.184.216.34"),
        ipaddress.ip_address("2606:2800:220:1::1"),
    )


@pytest.mark.anyio
async def test_unresolvable_name_is_refused_and_literals_are_not_resolved() -> None:
    resolver = _TableResolver({})
    policy = EgressPolicy(resolver=resolver)
    decision = await policy.check("http://nowhere.example/")
    assert decision.reason is EgressReason.UNRESOLVABLE
    assert (await policy.check("http://8.8.8.8/")).allowed is True
    assert (await policy.check("http://localhost/")).reason is EgressReason.BLOCKED_HOSTNAME
    assert resolver.calls == ["nowhere.example"]


@pytest.mark.anyio
async def test_idna_name_is_resolved_in_ascii_form() -> None:
    resolver = _TableResolver({"xn--bcher-kva.example": ["93.184.216.34"]})
    decision = await EgressPolicy(resolver=resolver).check("https://Bücher.example/")
    assert decision.allowed is True
    assert decision.host == "xn--bcher-kva.example"


# --- property tests: every private address in every spelling is refused ----------------------

_V4_BLOCKED = [
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "224.0.0.0/4",
    "240.0.0.0/4",
]
_V6_BLOCKED = ["::1/128", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8", "2001:db8::/32"]


def _in(network: str) -> st.SearchStrategy[IPAddress]:
    net = ipaddress.ip_network(network)
    first = int(net.network_address)
    return st.integers(first, first + net.num_addresses - 1).map(ipaddress.ip_address)


_blocked_v4 = st.sampled_from(_V4_BLOCKED).flatmap(_in)
_blocked_v6 = st.sampled_from(_V6_BLOCKED).flatmap(_in)


def _v4_spellings(address: ipaddress.IPv4Address) -> list[str]:
    value = int(address)
    octets = [int(part) for part in str(address).split(".")]
    hex_words = f"{value >> 16:x}:{value & 0xFFFF:x}"
    return [
        str(address),
        str(address) + ".",
        str(value),
        hex(value),
        hex(value).upper().replace("X", "x"),
        ".".join(hex(octet) for octet in octets),
        ".".join("0" + format(octet, "o") for octet in octets),
        f"{octets[0]}.{octets[1]}.{(octets[2] << 8) | octets[3]}",
        f"{octets[0]}.{(octets[1] << 16) | (octets[2] << 8) | octets[3]}",
        f"0{octets[0]:o}.{value & 0xFFFFFF}",
        f"[::ffff:{address}]",
        f"[::ffff:{hex_words}]",
        f"[0:0:0:0:0:ffff:{address}]",
        f"[::{address}]" if value > 1 else f"[::ffff:{address}]",
        f"[64:ff9b::{address}]",
        f"[2002:{hex_words}::1]",
    ]


@settings(max_examples=400, deadline=None)
@given(address=_blocked_v4)
def test_private_ipv4_refused_in_every_spelling(address: ipaddress.IPv4Address) -> None:
    for host in _v4_spellings(address):
        decision = _static(f"http://{host}/")
        assert decision is not None, host
        assert decision.allowed is False, (host, decision)


@settings(max_examples=300, deadline=None)
@given(address=_blocked_v6)
def test_private_ipv6_refused_bracketed_in_every_spelling(address: ipaddress.IPv6Address) -> None:
    for host in (address.compressed, address.exploded, address.exploded.upper()):
        decision = _static(f"https://[{host}]:8443/")
        assert decision is not None, host
        assert decision.allowed is False, (host, decision)


@settings(max_examples=200, deadline=None)
@given(address=_blocked_v4, public=st.sampled_from(["93.184.216.34", "2606:4700::1111"]))
def test_any_private_answer_among_public_ones_refuses(
    address: ipaddress.IPv4Address, public: str
) -> None:
    import anyio

    resolver = _TableResolver({"rebind.example": [public, str(address)]})
    decision = anyio.run(EgressPolicy(resolver=resolver).check, "http://rebind.example/")
    assert decision.reason is EgressReason.RESOLVES_TO_BLOCKED
