"""Attack corpora against the host guards (seed 000, "Egress Policy", "Path Containment").

Reads ``ssrf_urls.txt`` and ``path_traversal.txt`` from ``$ROBOTA_CORPORA_DIR`` (default: the
``shared/corpora`` folder beside the repository). Every SSRF line must be refused by a guarded
fetch and every traversal string kept inside the root. Run with ``-s`` to see the counts line
``corpus: tried=N refused=M bypassed=B``.

The corpora are a sample; the classes they stand for are covered by the property tests in
``test_host_egress.py`` and ``test_host_paths.py``.

The network is modelled, never touched:

* The resolver is an offline one. Wildcard-DNS services answer with the address embedded in
  the name (``169.254.169.254.nip.io``, ``10-0-0-1.sslip.io``); known loopback aliases
  (``localtest.me``, ``lvh.me``, ``vcap.me`` and subdomains) answer 127.0.0.1; the ``r3dir.me``
  redirect service answers a public address. Any other name does not resolve, as in the
  offline sandbox (so a bare public name such as ``google.com`` is refused as unresolvable
  here; see ``unresolvable`` in the per-reason line).
* The HTTP side is an ``httpx.MockTransport``: ``*.302.r3dir.me`` answers a 302 to the cloud
  metadata address (what the service is used for in the source corpus); any other request that
  reaches it is a bypass.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import urllib.parse
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import httpx
import pytest
from robota.core.host.egress import EgressPolicy, IPAddress
from robota.core.host.egress_client import EgressGuardedClient
from robota.core.host.errors import PathContainmentError
from robota.core.host.paths import resolve_inside

_DEFAULT_DIR = Path(__file__).resolve().parents[3].parent / "shared" / "corpora"
CORPORA = Path(os.environ.get("ROBOTA_CORPORA_DIR", str(_DEFAULT_DIR)))

_WILDCARD_SUFFIXES = (".nip.io", ".sslip.io", ".xip.io")
_LOOPBACK_ALIASES = ("localtest.me", "lvh.me", "vcap.me")
_R3DIR_ADDRESS = "93.184.216.34"
_METADATA_URL = "http://169.254.169.254/latest/meta-data/"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _lines(name: str) -> list[str]:
    path = CORPORA / name
    if not path.is_file():
        pytest.skip(f"corpus {path} not present (set ROBOTA_CORPORA_DIR)")
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def _embedded_address(prefix: str) -> IPAddress | None:
    labels = prefix.split(".")
    candidates = [".".join(labels[-4:]), labels[-1].rsplit("-", 4)[-4:], labels[-1]]
    for candidate in candidates:
        text = ".".join(candidate) if isinstance(candidate, list) else candidate
        try:
            return ipaddress.ip_address(text)
        except ValueError:
            pass
    try:
        return ipaddress.IPv4Address(int(labels[-1].rsplit("-", 1)[-1], 16))
    except ValueError:
        return None


async def offline_resolver(host: str, port: int, /) -> Sequence[IPAddress]:
    """Resolve the way the public services in the corpus do, without a network."""
    for suffix in _WILDCARD_SUFFIXES:
        if host.endswith(suffix):
            embedded = _embedded_address(host.removesuffix(suffix))
            if embedded is not None:
                return [embedded]
    if any(host == alias or host.endswith("." + alias) for alias in _LOOPBACK_ALIASES):
        return [ipaddress.ip_address("127.0.0.1")]
    if host.endswith(".r3dir.me"):
        return [ipaddress.ip_address(_R3DIR_ADDRESS)]
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known (offline)")


def _network(request: httpx.Request) -> httpx.Response:
    host = request.headers.get("host", "")
    if host.endswith(".r3dir.me"):
        status = int(host.split(".")[-3]) if host.split(".")[-3].isdigit() else 302
        return httpx.Response(status, headers={"location": _METADATA_URL})
    return httpx.Response(200, text="REACHED")


@pytest.mark.anyio
async def test_offline_resolver_models_wildcard_dns() -> None:
    assert await offline_resolver("169.254.169.254.nip.io", 80) == [
        ipaddress.ip_address("169.254.169.254")
    ]
    assert await offline_resolver("app-10-0-0-1.sslip.io", 80) == [ipaddress.ip_address("10.0.0.1")]
    assert await offline_resolver("app.localtest.me", 80) == [ipaddress.ip_address("127.0.0.1")]
    with pytest.raises(socket.gaierror):
        await offline_resolver("example.org", 80)


@pytest.mark.anyio
async def test_ssrf_corpus_is_refused() -> None:
    lines = _lines("ssrf_urls.txt")
    policy = EgressPolicy(resolver=offline_resolver)
    reasons: Counter[str] = Counter()
    bypassed: list[str] = []
    async with httpx.AsyncClient(transport=httpx.MockTransport(_network)) as client:
        guarded = EgressGuardedClient(client, policy)
        for url in lines:
            result = await guarded.fetch(url)
            if result.kind == "refused":
                hop = "redirect:" if result.redirects else ""
                reasons[hop + result.decision.reason.value] += 1
            else:
                bypassed.append(url)
    refused = sum(reasons.values())
    print(f"corpus[ssrf_urls.txt]: tried={len(lines)} refused={refused} bypassed={len(bypassed)}")
    print(
        "corpus[ssrf_urls.txt] reasons: "
        + ", ".join(f"{k}={v}" for k, v in sorted(reasons.items()))
    )
    assert bypassed == []
    assert refused == len(lines)
    _record("ssrf", len(lines), refused, len(bypassed))


def _is_within(root: Path, path: Path) -> bool:
    real_root = os.path.realpath(root)
    return os.path.commonpath([real_root, os.path.realpath(path)]) == real_root


def test_path_traversal_corpus_stays_inside(tmp_path: Path) -> None:
    lines = _lines("path_traversal.txt")
    root = tmp_path / "srv" / "app" / "workspace"
    root.mkdir(parents=True)
    (tmp_path / "srv" / "etc").mkdir()
    (tmp_path / "srv" / "etc" / "passwd").write_text("secret")
    tried = refused = contained = 0
    bypassed: list[str] = []
    for line in lines:
        raw = line.replace("{FILE}", "etc/passwd")
        # As given (nothing is decoded), and as a caller that percent-decoded once would pass it.
        for candidate in (raw, urllib.parse.unquote(raw)):
            tried += 1
            try:
                resolved = resolve_inside(root, candidate)
            except PathContainmentError:
                refused += 1
                continue
            if _is_within(root, resolved):
                contained += 1
            else:
                bypassed.append(candidate)
    print(
        f"corpus[path_traversal.txt]: tried={tried} refused={refused} "
        f"contained={contained} bypassed={len(bypassed)}"
    )
    assert bypassed == []
    assert refused > 0
    _record("paths", tried, refused + contained, len(bypassed))


_TOTALS: dict[str, tuple[int, int, int]] = {}


def _record(name: str, tried: int, refused: int, bypassed: int) -> None:
    _TOTALS[name] = (tried, refused, bypassed)
    if len(_TOTALS) == 2:
        tried_all = sum(t for t, _, _ in _TOTALS.values())
        refused_all = sum(r for _, r, _ in _TOTALS.values())
        bypassed_all = sum(b for _, _, b in _TOTALS.values())
        print(f"corpus: tried={tried_all} refused={refused_all} bypassed={bypassed_all}")
