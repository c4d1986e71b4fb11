"""Commands that run another command (seed 000, "Permission Argument Registry": the deny side
sees every command a line runs).

Each wrapper below has an option table (short options, GNU long options with their unambiguous
abbreviations, which options take a value, attached or as the next word) so the wrapped command
is found exactly where the program itself would start it:

``env`` (``NAME=VALUE``, ``-u``, ``-C``/``--chdir``, ``-S``/``--split-string``), ``command``
(not ``-v``/``-V``), ``builtin``, ``exec``, ``nohup``, ``time`` (GNU), ``nice`` (``-n10``,
``-10``), ``timeout`` (``-k5``, ``-sKILL``, the duration), ``stdbuf``, ``setsid``, ``ionice``,
``taskset`` (mask or ``-c`` list), ``flock`` (``FILE cmd`` and ``FILE -c TEXT``), ``chroot``,
``chrt`` (priority), ``unshare``, ``nsenter``, ``prlimit``, ``runuser`` (``-u USER cmd``, or a
shell with ``-c TEXT``), ``su`` (``-c TEXT``, shell arguments), ``sg`` (its text),
``setpriv``, ``systemd-run``, ``strace``, ``ltrace``, ``watch`` (its words joined and run by
``sh -c``; ``-x`` runs them directly), ``script`` (``-c TEXT``), ``xargs`` (arguments arrive on
stdin), ``sudo`` (``NAME=VALUE``, ``-D``, ``-s``/``-i``), ``doas``, ``busybox``, ``fakeroot``,
``xvfb-run``, ``dbus-run-session``, ``setarch``/``linux32``/``linux64``, ``entr`` (``-s``
text), ``ssh`` (the remote words joined as a line; ``-o ProxyCommand=``/``LocalCommand=`` text),
``at``/``batch`` (read their program from stdin).

A wrapper whose options this table does not understand is reported as *unknown*: the caller
then treats it like any command it does not know (its arguments may start a command).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass, field

__all__ = ["WRAPPERS", "Unwrapped", "unwrap"]

_NUMERIC = re.compile(r"-[+-]?[0-9]+\Z")
_ROLES_WITH_VALUE = frozenset({"value", "text", "chdir", "nodir", "env", "stopvalue", "sshopt"})


@dataclass(frozen=True, kw_only=True, slots=True)
class _Spec:
    short: dict[str, str]
    long: dict[str, str]
    operands: int = 0
    numeric: bool = False
    assignments: bool = False
    shell_without_command: bool = False
    directory: str | None = "."


def _spec(
    *,
    flags: str = "",
    values: str = "",
    optional: str = "",
    text: str = "",
    chdir: str = "",
    nodir: str = "",
    stop: str = "",
    stopvalue: str = "",
    login: str = "",
    shell: str = "",
    env: str = "",
    sshopt: str = "",
    long: dict[str, str] | None = None,
    operands: int = 0,
    numeric: bool = False,
    assignments: bool = False,
    shell_without_command: bool = False,
    directory: str | None = ".",
) -> _Spec:
    short: dict[str, str] = {}
    for role, letters in (
        ("flag", flags),
        ("value", values),
        ("optional", optional),
        ("text", text),
        ("chdir", chdir),
        ("nodir", nodir),
        ("stop", stop),
        ("stopvalue", stopvalue),
        ("login", login),
        ("shell", shell),
        ("env", env),
        ("sshopt", sshopt),
    ):
        for letter in letters:
            short[letter] = role
    longs = {"help": "stop", "version": "stop"}
    longs.update(long or {})
    return _Spec(
        short=short,
        long=longs,
        operands=operands,
        numeric=numeric,
        assignments=assignments,
        shell_without_command=shell_without_command,
        directory=directory,
    )


def _names(role: str, names: str) -> dict[str, str]:
    return dict.fromkeys(names.split(), role)


_UNSHARE_LONG = {
    **_names("optional", "mount uts ipc net pid cgroup user time kill-child mount-proc"),
    **_names("flag", "fork map-root-user map-current-user map-auto keep-caps"),
    **_names("value", "map-user map-group map-users map-groups propagation setgroups setuid "
             "setgid monotonic boottime load-interp"),
    "wd": "chdir",
    "root": "nodir",
}  # fmt: skip

_NSENTER_LONG = {
    **_names("optional", "mount uts ipc net pid cgroup user time"),
    **_names("flag", "all preserve-credentials no-fork follow-context env join-cgroup"),
    **_names("value", "target setuid setgid user-parent"),
    "root": "nodir",
    "wd": "nodir",
    "wdns": "nodir",
}

_SYSTEMD_RUN_LONG = {
    **_names("flag", "user system scope no-block wait collect pty pipe quiet same-dir "
             "remain-after-exit send-sighup no-ask-password slice-inherit ignore-failure "
             "background json verbose"),
    **_names("value", "unit property description slice service-type uid gid nice host machine "
             "on-active on-boot on-startup on-unit-active on-unit-inactive on-calendar "
             "on-clock-change on-timezone-change timer-property path-property socket-property "
             "expand-environment capsule"),
    "setenv": "env",
    "working-directory": "chdir",
    "shell": "shell",
}  # fmt: skip

_STRACE_LONG = {
    **_names("flag", "follow-forks output-separately summary-only summary decode-fds "
             "decode-pids no-abbrev quiet silent relative-timestamps absolute-timestamps "
             "syscall-times instruction-pointer stack-trace verbose successful-only "
             "failed-only seccomp-bpf kill-on-exit daemonize columns"),
    **_names("value", "trace trace-path signal status quiet-what abbrev raw read write fault "
             "inject kvm summary-sort-by summary-columns output attach user argv0 "
             "strings-in-hex const-print-style string-limit timestamps decode-fds"),
    "env": "env",
}  # fmt: skip

WRAPPERS: dict[str, _Spec] = {
    "nohup": _spec(),
    "builtin": _spec(),
    "command": _spec(flags="p", stop="vV"),
    "exec": _spec(flags="cl", values="a"),
    "nice": _spec(values="n", long=_names("value", "adjustment"), numeric=True),
    "timeout": _spec(
        flags="fpv",
        values="ks",
        long={
            **_names("flag", "foreground preserve-status verbose"),
            **_names("value", "kill-after signal"),
        },
        operands=1,
    ),
    "stdbuf": _spec(values="ioe", long=_names("value", "input output error")),
    "setsid": _spec(flags="cfw", long=_names("flag", "ctty fork wait")),
    "ionice": _spec(
        flags="t",
        values="cn",
        stopvalue="pPu",
        long={
            **_names("value", "class classdata"),
            **_names("flag", "ignore"),
            **_names("stopvalue", "pid pgid uid"),
        },
    ),
    "taskset": _spec(
        flags="ac",
        stop="p",
        long={**_names("flag", "all-tasks cpu-list"), "pid": "stop"},
        operands=1,
    ),
    "flock": _spec(
        flags="sxenoFu",
        values="wE",
        long={
            **_names("flag", "shared exclusive unlock nonblock nb close no-fork verbose"),
            **_names("value", "wait timeout conflict-exit-code"),
        },
        operands=1,
    ),
    "chroot": _spec(
        long={**_names("value", "userspec groups"), "skip-chdir": "flag"},
        operands=1,
        shell_without_command=True,
        directory=None,
    ),
    "chrt": _spec(
        flags="abdfiorRv",
        values="TPD",
        stop="mp",
        long={
            **_names("flag", "all-tasks batch deadline fifo idle other rr reset-on-fork verbose"),
            **_names("value", "sched-runtime sched-period sched-deadline"),
            **_names("stop", "max pid"),
        },
        operands=1,
    ),
    "unshare": _spec(
        flags="fmuinpCUTrc",
        values="SG",
        chdir="w",
        nodir="R",
        long=_UNSHARE_LONG,
        shell_without_command=True,
    ),
    "nsenter": _spec(
        flags="aFZe",
        values="tSG",
        optional="muinpCUTrwW",
        long=_NSENTER_LONG,
        shell_without_command=True,
    ),
    "prlimit": _spec(
        values="o",
        optional="cdefilmnqrstuvxy",
        stopvalue="p",
        long={
            **_names(
                "optional",
                "core data nice fsize sigpending memlock rss nofile "
                "msgqueue rtprio stack cpu nproc as locks rttime",
            ),
            **_names("flag", "noheadings raw verbose"),
            "output": "value",
            "pid": "stopvalue",
        },
    ),
    "setpriv": _spec(
        flags="d",
        long={
            **_names(
                "flag", "nnp no-new-privs init-groups keep-groups clear-groups reset-env dump"
            ),
            **_names(
                "value",
                "groups inh-caps ambient-caps bounding-set ruid euid rgid "
                "egid reuid regid securebits pdeathsig ptracer selinux-label "
                "apparmor-profile landlock-access landlock-rule seccomp-filter",
            ),
        },
    ),
    "systemd-run": _spec(
        flags="dtPGqr",
        values="upHM",
        env="E",
        shell="S",
        long=_SYSTEMD_RUN_LONG,
        directory=None,
    ),
    "strace": _spec(
        flags="cCdDfFhiknNqrtTvVwxyzZY",
        values="abeIoOpPsSuUX",
        env="E",
        long=_STRACE_LONG,
    ),
    "ltrace": _spec(
        flags="bcCfhiLrStTV",
        values="aAeFlnopsuDwxX",
        long={
            **_names("flag", "demangle no-signals"),
            **_names("value", "output indent library align"),
        },
    ),
    "time": _spec(
        flags="apqvV",
        values="fo",
        long={
            **_names("flag", "append portability verbose quiet"),
            **_names("value", "format output"),
        },
    ),
    "sudo": _spec(
        flags="AbBEHkKnNPS",
        values="CghpRrtTUu",
        chdir="D",
        nodir="R",
        stop="elvV",
        login="i",
        shell="s",
        long={
            **_names(
                "flag",
                "askpass bell background set-home remove-timestamp "
                "reset-timestamp non-interactive preserve-groups stdin",
            ),
            **_names(
                "value", "close-from group host prompt role type command-timeout other-user user"
            ),
            "preserve-env": "optional",
            "chdir": "chdir",
            "chroot": "nodir",
            "edit": "stop",
            "list": "stop",
            "validate": "stop",
            "login": "login",
            "shell": "shell",
        },
        assignments=True,
    ),
    "doas": _spec(flags="n", values="u", stop="L", stopvalue="C", shell="s"),
    "fakeroot": _spec(
        flags="uh",
        values="lsib",
        long={**_names("value", "lib faked fd"), "unknown-is-real": "flag"},
        shell_without_command=True,
    ),
    "xvfb-run": _spec(
        flags="al",
        values="efnpsw",
        long={
            **_names("flag", "auto-servernum listen-tcp"),
            **_names("value", "error-file auth-file server-num xauth-protocol server-args wait"),
        },
    ),
    "dbus-run-session": _spec(long=_names("value", "config-file dbus-daemon")),
    "setarch": _spec(
        flags="v3BFILRSTXZ",
        long=_names(
            "flag",
            "verbose addr-no-randomize fdpic-funcptrs mmap-page-zero "
            "addr-compat-layout read-implies-exec 32bit short-inode whole-seconds "
            "sticky-timeouts 3gb 4gb uname-2.6 list",
        ),
        shell_without_command=True,
    ),
    "xargs": _spec(
        flags="0prtx",
        values="aEdILnPs",
        optional="eil",
        long={
            **_names("flag", "null interactive verbose exit no-run-if-empty show-limits open-tty"),
            **_names("value", "arg-file delimiter max-args max-procs max-chars process-slot-var"),
            **_names("optional", "eof replace max-lines"),
        },
    ),
    "busybox": _spec(),
    "entr": _spec(flags="acdnprzs"),
    "runuser": _spec(
        flags="fmpP",
        values="gGswu",
        text="c",
        login="l-",
        long={
            **_names("flag", "fast preserve-environment pty"),
            **_names("value", "group supp-group shell whitelist-environment user"),
            **_names("text", "command session-command"),
            "login": "login",
        },
    ),
    "su": _spec(
        flags="fmpP",
        values="gGsw",
        text="c",
        login="l-",
        long={
            **_names("flag", "fast preserve-environment pty"),
            **_names("value", "group supp-group shell whitelist-environment"),
            **_names("text", "command session-command"),
            "login": "login",
        },
    ),
    "sg": _spec(),
    "watch": _spec(
        flags="bcCegptwrx",
        values="nq",
        optional="d",
        long={
            **_names(
                "flag", "beep color no-color errexit chgexit precise no-title no-wrap no-rerun exec"
            ),
            **_names("value", "interval equexit"),
            "differences": "optional",
        },
    ),
    "script": _spec(
        flags="aefq",
        values="EBIOTmo",
        text="c",
        optional="t",
        long={
            **_names("flag", "append return flush quiet"),
            **_names("value", "echo log-io log-in log-out log-timing logging-format output-limit"),
            "command": "text",
            "timing": "optional",
        },
    ),
    "ssh": _spec(
        flags="46AaCfgKkMNnqsTtvXxYy",
        values="BbcDEeFIiJLlmpQRSWw",
        stop="GV",
        stopvalue="O",
        sshopt="o",
        long={},
    ),
    "at": _spec(flags="mMv", values="qt", stop="lrdcV", stopvalue="f"),
    "batch": _spec(flags="mMv", values="q", stopvalue="f"),
    "env": _spec(
        flags="i0v-",
        values="u",
        chdir="C",
        text="S",
        long={
            **_names("flag", "ignore-environment null list-signal-handling debug"),
            "unset": "value",
            "chdir": "chdir",
            "split-string": "text",
            **_names("optional", "block-signal default-signal ignore-signal"),
        },
        assignments=True,
    ),
}
"""Option tables of the wrappers unwrapped precisely (see the module docstring)."""

for _alias in ("linux32", "linux64", "i386", "x86_64", "uname26"):
    WRAPPERS[_alias] = _Spec(
        short=WRAPPERS["setarch"].short,
        long=WRAPPERS["setarch"].long,
        shell_without_command=True,
    )

_SSH_COMMAND_KEYS = frozenset({"proxycommand", "localcommand", "knownhostscommand"})


@dataclass(kw_only=True, slots=True)
class Unwrapped:
    """How a wrapper runs what follows it.

    Attributes:
        start: Index of the wrapped command's first word, or None when none is named.
        texts: Shell lines the wrapper runs (text, known before the shell runs).
        stdin_shell: The wrapper runs a shell that reads its program from stdin.
        directory: Where the wrapped command runs: ``"."`` (unchanged), a path (absolute,
            relative or ``~``-based), or None (unknown).
        assignments: ``NAME=VALUE`` environment given to the wrapped command, with certainty.
        runs_nothing: The options say no command runs (``-p PID``, ``--help``, ``-l``).
        unknown: An option or form this table does not understand.
        from_stdin: The wrapped command's arguments arrive at run time (``xargs``).
        expands_dollar: The wrapper expands ``$NAME`` in the wrapped words itself.
        shell_arguments: The words from ``start`` are arguments to the user's shell (``su``).
    """

    start: int | None = None
    texts: list[tuple[str, bool]] = field(default_factory=list[tuple[str, bool]])
    stdin_shell: bool = False
    directory: str | None = "."
    assignments: list[tuple[str, bool]] = field(default_factory=list[tuple[str, bool]])
    runs_nothing: bool = False
    unknown: bool = False
    from_stdin: bool = False
    expands_dollar: bool = False
    shell_arguments: bool = False


@dataclass(kw_only=True, slots=True)
class _Options:
    index: int
    seen: set[str] = field(default_factory=set[str])
    texts: list[tuple[str, bool]] = field(default_factory=list[tuple[str, bool]])
    env: list[tuple[str, bool]] = field(default_factory=list[tuple[str, bool]])
    directory: str | None = "."
    stop: bool = False
    login: bool = False
    shell: bool = False
    unknown: bool = False
    dashdash: bool = False


def _resolve_long(spec: _Spec, name: str) -> tuple[str, str] | None:
    if name in spec.long:
        return name, spec.long[name]
    matches = [key for key in spec.long if key.startswith(name)]
    if len(matches) == 1 and name:
        return matches[0], spec.long[matches[0]]
    return None


def _apply(options: _Options, name: str, role: str, value: str | None, known: bool) -> None:
    options.seen.add(name)
    if role == "text" and value is not None:
        options.texts.append((value, known))
    elif role == "chdir" and value is not None:
        chosen = value if known else None
        options.directory = _join(options.directory, chosen)
    elif role == "nodir":
        options.directory = None
    elif role == "env" and value is not None:
        options.env.append((value, known))
    elif role in ("stop", "stopvalue"):
        options.stop = True
    elif role == "login":
        options.login = True
        options.directory = None
    elif role == "shell":
        options.shell = True
    elif role == "optional" and name in ("w", "r", "root", "wd", "wdns"):
        options.directory = None
    elif role == "sshopt" and value is not None:
        parts = re.split(r"\s*=\s*|\s+", value.strip(), maxsplit=1)
        if parts[0].lower() in _SSH_COMMAND_KEYS:
            options.texts.append((parts[1] if len(parts) > 1 else "", known))


def _join(base: str | None, path: str | None) -> str | None:
    if base is None or path is None:
        return None
    if path.startswith(("/", "~")) or base == ".":
        return path
    return posixpath.join(base, path)


def _options(spec: _Spec, words: tuple[str, ...], certain: tuple[bool, ...]) -> _Options:
    options = _Options(index=1)
    index = 1
    while index < len(words):
        word = words[index]
        if not certain[index]:
            break  # could be an option or the command: the command's name is then unknown
        if word == "--":
            index += 1
            options.dashdash = True
            break
        if word == "-" and "-" in spec.short:
            _apply(options, "-", spec.short["-"], None, True)
            index += 1
            continue
        if spec.assignments and "=" in word and not word.startswith(("=", "-")):
            options.env.append((word, certain[index]))
            index += 1
            continue
        if word.startswith("--") and len(word) > 2:
            name, equals, value = word[2:].partition("=")
            resolved = _resolve_long(spec, name)
            if resolved is None:
                options.unknown = True
                break
            full, role = resolved
            if role in _ROLES_WITH_VALUE:
                if equals:
                    _apply(options, full, role, value, certain[index])
                elif index + 1 < len(words):
                    index += 1
                    _apply(options, full, role, words[index], certain[index])
                else:
                    options.unknown = True
                    break
            elif role == "optional":
                _apply(options, full, role, value if equals else None, certain[index])
            elif equals:
                options.unknown = True
                break
            else:
                _apply(options, full, role, None, True)
            index += 1
            continue
        if word.startswith("-") and len(word) > 1:
            if spec.numeric and _NUMERIC.match(word):
                index += 1
                continue
            position = 1
            while position < len(word):
                letter = word[position]
                role = spec.short.get(letter)
                if role is None:
                    options.unknown = True
                    return options
                if role in _ROLES_WITH_VALUE:
                    if position + 1 < len(word):
                        _apply(options, letter, role, word[position + 1 :], certain[index])
                    elif index + 1 < len(words):
                        index += 1
                        _apply(options, letter, role, words[index], certain[index])
                    else:
                        options.unknown = True
                        return options
                    break
                if role == "optional":
                    rest = word[position + 1 :]
                    _apply(options, letter, role, rest or None, certain[index])
                    break
                _apply(options, letter, role, None, True)
                position += 1
            index += 1
            continue
        break
    options.index = index
    return options


def unwrap(name: str, words: tuple[str, ...], certain: tuple[bool, ...]) -> Unwrapped:
    """Find what the wrapper ``name`` (a key of :data:`WRAPPERS`) runs.

    Args:
        name: The wrapper's base name.
        words: The command's words (``words[0]`` is the wrapper).
        certain: Per word, True when the word is known before the shell runs.

    Returns:
        Where the wrapped command starts, which texts run as shell lines, and the rest.
    """
    spec = WRAPPERS[name]
    if name == "busybox":
        if len(words) > 1 and words[1].startswith("-"):
            return Unwrapped(runs_nothing=True)
        return Unwrapped(start=1 if len(words) > 1 else None, runs_nothing=len(words) == 1)
    if name in ("script", "su", "runuser", "ssh"):
        return _permuting(name, spec, words, certain)
    if name == "setarch":  # setarch ARCH [options] [program]: the architecture comes first
        if len(words) < 2:
            return Unwrapped(runs_nothing=True)
        shifted = unwrap("linux64", (words[0], *words[2:]), (True, *certain[2:]))
        if shifted.start is not None:
            shifted.start += 1
        return shifted
    options = _options(spec, words, certain)
    result = Unwrapped(
        texts=options.texts,
        directory=spec.directory if options.directory == "." else options.directory,
        assignments=options.env,
        unknown=options.unknown,
        from_stdin=name == "xargs",
        expands_dollar=name == "systemd-run",
    )
    if options.unknown:
        return result
    if options.stop:
        result.runs_nothing = True
        return result
    if name == "systemd-run" and options.seen & {"d", "same-dir"}:
        result.directory = "."
    index = options.index
    if options.texts:  # env -S: the text, then the remaining words as its arguments
        text, known = options.texts[0]
        if any(char in text for char in "\\$"):
            known = False  # env -S decodes escapes and ${VAR} itself
        rest = " ".join(shlex.quote(word) for word in words[index:])
        result.texts = [(f"{text} {rest}".strip(), known and all(certain[index:]))]
        return result
    if name == "sg":
        index += 1  # the group
        if index < len(words) and words[index] == "-c":
            index += 1
        return _joined(result, words, certain, index, stdin_if_empty=True)
    if name == "watch" and not options.seen & {"x", "exec"}:
        return _joined(result, words, certain, index, stdin_if_empty=False)
    if name == "entr" and "s" in options.seen:
        return _joined(result, words, certain, index, stdin_if_empty=False)
    if name == "flock":
        return _flock(result, words, certain, index)
    if name in ("at", "batch") or (options.shell and index >= len(words)):
        result.stdin_shell = True
        return result
    if options.login and name == "sudo" and index >= len(words):
        result.stdin_shell = True
        return result
    if index + spec.operands > len(words):
        result.unknown = True
        return result
    index += spec.operands
    if index >= len(words):
        if spec.shell_without_command:
            result.stdin_shell = True
        elif name == "xargs":
            result.start = len(words)
        else:
            result.runs_nothing = True
        return result
    result.start = index
    return result


def _joined(
    result: Unwrapped,
    words: tuple[str, ...],
    certain: tuple[bool, ...],
    index: int,
    *,
    stdin_if_empty: bool,
) -> Unwrapped:
    rest = words[index:]
    if not rest:
        if stdin_if_empty:
            result.stdin_shell = True
        else:
            result.runs_nothing = True
        return result
    result.texts.append((" ".join(rest), all(certain[index:])))
    return result


def _flock(
    result: Unwrapped, words: tuple[str, ...], certain: tuple[bool, ...], index: int
) -> Unwrapped:
    if index >= len(words):
        result.unknown = True
        return result
    index += 1  # the lock file (or descriptor)
    if index < len(words) and words[index] in ("-c", "--command"):
        if index + 1 < len(words):
            result.texts.append((words[index + 1], certain[index + 1]))
        return result
    if index >= len(words):
        result.runs_nothing = True
        return result
    result.start = index
    return result


def _permuting(
    name: str, spec: _Spec, words: tuple[str, ...], certain: tuple[bool, ...]
) -> Unwrapped:
    """``script``, ``su``, ``runuser`` and ``ssh`` also read options after operands."""
    result = Unwrapped(directory="~" if name == "ssh" else ".")
    operands: list[int] = []
    seen: set[str] = set()
    index = 1
    while index < len(words):
        if name == "runuser" and seen & {"u", "user"} and operands:
            operands.extend(range(index, len(words)))
            break
        if name == "ssh" and len(operands) >= 2:  # ssh reads options after the host too
            operands.extend(range(index, len(words)))
            break
        sub = _options(spec, (name, *words[index:]), (True, *certain[index:]))
        if sub.unknown:
            result.unknown = True
            return result
        if sub.stop:
            result.runs_nothing = True
            return result
        seen |= sub.seen
        result.texts.extend(sub.texts)
        if sub.directory != ".":
            result.directory = sub.directory
        index += sub.index - 1
        if sub.dashdash:
            operands.extend(range(index, len(words)))
            break
        if index < len(words):
            operands.append(index)
            index += 1
    if name == "script":
        if not result.texts:
            result.stdin_shell = True
        return result
    if name == "ssh":
        if not operands:
            result.unknown = True
            return result
        return _joined(result, words, certain, operands[0] + 1, stdin_if_empty=True)
    if name == "runuser" and seen & {"u", "user"}:
        if operands:
            result.start = operands[0]
        else:
            result.runs_nothing = True
        return result
    rest = operands[1:]  # the first operand is the user
    if result.texts:
        return result
    if rest:
        result.start = rest[0]
        result.shell_arguments = True  # the rest goes to the user's shell: a script, -c TEXT
        return result
    result.stdin_shell = True
    return result
