"""Permissions: rules, matchers, modes, remembered consent and the one evaluation order
(seed 000, "Permission Argument Registry", "Permission System"). See ``docs/guides/permissions.md``."""

from robota.core.permissions._outcome import Direction, Match
from robota.core.permissions.consent import ConsentGrant, ConsentStore
from robota.core.permissions.context import PermissionCall, PermissionCeiling, PermissionContext
from robota.core.permissions.decision import (
    Approval,
    Approver,
    Behavior,
    DecisionStep,
    PermissionDecision,
    PermissionRequest,
)
from robota.core.permissions.evaluate import decide_permission, evaluate_permission, match_rule
from robota.core.permissions.events import PermissionDecided, PermissionRequested
from robota.core.permissions.gate import PermissionGate
from robota.core.permissions.hazards import TRUST_WIDENING_PATTERNS
from robota.core.permissions.match_command import match_command
from robota.core.permissions.match_path import match_path
from robota.core.permissions.match_text import match_text
from robota.core.permissions.match_url import match_url
from robota.core.permissions.modes import PermissionMode
from robota.core.permissions.rules import (
    PermissionRule,
    PermissionRuleError,
    RuleBehavior,
    parse_rule,
    parse_rules,
)

__all__ = [
    "TRUST_WIDENING_PATTERNS",
    "Approval",
    "Approver",
    "Behavior",
    "ConsentGrant",
    "ConsentStore",
    "DecisionStep",
    "Direction",
    "Match",
    "PermissionCall",
    "PermissionCeiling",
    "PermissionContext",
    "PermissionDecided",
    "PermissionDecision",
    "PermissionGate",
    "PermissionMode",
    "PermissionRequest",
    "PermissionRequested",
    "PermissionRule",
    "PermissionRuleError",
    "RuleBehavior",
    "decide_permission",
    "evaluate_permission",
    "match_command",
    "match_path",
    "match_rule",
    "match_text",
    "match_url",
    "parse_rule",
    "parse_rules",
]
