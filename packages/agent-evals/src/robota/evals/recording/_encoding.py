"""Undo a response's ``content-encoding`` (RFC 9110 §8.4) for the recorded copy, so a cassette
holds the body as the client read it (``load_cassette`` drops ``content-encoding`` and serves
the body as stored).

The codings are those ``httpx`` undoes for the live client: ``gzip``, ``deflate`` and
``identity`` always (the standard library), ``br`` where ``brotli`` or ``brotlicffi`` is
installed and ``zstd`` where ``zstandard`` is (``httpx`` only asks for those when they are).
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["decoded_body"]


def _gzip(data: bytes) -> bytes:
    return zlib.decompress(data, zlib.MAX_WBITS | 16)


def _deflate(data: bytes) -> bytes:
    try:
        return zlib.decompress(data)
    except zlib.error:
        return zlib.decompress(data, -zlib.MAX_WBITS)  # raw deflate, as some servers send


def _optional(*modules: str) -> Any:
    for name in modules:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


def _brotli(data: bytes) -> bytes:
    module = _optional("brotli", "brotlicffi")
    if module is None:
        raise ValueError("br needs brotli or brotlicffi")
    return bytes(module.decompress(data))


def _zstd(data: bytes) -> bytes:
    module = _optional("zstandard")
    if module is None:
        raise ValueError("zstd needs zstandard")
    out: list[bytes] = []
    while data:
        decompressor = module.ZstdDecompressor().decompressobj()
        out.append(bytes(decompressor.decompress(data)))
        data = bytes(decompressor.unused_data)
    return b"".join(out)


_CODINGS: dict[str, Callable[[bytes], bytes]] = {
    "identity": lambda data: data,
    "gzip": _gzip,
    "x-gzip": _gzip,
    "deflate": _deflate,
    "br": _brotli,
    "zstd": _zstd,
}


def decoded_body(
    body: bytes, headers: Mapping[str, list[str]]
) -> tuple[bytes, dict[str, list[str]]]:
    """``body`` with its content codings undone (the last applied first), and ``headers``
    without ``content-encoding`` and the now wrong ``content-length``.

    A coding that is unknown, or whose package is not installed, or a body that does not
    decode, leaves both as they came (the live client could not read that body either).

    Example:
        >>> import gzip
        >>> decoded_body(gzip.compress(b"hi"), {"content-encoding": ["gzip"]})
        (b'hi', {})
    """
    codings = [
        coding.strip().lower()
        for name, values in headers.items()
        if name.lower() == "content-encoding"
        for value in values
        for coding in value.split(",")
        if coding.strip()
    ]
    if not codings or not body or any(coding not in _CODINGS for coding in codings):
        return body, dict(headers)
    content = body
    try:
        for coding in reversed(codings):
            content = _CODINGS[coding](content)
    except (ValueError, zlib.error):
        return body, dict(headers)
    kept = {
        name: values
        for name, values in headers.items()
        if name.lower() not in ("content-encoding", "content-length")
    }
    return content, kept
