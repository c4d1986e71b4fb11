"""Outsider red-team classes (issue 11), as table tests by class:

1. process-relative paths (``/proc/self/cwd``, ``/proc/<pid>/…``, ``/dev/fd/N``, ``/dev/stdin``)
   are never read-only, and a path the gate cannot resolve ends in a decision, not an error;
2. a command name under ``/dev``/``/proc``, the dynamic loader, and programs that run shell
   commands from their input are seen by the deny side (YES) or make the line opaque;
3. removals without ``rm`` in the name position (fd/loader spellings, ``tar --remove-files``,
   ``zip -m``, ``git rm -r``) ask in every mode.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from robota.core.host.paths import canonical_path
from robota.core.permissions import (
    Behavior,
    DecisionStep,
    Direction,
    Match,
    PermissionCall,
    PermissionContext,
    PermissionMode,
    evaluate_permission,
    match_command,
)
from robota.core.permissions._readonly import is_read_only_line
from robota.core.permissions._shell import parse_line, process_view
from robota.core.permissions.hazards import catastrophic_removal
from robota.core.tools.base import ArgumentKind, PermissionArgument, RiskClass

ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin"}
_DEPTH = 6
_UP = "../" * _DEPTH


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    deep = root.joinpath(*(f"d{i}" for i in range(_DEPTH)))
    deep.mkdir(parents=True)
    (root / "Q").write_text("plain\n")
    (root / "to-proc").symlink_to("/proc/self/cwd")
    (root / "to-fd").symlink_to("/dev/fd")
    return canonical_path(root)


def _ro(line: str, ws: Path, cwd: Path | None = None) -> bool:
    return is_read_only_line(parse_line(line), workspace=ws, home=ws / "home", cwd=cwd, environ=ENV)


# --- 1. process views are never read-only ------------------------------------------------------

PROCESS_VIEW_READS = [
    "cat /proc/self/cwd/Q",
    f"cat /proc/self/cwd/{_UP}@WS@/Q",
    f"head /proc/thread-self/cwd/{_UP}@WS@/Q",
    f"grep -r x /proc/self/cwd/{_UP}@WS@",
    "cat /proc/self/root@WS@/Q",
    "cat /proc/1/cwd@WS@/Q",
    "cat /proc/1/root@WS@/Q",
    "ls /proc/1/cwd",
    "head /proc/1/fd/0",
    "cat /dev/fd/0",
    "cat /dev/stdin",
    "cat /proc/self/fd/0",
    "wc -l //proc/self/cwd/Q",
    "cat /dev/../proc/self/cwd/Q",
    "cat @WS@/to-proc/Q",
    "cat @WS@/to-fd/0",
    "grep -f /dev/stdin Q",
    "diff Q /dev/stdin",
]


@pytest.mark.parametrize("line", PROCESS_VIEW_READS)
def test_process_relative_paths_are_not_read_only(line: str, ws: Path) -> None:
    deep = ws.joinpath(*(f"d{i}" for i in range(_DEPTH)))
    text = line.replace("@WS@", str(ws))
    assert not _ro(text, ws)
    assert not _ro(text, ws, cwd=deep)


def test_the_workspace_itself_stays_read_only(ws: Path) -> None:
    assert _ro("cat Q", ws)
    assert _ro(f"cat {ws}/Q", ws)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/proc", True),
        ("/proc/self/cwd", True),
        ("/dev/null", True),
        ("/dev/fd/3", True),
        ("/usr/../proc/1/root", True),
        ("../../../../proc/self/fd/3", True),
        ("/usr/bin/rm", False),
        ("/procx/a", False),
        ("./dev/x", False),
    ],
)
def test_process_view_detects_proc_and_dev(path: str, expected: bool) -> None:
    assert process_view(path) is expected


def _shell_call(line: str, *, cwd: str | None = None) -> PermissionCall:
    argument = PermissionArgument(
        key="command", kind=ArgumentKind.COMMAND, sandboxed_inspect=True, cwd_key="cwd"
    )
    arguments: dict[str, object] = {"command": line}
    if cwd is not None:
        arguments["cwd"] = cwd
    return PermissionCall(
        tool_name="Bash", risk=RiskClass.EXECUTE, argument=argument, arguments=arguments
    )


@pytest.mark.parametrize(
    "line", ["cat /proc/1/cwd@WS@/Q", "ls /proc/1/cwd", "head /proc/1/fd/0", "cat /dev/stdin"]
)
def test_unresolvable_paths_end_in_a_decision_not_an_exception(line: str, ws: Path) -> None:
    context = PermissionContext.from_rules(ws, home=ws / "home")
    decision = evaluate_permission(_shell_call(line.replace("@WS@", str(ws))), context)
    assert decision.behavior is Behavior.ASK
    assert decision.risk is RiskClass.EXECUTE


def test_a_process_view_cwd_is_not_a_cwd_to_judge_from(ws: Path) -> None:
    context = PermissionContext.from_rules(ws, home=ws / "home")
    decision = evaluate_permission(_shell_call("cat Q", cwd="/proc/self/cwd"), context)
    assert decision.behavior is Behavior.ASK


# --- 2. names the parser cannot know ------------------------------------------------------------

DENY = Direction.DENY

UNKNOWN_PROGRAM = [
    "/dev/fd/3 victim 3</usr/bin/rm",
    "/proc/self/fd/3 victim 3</usr/bin/rm",
    "/proc/thread-self/fd/3 victim 3</usr/bin/rm",
    "/dev/stdin victim < /usr/bin/rm",
    "/proc/self/fd/0 victim < /usr/bin/rm",
    "exec 3</usr/bin/rm; /dev/fd/3 victim",
    "exec 3</usr/bin/rm; /proc/self/fd/3 victim",
    "/proc/1/exe victim",
    "../../../../dev/fd/3 victim",
    "/lib64/ld-linux-x86-64.so.2 /usr/bin/r[m] victim",
    "/lib64/ld-linux-x86-64.so.2 /usr/bin/r? victim",
    "ld.so /usr/bin/r[m] victim",
    "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 /usr/bin/r[m] victim",
    "/lib/ld-musl-x86_64.so.1 /usr/bin/r[m] victim",
    "ld.so $P victim",
    "ld.so --preload x.so /usr/bin/true",
    "ld.so --library-path . /usr/bin/true",
    "/lib64/ld-linux-x86-64.so.2 /dev/fd/3 victim 3</usr/bin/rm",
    "echo '!rm victim' | ed -s",
    "ed -s <<< '!rm victim'",
    "printf '%s\\n' '!rm victim' q | ex -s",
    "vim -es -c '!rm victim' -c q",
    "nvim --headless -c '!rm victim' -c q",
    "view -s script.vim",
    "echo 'shell rm victim' | gdb -q -batch -x /dev/stdin",
    "expect -c 'spawn rm victim'",
    "run-parts --regex='^rm$' --arg=victim /usr/bin",
]


@pytest.mark.parametrize("line", UNKNOWN_PROGRAM)
def test_unknown_programs_make_the_line_opaque(line: str) -> None:
    parsed = parse_line(line)
    assert parsed is not None
    assert parsed.opaque, line
    assert match_command("rm *", line, direction=DENY) is Match.UNEVALUABLE


@pytest.mark.parametrize(
    "line",
    [
        "ld.so /usr/bin/rm victim",
        "/lib64/ld-linux-x86-64.so.2 /usr/bin/rm victim",
        "/lib64/ld-linux-x86-64.so.2 --argv0 ls /usr/bin/rm victim",
        "/lib64/ld64.so.2 -- /bin/rm victim",
        "ld.so --argv0 rm /bin/busybox victim",
    ],
)
def test_the_loader_is_a_wrapper_of_its_program(line: str) -> None:
    assert match_command("rm *", line, direction=DENY) is Match.YES


@pytest.mark.parametrize(
    "line",
    ["./x victim 3</usr/bin/rm", "./x victim < /bin/rm", "ln -s /dev/fd/3 x; ./x v 3</bin/rm"],
)
def test_a_redirection_opening_the_denied_binary_asks(line: str) -> None:
    assert match_command("rm *", line, direction=DENY) is not Match.NO


@pytest.mark.parametrize(
    "line", ["cat < notes.txt", "ls > /dev/null", "sort < data 2>&1", "ld.so --list /usr/bin/ls"]
)
def test_ordinary_redirections_and_loader_uses_do_not_match(line: str) -> None:
    assert match_command("rm *", line, direction=DENY) is Match.NO


# --- 3. catastrophic removals without rm in the name position --------------------------------

_ROOT = Path("/nonexistent-robota/work/ws")
_HOME = Path("/nonexistent-robota/home/me")


def _reason(line: str) -> str | None:
    return catastrophic_removal(parse_line(line), workspace=_ROOT, home=_HOME, cwd=_ROOT)


CATASTROPHIC = [
    "/dev/fd/3 -rf /nonexistent-robota/work/ws 3</usr/bin/rm",
    "/proc/self/fd/3 -rf * 3</usr/bin/rm",
    "/dev/stdin -rf ~ < /usr/bin/rm",
    "exec 3</usr/bin/rm; /dev/fd/3 -rf /nonexistent-robota/home/me",
    "./x -rf ~ 3</usr/bin/rm",
    "/lib64/ld-linux-x86-64.so.2 /usr/bin/r[m] -rf *",
    "ld.so /usr/bin/r? -rf ~",
    "ld.so /usr/bin/rm -rf *",
    "ld.so --argv0 x /usr/bin/rm -rf .",
    "rm -rf /proc/self/cwd",
    "rm -rf /proc/self/cwd/",
    "rm -rf /dev/fd/3/",
    "tar --remove-files -cf /dev/null .",
    "tar --remove-files -cf /dev/null *",
    "tar --rem -cf x.tar .",
    "tar --remove-f -czf x.tgz ./*",
    "tar -C ~ --remove-files -cf /dev/null .",
    "tar -C /nonexistent-robota/home/me --remove-files -cf /dev/null .",
    "tar --directory=.. --remove-files -cf /dev/null ws",
    "tar --remove-files -cf x.tar $DIR",
    "zip -qrm z.zip .",
    "zip -qrm z.zip *",
    "zip -r --move z.zip ~",
    "zip -rm z.zip ..",
    "find . | zip -m@ z.zip",
    "git rm -rqf .",
    "git rm -r .",
    "git rm -rqf -- '*'",
    "git rm -- '*'",
    "git rm -rf *",
    "git rm -r :/",
    "git rm -rf /nonexistent-robota/work/ws",
    "git -C .. rm -rf ws",
    "git rm -r $X",
    "echo '!rm -rf /nonexistent-robota/work/ws' | ed -s",
    "run-parts --regex='^rm$' --arg=-rf --arg=/nonexistent-robota/work/ws /usr/bin",
]


@pytest.mark.parametrize("line", CATASTROPHIC)
def test_removals_without_rm_in_the_name_position_are_catastrophic(line: str) -> None:
    assert _reason(line) is not None, line


SAFE = [
    "tar -czf out.tgz src",
    "tar -cf x.tar .",
    "tar --remove-files -cf x.tar build",
    "tar -C build --remove-files -cf ../x.tar logs",
    "zip -r out.zip src",
    "zip -m out.zip notes.txt",
    "zip -rm out.zip build",
    "git rm -r src",
    "git rm --cached -r .",
    "git rm -r --cached .",
    "git rm -rn .",
    "git rm --dry-run -r .",
    "git rm notes.txt",
    "git stash -u",
    "ld.so --list /usr/bin/ls",
]


@pytest.mark.parametrize("line", SAFE)
def test_ordinary_archiving_and_git_rm_are_not_catastrophic(line: str) -> None:
    assert _reason(line) is None, _reason(line)


@pytest.mark.parametrize(
    "line",
    ["tar --remove-files -cf /dev/null .", "/dev/stdin -rf ~ < /usr/bin/rm", "git rm -rqf ."],
)
def test_bypass_mode_asks(line: str, tmp_path: Path) -> None:
    context = PermissionContext.from_rules(
        tmp_path, mode=PermissionMode.BYPASS, allow=["Bash"], home=tmp_path / "home"
    )
    call = PermissionCall(
        tool_name="Bash",
        risk=RiskClass.EXECUTE,
        argument=PermissionArgument(key="command", kind=ArgumentKind.COMMAND),
        arguments={"command": line},
    )
    decision = evaluate_permission(call, context)
    assert (decision.behavior, decision.step) == (Behavior.ASK, DecisionStep.CATASTROPHIC)
