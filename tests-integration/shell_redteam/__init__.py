"""Red-team attempt tables and harness for ``test_shell_redteam.py`` (issue 11)."""

from shell_redteam.catastrophic import catastrophic_attempts
from shell_redteam.deny_rules import DENY_RULES, deny_rule_attempts
from shell_redteam.harness import (
    Configuration,
    LoopbackServer,
    Outcome,
    ToolFactory,
    loopback_server,
    run_configuration,
)
from shell_redteam.model import MARK, Attempt, GitRepo, Plant, attempt
from shell_redteam.read_only import read_only_attempts

__all__ = [
    "DENY_RULES",
    "MARK",
    "Attempt",
    "Configuration",
    "GitRepo",
    "LoopbackServer",
    "Outcome",
    "Plant",
    "ToolFactory",
    "attempt",
    "catastrophic_attempts",
    "deny_rule_attempts",
    "loopback_server",
    "read_only_attempts",
    "run_configuration",
]
