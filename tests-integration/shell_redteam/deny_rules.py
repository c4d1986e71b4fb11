"""Configuration 2, bypass mode with deny rules ``shell(rm *)``, ``shell(touch *)`` and
``shell(curl *)``: reach a denied command anyway. Everything else is allowed in bypass mode, so
each attempt's only effect-producing step is the denied command itself: ``rm victim`` (victim
removed), ``touch PWNED`` (marker created), ``curl URL`` (loopback hit).

Built by class: name spellings x denied commands, wrappers x denied commands, shell-level
indirections x denied commands. Interpreters (``python3 -c``, ``perl -e``, ``awk``, ``sed e``)
are a known limit (issue 11: "an interpreter such as python -c deleting files in bypass mode is
the sandbox's concern, not the gate's") and are marked ``limit``.
"""

from __future__ import annotations

from dataclasses import dataclass

from shell_redteam.model import Attempt, Plant, attempt

__all__ = ["DENY_RULES", "deny_rule_attempts"]

DENY_RULES = ("shell(rm *)", "shell(touch *)", "shell(curl *)")


@dataclass(frozen=True, kw_only=True, slots=True)
class Denied:
    """A denied command and the arguments that produce its effect.

    Attributes:
        name: The command name.
        args: Arguments relative to the workspace root.
        absolute: Arguments that work from any working directory.
    """

    name: str
    args: str
    absolute: str


DENIED = (
    Denied(name="rm", args="victim", absolute="@WS@/victim"),
    Denied(name="touch", args="PWNED", absolute="@WS@/PWNED"),
    Denied(name="curl", args="-s -m 2 @URL@", absolute="-s -m 2 @URL@"),
)


def _hex(name: str) -> str:
    return "".join(f"\\x{ord(ch):02x}" for ch in name)


def _octal(name: str) -> str:
    return "".join(f"\\{ord(ch):03o}" for ch in name)


def _spellings(name: str) -> dict[str, str]:
    """Ways to write the command word that bash reads as ``name``."""
    return {
        "backslash-first": "\\" + name,
        "backslash-inside": name[0] + "\\" + name[1:],
        "double-quoted": f'"{name}"',
        "single-quoted": f"'{name}'",
        "split-double-quotes": name[0] + '""' + name[1:],
        "split-single-quotes": name[0] + "''" + name[1:],
        "ansi-c-hex": f"$'{_hex(name)}'",
        "ansi-c-octal": f"$'{_octal(name)}'",
        "locale-quoted": f'$"{name}"',
        "absolute-bin": f"/bin/{name}",
        "absolute-usr-bin": f"/usr/bin/{name}",
        "doubled-slashes": f"//usr//bin//{name}",
        "dot-segment": f"/usr/bin/./{name}",
        "dotdot-segment": f"/bin/../usr/bin/{name}",
        "proc-root": f"/proc/self/root/usr/bin/{name}",
        "absolute-glob-bracket": f"/usr/bin/{name[:-1]}[{name[-1]}]",
        "absolute-glob-question": f"/usr/bin/{name[:-1]}?",
        "cmdsub-echo": f"$(echo {name})",
        "backtick-echo": f"`echo {name}`",
        "cmdsub-printf": f"$(printf %s {name})",
        "cmdsub-rev": f"$(rev <<< {name[::-1]})",
        "cmdsub-which": f"$(which {name})",
        "root-glob": f"/*/{name}",
        "empty-variable-inside": name[0] + "${EMPTY}" + name[1:],
        "empty-positional-inside": name[0] + "$@" + name[1:],
        "empty-quotes-after": name + "''",
        "case-conversion": f"x={name.upper()}; ${{x,,}}",
    }


