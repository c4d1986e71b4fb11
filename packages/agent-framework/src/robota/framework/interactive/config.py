"""What a host gives an :class:`~robota.framework.interactive.session.InteractiveSession`
(seed 003: every location is host-supplied; persistence is explicit; the provider comes from the
caller; restricted trust is the default)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from robota.core.capabilities import HostedTool
from robota.core.errors import ConfigurationError
from robota.core.events import EventSink
from robota.core.gate import ToolGate
from robota.core.host.credentials import CredentialStore
from robota.core.host.sandbox import Sandbox
from robota.core.journal import Journal
from robota.core.permissions import Approver, PermissionMode
from robota.core.provider import Provider
from robota.core.settings import ModelSettings
from robota.core.tools.base import Tool
from robota.framework.interactive.chain import chain_of
from robota.framework.mcp import McpApprovalStore, McpApprover, McpToolFilter, McpToolGate
from robota.framework.settings import Settings
from robota.framework.trust.access import TrustedWorkspace, WorkspaceAuthorityError
from robota.session import EventLog, SessionStore

__all__ = ["SessionConfig"]


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionConfig:
    """Configuration of one interactive session.

    Attributes:
        provider: The provider instance (the framework never builds one). A
            :class:`~robota.framework.fallback.FallbackProvider` (or a decorator wrapping one)
            makes the chain the session's: one run scope per turn, compaction by the chain's
            compaction rule, no agent-level retries (see :mod:`.chain`).
        model: Model id (with a fallback chain: the chain's primary model).
        workspace: Root every built-in tool is contained in.
        system_prompt: Base system prompt (instruction files are appended when trusted).
        trusted: The trust decision: a :class:`~robota.framework.trust.TrustedWorkspace`
            (the trusted root, checked to cover ``workspace`` — canonical, symlinks followed —
            when the config is built, else :class:`WorkspaceAuthorityError`), ``True`` (the
            host asserts ``workspace`` itself is the trusted root), or ``False`` (restricted:
            no project instruction files, settings or agents).
        instruction_roots: Folders searched for AGENTS.md / CLAUDE.md (only when trusted;
            user-level roots go in ``user_instruction_roots``).
        user_instruction_roots: Folders searched regardless of trust (the host's own).
        settings: Merged settings (permissions, hooks).
        permission_mode: Overrides ``settings.permissions.default_mode``.
        approver: Who answers permission asks (None: an ask is a denial).
        default_tools: Replaces the framework's default tool tier when not None (pass ``()``
            for no built-ins).
        additional_tools: Appended after the default tier; never displaces a tool of the same
            name (the earlier one wins).
        extra_gates: Gates run after permissions and hooks (before checkpoints).
        store: Session store; None disables persistence.
        event_log: JSONL event log; None disables it.
        journal: Execution journal for crash recovery; None disables it.
        background_dir: Folder for background shell output (a private temp folder when None).
        model_settings: Agent-level model settings.
        max_rounds: Round budget per turn (0: none).
        accept_truncated: Use an answer cut at the output token limit instead of failing the
            turn with :class:`~robota.core.errors.TruncatedResponseError`.
        sinks: Observers of every event.
        title: Name the session after its first successful turn.
        title_provider: Provider for the title call (default: ``provider``); a host may pass
            one without retries, since a title is best-effort.
        checkpoint_dir: Folder for edit checkpoints (owner-only); None keeps them in memory.
        agent_roots: Folders with subagent definition files (``*.md``), highest precedence
            first; project folders are read only when trusted (put them in
            ``project_agent_roots``).
        project_agent_roots: Subagent definition folders inside the workspace (trusted only).
        auto_compact: Compact automatically after a turn whose request used more than this
            fraction of the model's context window (None: never; needs a known window).
        overflow_recovery: On a provider-reported context overflow, elide old tool output in
            the request and retry (bounded) before failing the turn.
        subagents: Offer the ``agent`` tool (built-in definitions plus the roots above) as
            part of the default tier (so not when ``default_tools`` replaces the tier).
        sandbox: The sandbox the built-in ``shell`` runs commands in (the host owns it). None:
            the session probes one when it starts (``robota.tools.sandbox.detect_sandbox``)
            and closes it at shutdown; pass ``NoSandbox(...)`` to run commands unconfined
            (read-only command lines then ask instead of being auto-approved). Not probed when
            ``default_tools`` replaces the built-ins. Network access inside it comes from
            ``settings.sandbox.network``.
        sandbox_hidden_paths: Host paths masked inside the sandbox (the host's state folder
            with its credentials, e.g. ``~/.robota``); used when the session probes.
        lease_ttl: Seconds the session's store lease lasts without renewal (issue #15, "one
            session, one writer"): a running turn renews it every third of this; a host that
            died blocks others for at most this long; an idle session may be taken over by
            another host after this long. Must be > 0.
        hosted_tools: Vendor-run tools (:class:`~robota.core.capabilities.HostedTool`, e.g.
            web search) put on every normal round's request of every turn; checked against
            the model's stated capabilities before each turn's first request (refused with
            :class:`~robota.core.errors.UnsupportedCapabilityError`, nothing sent). Change them
            between turns with :meth:`InteractiveSession.set_hosted_tools`.
        mcp_approvals: Where answers about a project's MCP servers are remembered (per
            workspace, server and definition; :class:`~robota.framework.mcp.McpApprovalStore`).
            None: not remembered (asked in every session when ``mcp_approver`` is set).
        mcp_approver: Asks the user whether a project's MCP server may start (when the session
            opens, once per definition); None leaves such servers ``awaiting-approval``.
        mcp_env: Where ``${VAR}`` references in MCP server definitions are read (None:
            ``os.environ``).
        mcp_tool_filter: Shapes each connected MCP server's offered tools at runtime (seed 004,
            ``mcp:tools:filter``; :data:`~robota.framework.mcp.McpToolFilter`).
        mcp_tool_gate: Called before each MCP tool call; may deny it (seed 004,
            ``mcp:tool:gate``; :data:`~robota.framework.mcp.McpToolGate`; fails closed).
        mcp_credentials: Where OAuth tokens of HTTP MCP servers are kept (a keychain or the
            owner-only credentials file; :mod:`robota.framework.mcp.oauth`). An HTTP server
            with stored tokens connects with them (refreshed when expired); the session never
            starts a login (a server wanting one shows ``needs-login``). None: no OAuth.
    """

    provider: Provider
    model: str
    workspace: Path
    system_prompt: str | None = None
    trusted: bool | TrustedWorkspace = False
    instruction_roots: Sequence[Path] = ()
    user_instruction_roots: Sequence[Path] = ()
    settings: Settings = field(default_factory=Settings)
    permission_mode: PermissionMode | None = None
    approver: Approver | None = None
    default_tools: Sequence[Tool] | None = None
    additional_tools: Sequence[Tool] = ()
    extra_gates: Sequence[ToolGate] = ()
    store: SessionStore | None = None
    event_log: EventLog | None = None
    journal: Journal | None = None
    background_dir: Path | None = None
    model_settings: ModelSettings | None = None
    max_rounds: int = 25
    accept_truncated: bool = False
    sinks: Sequence[EventSink] = ()
    title: bool = True
    title_provider: Provider | None = None
    checkpoint_dir: Path | None = None
    agent_roots: Sequence[Path] = ()
    project_agent_roots: Sequence[Path] = ()
    subagents: bool = True
    auto_compact: float | None = 0.8
    overflow_recovery: bool = True
    sandbox: Sandbox | None = None
    sandbox_hidden_paths: Sequence[Path] = ()
    lease_ttl: float = 60.0
    hosted_tools: frozenset[HostedTool] = frozenset()
    mcp_approvals: McpApprovalStore | None = None
    mcp_approver: McpApprover | None = None
    mcp_env: Mapping[str, str] | None = None
    mcp_tool_filter: McpToolFilter | None = None
    mcp_tool_gate: McpToolGate | None = None
    mcp_credentials: CredentialStore | None = None

    def __post_init__(self) -> None:
        """Refuse a trust decision that does not cover the workspace (seed 003, "No public
        project-path helper"; issue #13) and a lease TTL that is not positive.

        Raises:
            WorkspaceAuthorityError: ``trusted`` does not cover ``workspace``.
            ConfigurationError: ``lease_ttl`` <= 0, or ``provider`` is a fallback chain whose
                primary model is not ``model``.
        """
        if not self.lease_ttl > 0:
            raise ConfigurationError(f"lease_ttl must be > 0 seconds, got {self.lease_ttl}")
        chain = chain_of(self.provider)
        if chain is not None and chain.chain_models[0] != self.model:
            raise ConfigurationError(
                f"the session's model {self.model!r} is not its fallback chain's primary "
                f"{chain.chain_models[0]!r}; a chain asks each entry for its own model, so pass "
                "model=<the primary's model>"
            )
        if isinstance(self.trusted, TrustedWorkspace) and not self.trusted.covers(self.workspace):
            raise WorkspaceAuthorityError(self.trusted.root, self.workspace.resolve())
