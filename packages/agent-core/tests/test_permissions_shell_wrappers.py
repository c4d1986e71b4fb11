"""Wrappers are unwrapped where the program itself starts the wrapped command, with their
option values attached or separate and their long options abbreviated (seed 000, "Permission
Argument Registry": the deny side sees every command a line runs)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from robota.core.permissions import Direction, Match, match_command
from robota.core.permissions._shell import parse_line

DENY = Direction.DENY

# each wrapper with spellings of its options that GNU/util-linux accept (checked with bash)
PREFIXES: dict[str, list[str]] = {
    "nice": ["nice", "nice -n10", "nice -n 10", "nice -10", "nice --adj=5", "nice -n+1",
             "nice --adjustment 3", "nice --"],
    "timeout": ["timeout 5", "timeout -k5 10", "timeout -sKILL 10", "timeout --sig=KILL 10",
                "timeout --kill=5 10", "timeout --fore 10", "timeout -pk 3 5", "timeout 1m"],
    "env": ["env", "env -i PATH=/bin", "env -C .", "env --chdir=.", "env -u X", "env -uX",
            "env --unset=X", "env -0", "env X=1 Y=2", "env -", "env --"],
    "stdbuf": ["stdbuf -oL", "stdbuf -o L", "stdbuf --output=L", "stdbuf -i0 -o0 -e0"],
    "setsid": ["setsid", "setsid -w", "setsid -f", "setsid --fork", "setsid -c"],
    "ionice": ["ionice -c3", "ionice -c 2 -n 0", "ionice --class=3", "ionice -t -n7"],
    "taskset": ["taskset 0x1", "taskset -c 0", "taskset --cpu-list 0", "taskset -ac 0"],
    "flock": ["flock f", "flock -n f", "flock -w 1 f", "flock -w1 f", "flock --timeout=1 f",
              "flock --time=1 f", "flock -x f", "flock -- f"],
    "chroot": ["chroot /", "chroot --userspec=root:root /", "chroot --skip-chdir /"],
    "chrt": ["chrt 0", "chrt -o 0", "chrt --other 0", "chrt -r 1", "chrt -f 10"],
    "unshare": ["unshare", "unshare -r", "unshare -U", "unshare --fork", "unshare --wd=.",
                "unshare --mount --fork --pid", "unshare -rm", "unshare --"],
    "nsenter": ["nsenter -t 1 -m", "nsenter --preserve-credentials -t 1", "nsenter -t1 -U"],
    "prlimit": ["prlimit --nofile=100", "prlimit -n100", "prlimit --nof=1024", "prlimit -v",
                "prlimit --cpu=10 --"],
    "setpriv": ["setpriv --nnp", "setpriv --reuid=0", "setpriv --clear-groups", "setpriv --"],
    "systemd-run": ["systemd-run --user", "systemd-run --user --wait", "systemd-run -d -q",
                    "systemd-run --unit=x -p CPUQuota=5%"],
    "strace": ["strace", "strace -f", "strace -f -o /dev/null", "strace -o/dev/null",
               "strace -e trace=none --", "strace --output=/dev/null", "strace -qqf"],
    "ltrace": ["ltrace", "ltrace -f", "ltrace -o /dev/null"],
    "time": ["\\time", "\\time -p", "\\time -f %e", "/usr/bin/time -o /dev/null"],
    "command": ["command", "command -p", "command --"],
    "builtin": ["builtin command"],
    "exec": ["exec", "exec -a x", "exec -c", "exec -cl", "exec --"],
    "nohup": ["nohup", "nohup --"],
    "sudo": ["sudo", "sudo -u root", "sudo -E", "sudo -D /tmp", "sudo FOO=1", "sudo --user=root"],
    "doas": ["doas", "doas -u root", "doas -n"],
    "busybox": ["busybox"],
    "fakeroot": ["fakeroot", "fakeroot --", "fakeroot -u"],
    "xvfb-run": ["xvfb-run", "xvfb-run -a", "xvfb-run --server-args=x"],
    "dbus-run-session": ["dbus-run-session", "dbus-run-session --"],
    "setarch": ["setarch x86_64", "setarch x86_64 -R", "linux64", "setarch x86_64 --"],
    "runuser": ["runuser -u root", "runuser -u root --", "runuser --user=root --"],
    "xargs": ["xargs", "xargs -0", "xargs -n1", "xargs -I{}", "xargs -i", "xargs -r -t",
              "xargs --max-args=1", "xargs -a f", "xargs -P2 -n1", "xargs -E END"],
    "watch": ["watch -x", "watch -x -n 0.2", "watch --exec -g"],
}  # fmt: skip

# wrappers that run a text (the command becomes one word, quoted)
TEXT_PREFIXES = [
    "sh -c", "bash -c", "bash -lc", "bash -c -e", "bash -ec --", "dash -c", "/bin/sh -c",
    "su -c", "su root -c", "su -s /bin/sh root -c", "su --command", "runuser root -c",
    "flock f -c", "flock -w 1 f --command", "script -qc", "script -q -c", "script --com",
    "watch", "watch -n 1", "sg root", "sg root -c", "env -S", "env --split-string",
    "eval", "trap", "ssh host", "ssh -p 22 host", "entr -s", "timeout 5 sh -c",
]  # fmt: skip

ALL_PREFIXES = [prefix for group in PREFIXES.values() for prefix in group]


@pytest.mark.parametrize("prefix", ALL_PREFIXES)
def test_each_wrapper_spelling_is_unwrapped(prefix: str) -> None:
    line = f"{prefix} rm -rf victim"
    assert match_command("rm -rf victim", line, direction=DENY) is Match.YES
    parsed = parse_line(line)
    assert parsed is not None
    assert any(command.words == ("rm", "-rf", "victim") for command in parsed.commands)


@pytest.mark.parametrize("prefix", TEXT_PREFIXES)
def test_each_text_runner_is_parsed(prefix: str) -> None:
    suffix = " EXIT" if prefix == "trap" else ""
    line = f"{prefix} 'rm -rf victim'{suffix}"
    assert match_command("rm -rf victim", line, direction=DENY) is Match.YES


@pytest.mark.parametrize(
    "line",
    ["command -v rm", "command -V rm", "ionice -p 1", "taskset -p 1", "chrt -p 1",
     "prlimit -p 1", "sudo -l rm", "sudo -e rm", "doas -C f rm", "busybox --list",
     "nice", "nohup --help"],
)  # fmt: skip
def test_wrapper_forms_that_run_nothing(line: str) -> None:
    parsed = parse_line(line)
    assert parsed is not None
    assert [command.words[0] for command in parsed.commands] == [line.split()[0]]


def test_wrapped_command_directory_is_recorded() -> None:
    def directory(line: str) -> str | None:
        parsed = parse_line(line)
        assert parsed is not None
        return parsed.commands[-1].directory

    assert directory("env -C sub rm x") == "sub"
    assert directory("sudo -D /tmp rm x") == "/tmp"
    assert directory("unshare --wd=w rm x") == "w"
    assert directory("chroot / rm x") is None
    assert directory("systemd-run rm x") is None
    assert directory("systemd-run --same-dir rm x") == "."
    assert directory("nice rm x") == "."


def test_unknown_wrapper_options_fall_back_to_argument_scanning() -> None:
    parsed = parse_line("timeout --no-such-option 5 rm -rf victim")
    assert parsed is not None
    assert parsed.commands[0].may_run_arguments
    assert match_command("rm *", "timeout --bogus 5 rm -rf victim", direction=DENY) is Match.YES


_CHAIN = st.lists(st.sampled_from(ALL_PREFIXES), min_size=1, max_size=3)


@settings(max_examples=400, deadline=None)
@given(chain=_CHAIN, text=st.booleans(), runner=st.sampled_from(TEXT_PREFIXES))
def test_wrapper_chains_around_rm_never_answer_no(
    chain: list[str], text: bool, runner: str
) -> None:
    target = "rm -rf victim"
    if text and runner != "trap":
        target = f"{runner} 'rm -rf victim'"
    line = " ".join((*chain, target))
    answer = match_command("rm -rf victim", line, direction=DENY)
    assert answer in (Match.YES, Match.UNEVALUABLE)
    assert match_command("rm *", line, direction=DENY) in (Match.YES, Match.UNEVALUABLE)


_UNKNOWN = st.lists(
    st.sampled_from(["foo", "--opt", "-x", "run", "uv", "exec", "--", "-n1", "npx", "poetry"]),
    min_size=1,
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(words=_UNKNOWN)
def test_unknown_commands_that_name_rm_never_answer_no(words: list[str]) -> None:
    if words[0].startswith("-"):
        words = ["tool", *words]
    line = " ".join((*words, "rm -rf victim"))
    assert match_command("rm *", line, direction=DENY) in (Match.YES, Match.UNEVALUABLE)
