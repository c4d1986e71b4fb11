"""One-shot prompts (seed 003, ``createQuery({ provider })``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from robota.core.agent import RunResult
from robota.core.permissions import Approver, PermissionMode
from robota.core.provider import Provider
from robota.core.tools.base import Tool
from robota.framework.interactive.config import SessionConfig
from robota.framework.interactive.session import InteractiveSession
from robota.framework.settings import Settings

__all__ = ["create_query"]


def create_query(
    *,
    provider: Provider,
    model: str | None = None,
    workspace: str | Path,
    system_prompt: str | None = None,
    settings: Settings | None = None,
    permission_mode: PermissionMode | None = None,
    approver: Approver | None = None,
    default_tools: Sequence[Tool] | None = None,
    additional_tools: Sequence[Tool] = (),
    **options: Any,
) -> Any:
    """Build an async function ``query(prompt) -> RunResult`` that runs each prompt in a fresh,
    unpersisted session with the given provider.

    Example:
        >>> import anyio, tempfile
        >>> from robota.core.testing.scripted import ScriptedProvider
        >>> query = create_query(provider=ScriptedProvider(["4"]), model="m",
        ...                      workspace=tempfile.mkdtemp(), default_tools=())
        >>> anyio.run(query, "2+2?").text
        '4'

    Raises:
        ConfigurationError: when no model is given and the provider has no default model.
    """
    from robota.core.errors import ConfigurationError

    resolved = model or provider.default_model
    if not resolved:
        raise ConfigurationError("create_query needs a model (the provider has no default)")
    config = SessionConfig(
        provider=provider,
        model=resolved,
        workspace=Path(workspace),
        system_prompt=system_prompt,
        settings=settings or Settings(),
        permission_mode=permission_mode,
        approver=approver,
        default_tools=default_tools,
        additional_tools=additional_tools,
        title=False,
        **options,
    )

    async def query(prompt: str) -> RunResult:
        session = await InteractiveSession.start(config)
        try:
            return await session.submit(prompt)
        finally:
            await session.shutdown()

    return query