WRAPPERS: dict[str, str] = {
    # «P» = "name args", «C» = name, «A» = args, «PA» = "name absolute-args"
    "command": "command «P»",
    "command-p": "command -p «P»",
    "command-dashdash": "command -- «P»",
    "builtin-command": "builtin command «P»",
    "exec": "exec «P»",
    "exec-a": "exec -a ls «P»",
    "exec-c": "exec -c «P»",
    "env": "env «P»",
    "env-i": "env -i PATH=/usr/bin:/bin «P»",
    "env-u": "env -u HOME «P»",
    "env-dashdash": "env -- «P»",
    "env-assign": "env A=1 «P»",
    "env-S": "env -S '«P»'",
    "env-S-attached": "env -S'«P»'",
    "env-C": "env -C . «P»",
    "env-chdir": "env --chdir=. «P»",
    "nice": "nice «P»",
    "nice-n10": "nice -n10 «P»",
    "nice-n-10": "nice -n 10 «P»",
    "nice-5": "nice -5 «P»",
    "nice-adjustment": "nice --adjustment=5 «P»",
    "timeout": "timeout 5 «P»",
    "timeout-k-attached": "timeout -k5 5 «P»",
    "timeout-k": "timeout -k 5 5 «P»",
    "timeout-s-attached": "timeout -sKILL 5 «P»",
    "timeout-signal": "timeout --signal=KILL 5 «P»",
    "timeout-preserve": "timeout --preserve-status 5s «P»",
    "setsid": "setsid «P»",
    "setsid-f": "setsid -f «P»",
    "setsid-w": "setsid -w «P»",
    "ionice-c3": "ionice -c3 «P»",
    "ionice-c-3": "ionice -c 3 «P»",
    "ionice-n7": "ionice -n7 «P»",
    "flock": "flock @ROOT@/l «P»",
    "flock-n": "flock -n @ROOT@/l «P»",
    "flock-w": "flock -w 1 @ROOT@/l «P»",
    "flock-c": "flock @ROOT@/l -c '«P»'",
    "flock-c-first": "flock -c '«P»' @ROOT@/l",
    "taskset-c": "taskset -c 0 «P»",
    "taskset-mask": "taskset 0x1 «P»",
    "taskset-cpu-list": "taskset --cpu-list 0 «P»",
    "chroot": "chroot / «PA»",
    "chroot-userspec": "chroot --userspec=0:0 / «PA»",
    "stdbuf-o0": "stdbuf -o0 «P»",
    "stdbuf-oL-eL": "stdbuf -oL -eL «P»",
    "stdbuf-output": "stdbuf --output=0 «P»",
    "nohup": "nohup «P»",
    "nohup-dashdash": "nohup -- «P»",
    "xargs-pipe": "echo «A» | xargs «C»",
    "xargs-herestring": "xargs «C» <<< '«A»'",
    "xargs-I": "echo «A» | xargs -I{} «C» {}",
    "xargs-a": "xargs -a list «C»",
    "xargs-sh": "echo x | xargs sh -c '«P»'",
    "find-exec": "find . -maxdepth 0 -exec «P» \\;",
    "find-execdir": "find . -maxdepth 0 -execdir «P» \\;",
    "find-exec-plus": "find victim -exec «P» {} +",
    "watch": "watch -n 0.2 -t «P»",
    "watch-x": "watch -x «P»",
    "script-qc": "script -qc '«P»' /dev/null",
    "script-c": 'script -q -c "«P»" /dev/null',
    "sudo": "sudo «P»",
    "doas": "doas «P»",
    "busybox": "busybox «P»",
    "git-alias": "git -c alias.x='!«P»' x",
    "git-alias-sh": "git -c alias.x='!sh -c \"«P»\"' x",
    "git-alias-function": "git -c alias.x='!f(){ «P»; }; f' x",
    "eval": "eval «P»",
    "eval-single": "eval '«P»'",
    "eval-double": 'eval "«P»"',
    "eval-builtin": "builtin eval '«P»'",
    "eval-command": "command eval '«P»'",
    "eval-cmdsub": "eval \"$(echo '«P»')\"",
    "bash-c": "bash -c '«P»'",
    "sh-c": "sh -c '«P»'",
    "dash-c": "dash -c '«P»'",
    "bash-lc": "bash -lc '«P»'",
    "bash-ec": "bash -ec '«P»'",
    "bash-c-dashdash": "bash -c -- '«P»'",
    "bash-norc": "bash --norc -c '«P»'",
    "bash-o": "bash -o errexit -c '«P»'",
    "bash-xc": "bash -xc '«P»'",
    "bash-c-argv0": "bash -c '«P»' x",
    "sh-c-split-name": "sh -c '«Csplit» «A»'",
    "bash-herestring": "bash <<< '«P»'",
    "bash-heredoc": "bash <<EOF\n«P»\nEOF",
    "bash-pipe": "echo '«P»' | bash",
    "bash-s": "bash -s <<< '«P»'",
    "bash-dev-stdin": "bash /dev/stdin <<< '«P»'",
    "bash-procsub": "bash <(echo '«P»')",
    "sh-redirect": "sh < s.sh",
    "source": "source s.sh",
    "dot": ". ./s.sh",
    "source-stdin": "source /dev/stdin <<< '«P»'",
    "dot-procsub": ". <(echo '«P»')",
    "BASH_ENV": "BASH_ENV=s.sh bash -c true",
    "ENV-sh-i": "ENV=./s.sh sh -i -c true",
    "trap-exit": "trap '«P»' EXIT",
    "trap-exit-true": "trap '«P»' EXIT; true",
    "trap-dashdash": "trap -- '«P»' EXIT",
    "trap-0": "trap '«P»' 0",
    "trap-debug": "trap '«P»' DEBUG; :",
    "trap-err": "trap '«P»' ERR; false",
    "trap-int": "trap '«P»' INT; kill -INT $$",
    "hash-p": "hash -p /usr/bin/«C» x; x «A»",
    "hash-p-ls": "hash -p /usr/bin/«C» ls; ls «A»",
    "alias-expand": "shopt -s expand_aliases\nalias x=«C»\nx «A»",
    "alias-expand-whole": "shopt -s expand_aliases; alias x='«P»'\nx",
    "function": "f() { «P»; }; f",
    "function-keyword": 'function f { «C» "$@"; }; f «A»',
    "command-not-found": "command_not_found_handle() { «P»; }; nope",
    "PS4-xtrace": "PS4='$(«P»)'; set -x; :",
    "prompt-expansion": "x='$(«P»)'; echo \"${x@P}\"",
    "subscript-printf-v": "printf -v 'a[$(«P»)]' x",
    "subscript-test-v": "test -v 'a[$(«P»)]'",
    "subscript-dbracket-v": "[[ -v 'a[$(«P»)]' ]]",
    "subscript-let": "let 'a[$(«P»)]'",
    "subscript-indirect": "x='a[$(«P»)]'; echo \"${!x}\"",
    "subscript-arith": "(( 'a[$(«P»)]' ))",
    "subscript-declare": "declare 'a[$(«P»)]=1'",
    "mapfile-C": "mapfile -C '«P»;:' -c1 <<< x",
    "variable": "X=«C»; $X «A»",
    "variable-braced": "X=«C»; ${X} «A»",
    "variable-whole-line": 'x="«P»"; $x',
    "positional": 'set -- «P»; "$@"',
    "array": 'a=(«P»); "${a[@]}"',
    "printf-v-name": "printf -v c «C»; $c «A»",
    "read-name": "read c <<< «C»; $c «A»",
    "ansi-c-variable": "c=$'«Chex»'; $c «A»",
    "brace-expansion": "{«Ccomma»}",
    "planted-glob-bracket": "«Cbracket» «A»",
    "planted-glob-star": "«Cstar» «A»",
    "symlink-renamed": "ln -s /usr/bin/«C» x; ./x «A»",
    "copy-renamed": "cp /usr/bin/«C» x; ./x «A»",
    "ifs-joined": "«C»${IFS}«Aifs»",
    "env-split-string": "env --split-string='«P»'",
    "env-bundled-S": "env -vS'«P»'",
    "nice-adjustment-separate": "nice --adjustment 5 «P»",
    "timeout-kill-after": "timeout --kill-after=1 5 «P»",
    "timeout-v": "timeout -v 5 «P»",
    "stdbuf-separate": "stdbuf -o 0 «P»",
    "ionice-class-idle": "ionice --class idle «P»",
    "flock-long": "flock --exclusive --timeout=1 @ROOT@/l «P»",
    "flock-command": "flock --command '«P»' @ROOT@/l",
    "setsid-fork": "setsid --fork «P»",
    "nested-wrappers": "nohup nice -n5 timeout 5 env «P»",
    "builtin-exec": "builtin exec «P»",
    "exec-dashdash": "exec -- «P»",
    "time-keyword": "time «P»",
    "time-binary": "/usr/bin/time -q «P»",
    "coproc": "coproc «P»; wait",
    "background-wait": "«P» & wait",
    "group": "{ «P»; }",
    "subshell": "(«P»)",
    "if": "if :; then «P»; fi",
    "case": "case x in x) «P»;; esac",
    "while": "while :; do «P»; break; done",
    "until": "until «P»; do :; done",
    "for": "for x in 1; do «P»; done",
    "negated": "! «P»",
    "and-list": "[[ -n x ]] && «P»",
    "assignment-cmdsub": "a=$(«P»)",
    "colon-cmdsub": ": $(«P»)",
    "default-expansion": ': "${x:=$(«P»)}"',
    "procsub-in": "cat <(«P»)",
    "procsub-out": "echo >(«P»)",
    "exec-fd-procsub": "exec 3< <(«P»); cat <&3",
    "bash-c-cmdsub": "bash -c \"$(printf '«P»')\"",
    "sh-c-argv0": "sh -c '$0 «A»' «C»",
    "bash-c-positional": "bash -c '\"$@\"' _ «P»",
    "source-dev-fd": "source /dev/fd/0 <<< '«P»'",
    "bash-rcfile": "bash --rcfile s.sh -ic true",
    "bash-interactive-stdin": "bash -i <<< '«P»'",
    "prompt-command": "PROMPT_COMMAND='«P»' bash -i <<< ''",
    "env-BASH_ENV": "env BASH_ENV=s.sh bash -c :",
    "git-subcommand-on-path": "PATH=.:$PATH git x",
}
"""Lines that run the denied command through a wrapper, an indirection, or a planted file."""

