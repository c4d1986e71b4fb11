"""What the CLI does for a local llama.cpp server (an ``openai-compatible`` provider with the
``llamacpp`` compat profile): stop at chat-template tokens, and say once when the server's chat
template drops the tools.

llama.cpp's ``GET /props`` (tools/server/README.md, "GET /props") reports the loaded chat
template and, under ``chat_template_caps``, whether it renders tools (``supports_tools``). A
template without tool support makes the server drop the request's ``tools``: the model never
sees them and cannot call one, so the CLI says so before the turn instead of leaving the user to
wonder why nothing was read.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable

from robota.core.settings import ModelSettings
from robota.framework.settings import ResolvedProvider

__all__ = [
    "PROPS_TIMEOUT",
    "TEMPLATE_STOP_SEQUENCES",
    "TOOLS_DROPPED",
    "is_llamacpp",
    "local_model_settings",
    "props_url",
    "template_supports_tools",
    "warn_if_tools_dropped",
]

TEMPLATE_STOP_SEQUENCES: tuple[str, ...] = (
    "<|im_end|>",
    "<|im_start|>",
    "<end_of_turn>",
    "<start_of_turn>",
    "<|eot_id|>",
    "<|start_header_id|>",
    "<|endoftext|>",
    "<|end|>",
)
"""Chat-template markers (ChatML, Gemma, Llama 3, Phi) sent as stop sequences to a llama.cpp
server: a small model that writes one as text ends its answer there instead of printing it and
inventing the next turns. llama.cpp accepts any number of stop strings."""

PROPS_TIMEOUT = 2.0
"""Seconds the ``/props`` query may take before it is given up (silently)."""

TOOLS_DROPPED = (
    "the model server's chat template does not support tools; the model cannot call any "
    "(it only sees the text). The model's template has no tool support, even with "
    "`llama-server --jinja`: serve a model whose template renders tools, or give llama-server "
    "one with --chat-template-file (and --jinja)"
)
"""The line said (after ``robota: ``) when ``/props`` reports ``supports_tools: false``."""


def is_llamacpp(resolved: ResolvedProvider) -> bool:
    """True for an ``openai-compatible`` provider with the ``llamacpp`` compat profile (the
    profile an ``openai-compatible`` provider without one gets, see ``build_provider``)."""
    return resolved.type == "openai-compatible" and (resolved.compat_profile or "llamacpp") == (
        "llamacpp"
    )


def local_model_settings(
    resolved: ResolvedProvider, *, timeout: float | None
) -> ModelSettings | None:
    """The CLI's model settings: ``timeout`` (seconds, ``--timeout``) and, for llama.cpp,
    :data:`TEMPLATE_STOP_SEQUENCES`; None when neither applies.

    Example:
        >>> r = ResolvedProvider(profile="cli", type="openai-compatible", model="local",
        ...                      api_key=None, base_url="http://127.0.0.1:8080/v1",
        ...                      compat_profile="llamacpp")
        >>> settings = local_model_settings(r, timeout=30.0)
        >>> (settings.timeout, "<|im_end|>" in settings.stop)
        (30.0, True)
    """
    stop = TEMPLATE_STOP_SEQUENCES if is_llamacpp(resolved) else None
    if stop is None and timeout is None:
        return None
    return ModelSettings(timeout=timeout, stop=stop)


def props_url(base_url: str) -> str:
    """The ``/props`` URL of the server whose OpenAI-compatible base URL is ``base_url``.

    Example:
        >>> props_url("http://127.0.0.1:8080/v1/")
        'http://127.0.0.1:8080/props'
    """
    root = base_url.rstrip("/")
    return f"{root.removesuffix('/v1')}/props"


def template_supports_tools(base_url: str, *, timeout: float = PROPS_TIMEOUT) -> bool | None:
    """What the server's ``GET /props`` says of its chat template's tool support.

    Args:
        base_url: The OpenAI-compatible base URL (``http://HOST:PORT/v1``).
        timeout: Seconds for the whole query.

    Returns:
        ``chat_template_caps.supports_tools`` (a bool), or None when the server does not answer
        in time, answers with an error, or does not report it (not llama.cpp, an older build).
        Never raises.
    """
    try:
        with urllib.request.urlopen(props_url(base_url), timeout=timeout) as response:
            body: object = json.loads(response.read(1_000_000))
    except (OSError, ValueError, urllib.error.URLError):
        return None
    if not isinstance(body, dict):
        return None
    caps: object = body.get("chat_template_caps")  # pyright: ignore[reportUnknownMemberType]
    if not isinstance(caps, dict):
        return None
    value: object = caps.get("supports_tools")  # pyright: ignore[reportUnknownMemberType]
    return value if isinstance(value, bool) else None


def warn_if_tools_dropped(
    resolved: ResolvedProvider,
    say: Callable[[str], None],
    *,
    timeout: float = PROPS_TIMEOUT,
) -> bool:
    """For a llama.cpp provider, query ``/props`` once and say :data:`TOOLS_DROPPED` when its
    chat template has no tool support.

    Args:
        resolved: The resolved provider (other providers are not queried).
        say: Writes one ``robota: …`` line on standard error.
        timeout: Seconds the query may take.

    Returns:
        True when the line was said.
    """
    if not is_llamacpp(resolved) or not resolved.base_url:
        return False
    if template_supports_tools(resolved.base_url, timeout=timeout) is False:
        say(TOOLS_DROPPED)
        return True
    return False
