"""Capability profiles of OpenAI-compatible Chat Completions servers (seed 002, "Providers and
model adapters").

Servers that speak ``/chat/completions`` differ in small ways: whether ``strict`` tool schemas are
accepted, whether ``stream_options.include_usage`` is honoured, whether tool-call arguments can
arrive as ``null``, which max-tokens field they read. A :class:`CompatProfile` states those facts
for one server; :data:`COMPAT_PROFILES` names the known ones, each with its documentation link.
An unknown profile name is refused (fail-closed) with
:class:`~robota.core.errors.ConfigurationError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from robota.core.errors import ConfigurationError

__all__ = ["COMPAT_PROFILES", "CompatProfile", "compat_profile"]


@dataclass(frozen=True, kw_only=True, slots=True)
class CompatProfile:
    """What one OpenAI-compatible server accepts on ``/chat/completions``.

    Attributes:
        name: Profile name, e.g. ``"ollama"``.
        source: Documentation URL the facts come from.
        supports_strict_tools: Accepts ``"strict": true`` on function tools.
        supports_stream_usage: Honours ``stream_options: {"include_usage": true}``.
        arguments_may_be_null: Tool-call ``arguments`` may arrive as null or ``""`` (read as
            ``{}``; Robota does this for every profile, the flag documents the server).
        supports_response_format_json_schema: Accepts ``response_format`` ``json_schema``.
        supports_json_object: Accepts ``response_format`` ``json_object``.
        supports_developer_role: Accepts ``role: "developer"`` (else ``system`` is sent).
        supports_parallel_tool_calls: Accepts the ``parallel_tool_calls`` flag.
        supports_reasoning_effort: Accepts ``reasoning_effort``.
        supports_seed: Accepts ``seed``.
        max_tokens_field: Which request field carries the output limit.
        stream_ends_with_done: The server ends a stream with ``data: [DONE]``, so a stream
            without it was cut and is refused (``MalformedResponseError``). Every named profile
            sends it (OpenAI, Ollama, llama.cpp, vLLM, OpenRouter, Groq, DeepSeek, Together, xAI
            and Cerebras document or emit it); set False only for a server that never does —
            then the first choice's ``finish_reason`` alone completes a stream.

    The profile's statements about the endpoint (strict tools, ``response_format`` support,
    parallel tool calls) are what a custom endpoint is credited with; the ``openai`` profile
    states them for OpenAI's own endpoint only (see ``OpenAIChatProvider``).

    Example:
        >>> CompatProfile(name="my-server", source="https://example.test/docs",
        ...               supports_strict_tools=False).supports_stream_usage
        True
    """

    name: str
    source: str
    supports_strict_tools: bool = True
    supports_stream_usage: bool = True
    arguments_may_be_null: bool = False
    supports_response_format_json_schema: bool = True
    supports_json_object: bool = True
    supports_developer_role: bool = True
    supports_parallel_tool_calls: bool = True
    supports_reasoning_effort: bool = True
    supports_seed: bool = True
    max_tokens_field: Literal["max_completion_tokens", "max_tokens"] = "max_completion_tokens"
    stream_ends_with_done: bool = True


COMPAT_PROFILES: Mapping[str, CompatProfile] = {
    profile.name: profile
    for profile in (
        CompatProfile(
            name="openai",
            source="https://platform.openai.com/docs/api-reference/chat/create",
        ),
        CompatProfile(
            name="ollama",
            source="https://github.com/ollama/ollama/blob/main/docs/openai.md",
            supports_strict_tools=False,
            arguments_may_be_null=True,
            supports_developer_role=False,
            supports_parallel_tool_calls=False,
            max_tokens_field="max_tokens",
        ),
        CompatProfile(
            name="llamacpp",
            source="https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md",
            supports_strict_tools=False,
            arguments_may_be_null=True,
            supports_developer_role=False,
            supports_reasoning_effort=False,
            max_tokens_field="max_tokens",
        ),
        CompatProfile(
            name="vllm",
            source="https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html",
            supports_strict_tools=False,
            arguments_may_be_null=True,
            supports_developer_role=False,
            max_tokens_field="max_tokens",
        ),
        CompatProfile(
            name="openrouter",
            source="https://openrouter.ai/docs/api-reference/parameters",
            arguments_may_be_null=True,
            supports_developer_role=False,
            max_tokens_field="max_tokens",
        ),
        CompatProfile(
            name="groq",
            source="https://console.groq.com/docs/openai",
            supports_strict_tools=False,
            supports_developer_role=False,
            max_tokens_field="max_completion_tokens",
        ),
        CompatProfile(
            name="deepseek",
            source="https://api-docs.deepseek.com/api/create-chat-completion",
            supports_strict_tools=False,
            supports_response_format_json_schema=False,
            supports_developer_role=False,
            supports_reasoning_effort=False,
            supports_seed=False,
            max_tokens_field="max_tokens",
        ),
        CompatProfile(
            name="together",
            source="https://docs.together.ai/docs/openai-api-compatibility",
            supports_strict_tools=False,
            supports_developer_role=False,
            max_tokens_field="max_tokens",
        ),
        CompatProfile(
            name="xai",
            source="https://docs.x.ai/docs/api-reference#chat-completions",
            supports_strict_tools=False,
            supports_developer_role=False,
            max_tokens_field="max_tokens",
        ),
        CompatProfile(
            name="cerebras",
            source="https://inference-docs.cerebras.ai/resources/openai",
            supports_developer_role=False,
            max_tokens_field="max_completion_tokens",
        ),
    )
}
"""Named server profiles. ``openai`` is OpenAI's own API."""


def compat_profile(profile: str | CompatProfile) -> CompatProfile:
    """Return the named profile, or ``profile`` itself when it is already a profile object.

    Raises:
        ConfigurationError: for a name not in :data:`COMPAT_PROFILES` (fail-closed: guessing a
            server's abilities would send fields it rejects).

    Example:
        >>> compat_profile("ollama").max_tokens_field
        'max_tokens'
    """
    if isinstance(profile, CompatProfile):
        return profile
    found = COMPAT_PROFILES.get(profile)
    if found is None:
        known = ", ".join(sorted(COMPAT_PROFILES))
        raise ConfigurationError(
            f"unknown OpenAI-compatible server profile {profile!r}; known: {known}, "
            "or pass a CompatProfile"
        )
    return found