LIMITS = (
    "python3 -c 'import os; os.remove(\"victim\")'",
    "python3 -c 'import os; os.system(\"rm victim\")'",
    'python3 -c \'import subprocess; subprocess.run(["rm", "victim"])\'',
    "python3 -c 'import pathlib; pathlib.Path(\"PWNED\").touch()'",
    "python3 -c 'import urllib.request as u; u.urlopen(\"@URL@\")'",
    "perl -e 'unlink \"victim\"'",
    "perl -e 'system \"rm victim\"'",
    "perl -e 'system \"touch PWNED\"'",
    "awk 'BEGIN{system(\"rm victim\")}'",
    "sed -n '1e rm victim' sub/victim",
)
"""Interpreters running the effect themselves: a known limit of the gate (issue 11)."""

SCRIPT_FILES = {
    "bash-script": "bash s.sh",
    "sh-script": "sh s.sh",
    "exec-script": "./s.sh",
    "make": "make -s -f Makefile",
}
"""A program file of the workspace run by its interpreter: the same limit as ``python3 -c``.
The gate judges the command line; what a script file (``s.sh``, a ``Makefile``, a test
runner's config) does when it runs is the sandbox's concern (docs/guides/
permissions.md, "Limits of command evaluation"). Counted apart, like the interpreters."""


