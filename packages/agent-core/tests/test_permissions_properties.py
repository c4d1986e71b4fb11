"""Property tests for the command matcher: joining an allowed command with a denied one never
evaluates to allow."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from robota.core.permissions import (
    Behavior,
    Direction,
    Match,
    PermissionCall,
    PermissionContext,
    evaluate_permission,
    match_command,
)
from robota.core.permissions._shell import parse_line
from robota.core.tools.base import ArgumentKind, PermissionArgument, RiskClass

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_./=", min_size=1, max_size=8)
_ALLOWED = st.lists(_WORD, min_size=0, max_size=3).map(lambda ws: " ".join(["git", *ws]))
_DENIED = st.lists(_WORD, min_size=0, max_size=3).map(lambda ws: " ".join(["rm", *ws]))
_JOINS = st.sampled_from(
    ["{a}; {d}", "{a} && {d}", "{a} || {d}", "{a} | {d}", "{a} $({d})", "{a} `{d}`",
     "{a}\n{d}", "{a} & {d}", "{a} <({d})", "{d}; {a}", "{a}; sh -c '{d}'", "{a}; env {d}"]
)  # fmt: skip
_ARG = PermissionArgument(key="command", kind=ArgumentKind.COMMAND)
_ROOT = Path("/nonexistent-workspace")


@settings(max_examples=300, deadline=None)
@given(allowed=_ALLOWED, denied=_DENIED, join=_JOINS)
def test_join_of_allowed_and_denied_never_allows(allowed: str, denied: str, join: str) -> None:
    line = join.format(a=allowed, d=denied)
    context = PermissionContext.from_rules(
        _ROOT, allow=["Bash(git *)", "Bash(git:*)"], deny=["Bash(rm:*)"], home=_ROOT
    )
    call = PermissionCall(
        tool_name="Bash", risk=RiskClass.EXECUTE, argument=_ARG, arguments={"command": line}
    )
    assert evaluate_permission(call, context).behavior is not Behavior.ALLOW
    assert match_command("git *", line, direction=Direction.ALLOW) is Match.NO


@settings(max_examples=300, deadline=None)
@given(allowed=_ALLOWED, join=_JOINS, other=st.sampled_from(["curl x", "make", "python -c 1"]))
def test_allow_never_matches_a_compound_line(allowed: str, join: str, other: str) -> None:
    line = join.format(a=allowed, d=other)
    assert match_command("git *", line, direction=Direction.ALLOW) is Match.NO


def _git_reconfigured(line: str) -> bool:
    """``git -c KEY=…``/``--exec-path=``/``--config-env`` before the subcommand may make git
    run a program: such a line is opaque, so no allow rule matches it."""
    for word in line.split()[1:]:
        if not word.startswith("-"):
            return False
        if word == "-c" or word.startswith(("--exec-path=", "--config-env")):
            return True
    return False


@settings(max_examples=300, deadline=None)
@given(allowed=_ALLOWED)
def test_a_plain_allowed_command_is_allowed(allowed: str) -> None:
    parsed = parse_line(allowed)
    assert parsed is not None
    if parsed.single is None:
        assert _git_reconfigured(allowed), parsed.opaque_reasons
    expected = Match.NO if parsed.single is None else Match.YES
    assert match_command("git:*", allowed, direction=Direction.ALLOW) is expected


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40))
def test_matcher_never_raises_and_never_allows_unparseable(text: str) -> None:
    answer = match_command("rm:*", text, direction=Direction.DENY)
    assert answer in (Match.YES, Match.NO, Match.UNEVALUABLE)
    if parse_line(text) is None:
        assert answer is Match.UNEVALUABLE
        assert match_command("* *", text, direction=Direction.ALLOW) is not Match.YES
