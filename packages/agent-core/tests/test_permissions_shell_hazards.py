"""Catastrophic removals ask in every mode, bypass included (seed 000, "Permission System"):
every GNU spelling of a recursive ``rm``, ``find -delete``/``-exec rm``, ``git clean -f``,
``rsync --delete``, reached through any wrapper, text or unknown command."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from robota.core.permissions import (
    Behavior,
    DecisionStep,
    PermissionCall,
    PermissionContext,
    PermissionMode,
    evaluate_permission,
)
from robota.core.permissions._shell import parse_line
from robota.core.permissions.hazards import catastrophic_removal
from robota.core.tools.base import ArgumentKind, PermissionArgument, RiskClass

_ROOT = Path("/nonexistent-robota/work/ws")
_HOME = Path("/nonexistent-robota/home/me")


def _reason(line: str, *, cwd: Path | None = None, root: Path = _ROOT) -> str | None:
    return catastrophic_removal(parse_line(line), workspace=root, home=_HOME, cwd=cwd)


CATASTROPHIC = [
    # rm spellings
    "rm -rf *", "rm -r -f *", "rm -fr *", "rm -Rf *", "rm -vrf *", "rm -f -R *", "rm * -rf",
    "rm -f * -r", "rm -f * --recursive", "rm --rec -f *", "rm --r -f *", "rm --re --fo *",
    "rm --recursiv --force *", "rm --recursive=x -f *", "rm -rf -- *", "rm -I -r *",
    # targets
    "rm -rf .", "rm -rf ./", "rm -rf ./*", "rm -rf ..", "rm -rf ../*", "rm -rf ?*", "rm -rf .*",
    "rm -rf [a-z]*", "rm -rf {a,b}", "rm -rf ~", "rm -rf ~/", "rm -rf ~/*", "rm -rf /",
    "rm -rf /*", "rm -rf /usr", "rm -rf /nonexistent-robota", "rm -rf /nonexistent-robota/work",
    "rm -rf victim/..", "rm -rf ~other", "rm -rf /nonexistent-robota/work/ws",
    # run-time targets and options
    'rm -rf "$DIR"/', "rm -rf $x", 'rm -rf "$(pwd)"', "rm -rf `pwd`", "x=-rf; rm $x *",
    "rm $opts ~", 'rm "$a" "$b"', "$RM -rf ~", "xargs rm -rf < list",
    # reached through wrappers, texts, unknown commands
    "sudo rm -rf /", "nice -n10 rm -rf *", "timeout -k5 10 rm -rf *", "env rm -rf *",
    "bash -c 'rm -rf ~/'", "sh -c 'rm --rec -f *'", "trap 'rm -rf *' EXIT", "eval rm -rf .",
    "uv run rm -rf *", "foo --opt rm -rf ~", "watch rm -rf '*'", "ssh host 'rm -rf *'",
    "cp /bin/rm ./zz; ./zz -rf ~", "ln -s \"$(command -v rm)\" x; ./x -rf .",
    # directories changed in the line
    "cd .. && rm -rf ws", "cd ~ && rm -rf *", "cd build; rm -rf *", "cd build || rm -rf *",
    "{ cd ..; }; rm -rf ws", "cd build && rm -rf * ; cd .. ; rm -rf ws", "cd build && rm -rf ..", "pushd .. && rm -rf *",
    'cd "$d" && rm -rf build', "cd - && rm -rf x", "env -C .. rm -rf ws", "sudo -D / rm -rf usr",
    "su - -c 'rm -rf x'", "chroot / rm -rf x",
    # find
    "find . -delete", "find -delete", "find . -mindepth 1 -delete", "find .. -delete",
    "find ~ -delete", "find -L . -name '*' -delete", "find . -exec rm {} +",
    "find . -type f -exec rm -f {} \\;", "find . -exec sh -c 'rm \"$1\"' _ {} \\;",
    "find . -execdir unlink {} \\;", 'find "$d" -delete',
    # git clean, rsync
    "git clean -fdx", "git clean -dx", "git clean -fden", "git clean -f -d -en", "git clean -ffdx", "git clean -f", "git clean --force -d", "git clean --for",
    "git -C .. clean -fd", "git clean -fd .", "rsync -a --delete empty/ ./", "rsync --del e/ .",
    # texts that did not parse
    "python3 -c 'import shutil; shutil.rmtree(\".\")'", "perl -e 'system(\"rm -rf *\")'",
    # lines that cannot be shown not to remove everything
    "echo $((1))", "eval \"$x\"", "printf -v 'a[$(rm -rf *)]' x", "source ./x.sh",
]  # fmt: skip


@pytest.mark.parametrize("line", CATASTROPHIC)
def test_catastrophic_removals_are_reported(line: str) -> None:
    assert _reason(line) is not None


SAFE = [
    "rm -rf build", "rm -rf build/*", "rm -rf ./build", "rm -f *.o", "rm -rf src/old dist",
    "rm *", "rm -f ./*", 'rm "$f"', "rm -- -rf", "rm -rf build/{a,b}", "rm -rf ~/project/tmp",
    "find build -delete", "find build -name '*.o' -exec rm {} +", "find . -name '*.py' -print",
    "find . -type f -exec grep -l x {} +", "git clean -n", "git clean -fdn", "git clean --dry-run -f",
    "git clean -fdx build/", "rsync -a --delete src/ backup/",
    "rsync -a --delete src/ host:dst/", "rsync -a src/ .", "cd build && rm -rf *",
    "cd build; rm -rf out", "cd build && cd out && rm -rf *", "ls -R .", "grep -r x .", "cp -r . /tmp/backup", "zip -r x.zip .",
    "echo 'rm -rf *'", "git commit -m 'rm -rf *'", "mv build build.old",
]  # fmt: skip


@pytest.mark.parametrize("line", SAFE)
def test_ordinary_removals_are_not_catastrophic(line: str) -> None:
    assert _reason(line) is None


def test_unparseable_and_opaque_lines_name_the_reason() -> None:
    assert "could not be parsed" in (_reason("echo $((1))") or "")
    assert "source runs a file" in (_reason(". ./env.sh") or "")


def test_relative_targets_are_judged_from_the_call_directory() -> None:
    sub = _ROOT / "sub"
    assert _reason("rm -rf *", cwd=sub) is None
    assert _reason("rm -rf ..", cwd=sub) is not None
    assert _reason("rm -rf ../*", cwd=sub) is not None
    assert _reason("rm -rf sub", cwd=_ROOT.parent) is None
    assert _reason("rm -rf ws", cwd=_ROOT.parent) is not None


def test_symlinked_targets_are_resolved(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "link").symlink_to(root)
    assert _reason("rm -rf link/", root=root) is not None
    assert _reason("rm -rf link/build", root=root) is None


def test_bypass_mode_asks_for_a_catastrophic_removal(tmp_path: Path) -> None:
    context = PermissionContext.from_rules(
        tmp_path, mode=PermissionMode.BYPASS, allow=["Bash"], home=tmp_path / "home"
    )
    call = PermissionCall(
        tool_name="Bash",
        risk=RiskClass.EXECUTE,
        argument=PermissionArgument(key="command", kind=ArgumentKind.COMMAND),
        arguments={"command": "trap 'rm --rec -f *' EXIT"},
    )
    decision = evaluate_permission(call, context)
    assert (decision.behavior, decision.step) == (Behavior.ASK, DecisionStep.CATASTROPHIC)


_RECURSIVE = st.integers(min_value=1, max_value=len("recursive")).map(
    lambda size: "--" + "recursive"[:size]
)


@st.composite
def _cluster(draw: st.DrawFn) -> str:
    letters = draw(st.lists(st.sampled_from("fivId"), max_size=3))
    letters.append(draw(st.sampled_from("rR")))
    return "-" + "".join(draw(st.permutations(letters)))


_CLUSTER = _cluster()
_TARGET = st.sampled_from(["*", ".", "./", "./*", "..", "~", "~/*", "/", "/*", "?*", ".*", "{a,b}"])


@settings(max_examples=300, deadline=None)
@given(
    option=st.one_of(_RECURSIVE, _CLUSTER),
    extra=st.lists(st.sampled_from(["-f", "--force", "-v", "--one-file-system", "-I"]), max_size=2),
    target=_TARGET,
    after=st.booleans(),
    wrapper=st.sampled_from(["", "sudo ", "nice -n10 ", "env -i ", "timeout 5 ", "command "]),
)
def test_every_recursive_spelling_over_a_critical_target_is_catastrophic(
    option: str, extra: list[str], target: str, after: bool, wrapper: str
) -> None:
    options = [option, *extra]
    words = [*extra, target, option] if after else [*options, target]
    line = wrapper + "rm " + " ".join(words)
    assert _reason(line) is not None, line


@settings(max_examples=200, deadline=None)
@given(
    option=st.one_of(_RECURSIVE, _CLUSTER),
    target=st.sampled_from(["build", "build/*", "./build", "src/old", "~/project/tmp", "a/b/c"]),
)
def test_recursive_removal_of_an_ordinary_target_is_not_catastrophic(
    option: str, target: str
) -> None:
    assert _reason(f"rm {option} {target}") is None