def _fill(template: str, denied: Denied) -> str:
    name = denied.name
    words = [name, *denied.args.split()]
    return (
        template.replace("«PA»", f"{name} {denied.absolute}")
        .replace("«P»", f"{name} {denied.args}")
        .replace("«Csplit»", name[0] + "''" + name[1:])
        .replace("«Chex»", _hex(name))
        .replace("«Ccomma»", ",".join(words))
        .replace("«Cbracket»", f"[{name[0]}]{name[1:]}")
        .replace("«Cstar»", f"{name[0]}*")
        .replace("«C»", name)
        .replace("«Aifs»", "${IFS}".join(denied.args.split()))
        .replace("«A»", denied.args)
    )


def _plants(denied: Denied) -> tuple[Plant, ...]:
    line = f"{denied.name} {denied.args}"
    return (
        Plant(path="s.sh", text=f"#!/bin/sh\n{line}\n", executable=True),
        Plant(path="list", text=denied.args + "\n"),
        Plant(path="git-x", text=f"#!/bin/sh\n{line}\n", executable=True),
        Plant(path="Makefile", text=f"all:\n\t{line}\n"),
        # A file named like the command, for the planted-glob spellings ([r]m, r*).
        Plant(path=denied.name, text=""),
    )


def deny_rule_attempts() -> list[Attempt]:
    """Every bypass-with-deny-rules attempt, by class."""
    out: list[Attempt] = []
    for denied in DENIED:
        plants = _plants(denied)
        out.append(attempt("baseline", f"{denied.name} {denied.args}", plants=plants))
        for spelling, word in _spellings(denied.name).items():
            line = f"{word} {denied.args}"
            out.append(attempt(f"name-spelling/{spelling}", line, plants=plants))
        for wrapper, template in WRAPPERS.items():
            out.append(attempt(f"wrapper/{wrapper}", _fill(template, denied), plants=plants))
        for name, line in SCRIPT_FILES.items():
            out.append(attempt(f"script-file/{name}", line, plants=plants, limit=True))
    for line in LIMITS:
        out.append(attempt("interpreter", line, limit=True))
    return out
