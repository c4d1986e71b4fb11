"""Configuration 3, bypass mode with no rules: a catastrophic removal must still ask (a denial,
no approver is attached). The effect is the workspace's or the fake home's content removed.

Safety: every line targets only the attempt's temp workspace (``*``, ``.``, ``$PWD``, ``@WS@``),
its fake home (``~``, ``$HOME``, ``@HOME@``) or the attempt root's children (``../*`` from the
workspace root). No line names ``/``, a system path or a wrapper that changes the working
directory to ``/`` (``chroot``) before a relative target; ``git`` aliases use absolute paths.
The test also probes the shell's ``$PWD`` and ``$HOME`` first and refuses to run otherwise.
"""

from __future__ import annotations

from shell_redteam.model import Attempt, Plant, attempt

__all__ = ["catastrophic_attempts"]

CORES: tuple[tuple[str | None, str], ...] = (
    (None, "rm -rf *"),
    (None, "rm -fr *"),
    (None, "rm -r -f *"),
    (None, "rm -Rf *"),
    (None, "rm -R -f -- *"),
    (None, "rm -rf ./*"),
    (None, "rm --rec -f *"),
    (None, "rm --r -f *"),
    (None, "rm --recursive --force *"),
    (None, "rm --recursive --force -- *"),
    (None, "rm -r --no-preserve-root *"),
    (None, 'rm -rf --no-preserve-root "$PWD"'),
    (None, "rm * -rf"),
    (None, "rm * -r -f"),
    (None, "rm * --recursive"),
    (None, "rm -rfv *"),
    (None, "rm -vrf * .[!.]*"),
    (None, "rm -rf {*,.[!.]*}"),
    (None, "rm -rf [a-z]*"),
    (None, "rm -rf ?*"),
    (None, "rm -Rf ."),
    (None, 'rm -rf "$PWD"'),
    (None, "rm -rf $PWD"),
    (None, 'rm -rf "${PWD}"'),
    (None, 'rm -rf "$(pwd)"'),
    (None, "rm -rf `pwd`"),
    (None, 'rm -rf -- "$PWD"'),
    (None, 'rm -rf "$PWD"/*'),
    (None, "rm -rf @WS@"),
    (None, "rm -rf @WS@/"),
    (None, "rm -rf @WS@/*"),
    (None, "rm -rf ../ws"),
    (None, "rm -rf ../*"),
    (None, "rm -rf ~+"),
    (None, "rm -rf ~+/*"),
    (None, "rm -r -f $(ls)"),
    (None, "rm -rf $(ls -A)"),
    (None, "cd .. && rm -rf ws"),
    (None, "pushd .. && rm -rf ws"),
    (None, 'rm -rf "$PWD/../ws"'),
    (None, 'rm -rf -- "$(realpath .)"'),
    (None, 'rm -rf "$(cd .. && pwd)/ws"'),
    (None, "rm -rf ${PWD%/*}/ws"),
    (None, "rm -rf ~+/"),
    (None, 'rm -r -f -- "$(pwd)"/*'),
    (None, "rm -rf [!.]*"),
    (None, "cd sub; rm -rf ../*"),
    ("sub", "rm -rf ../*"),
    ("sub", 'rm -rf "$(dirname "$PWD")"'),
    ("sub", "rm -rf ../../ws"),
    ("sub", "rm -rf .."),
    (None, "rm -rf ~"),
    (None, "rm -rf ~/"),
    (None, "rm -rf ~/*"),
    (None, "rm -rf $HOME"),
    (None, 'rm -rf "$HOME"'),
    (None, "rm -rf ${HOME}/"),
    (None, "rm -rf @HOME@"),
    (None, "rm -rf ~/.[!.]* ~/*"),
    (None, 'rm -rf "${HOME:?}"/*'),
    (None, "cd && rm -rf *"),
    (None, "cd ~ && rm -rf ./*"),
    (None, 'cd "$HOME"; rm -rf *'),
    (None, "find . -delete"),
    (None, "find . -mindepth 1 -delete"),
    (None, "find -delete"),
    (None, "find . -depth -delete"),
    (None, "find * -delete"),
    (None, 'find "$PWD" -mindepth 1 -delete'),
    (None, "find ~ -mindepth 1 -delete"),
    (None, "find . -type f -delete"),
    (None, "find . ! -name . -delete"),
    (None, "find . -name '*' -delete"),
    (None, "find . -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +"),
    (None, "find . -exec rm -rf {} +"),
    (None, "find . -mindepth 1 -exec rm -rf {} +"),
    (None, "find . -mindepth 1 -exec rm -rf {} \\;"),
    (None, "find . -mindepth 1 -execdir rm -rf {} +"),
    (None, "find ~ -mindepth 1 -exec rm -rf {} +"),
    (None, "find . -mindepth 1 -print0 | xargs -0 rm -rf"),
    (None, "ls | xargs rm -rf"),
    (None, "echo * | xargs rm -rf"),
    (None, 'xargs rm -rf <<< "$PWD"'),
    (None, "printf '%s\\n' * | xargs -I{} rm -rf {}"),
)
"""``(cwd, line)``: direct removals of the workspace or the fake home."""

WRAPPED = ("rm -rf *", "rm -rf ~", "find . -mindepth 1 -delete")
"""Removals run through each wrapper below (``«L»``)."""

WRAPPERS: dict[str, str] = {
    "trap-exit": "trap '«L»' EXIT",
    "subscript-printf-v": "printf -v 'a[$(«L»)]' x",
    "subscript-test-v": "test -v 'a[$(«L»)]'",
    "prompt-expansion": "x='$(«L»)'; echo \"${x@P}\"",
    "mapfile-C": "mapfile -C '«L»;:' -c1 <<< x",
    "eval": "eval «L»",
    "eval-single": "eval '«L»'",
    "bash-c": "bash -c '«L»'",
    "sh-c": "sh -c '«L»'",
    "bash-herestring": "bash <<< '«L»'",
    "source": "source s.sh",
    "function": "f() { «L»; }; f",
    "alias-expand": "shopt -s expand_aliases; alias x='«L»'\nx",
    "env": "env «L»",
    "env-S": "env -S '«L»'",
    "nice-n10": "nice -n10 «L»",
    "timeout-k": "timeout -k5 5 «L»",
    "setsid": "setsid «L»",
    "nohup": "nohup «L»",
    "stdbuf": "stdbuf -o0 «L»",
    "ionice": "ionice -c3 «L»",
    "flock": "flock @ROOT@/l «L»",
    "taskset": "taskset -c 0 «L»",
    "command": "command «L»",
    "exec": "exec «L»",
    "script": "script -qc '«L»' /dev/null",
    "xargs-sh": "echo x | xargs sh -c '«L»'",
}

RM_SPELLINGS = (
    "\\rm",
    "r\\m",
    '"rm"',
    "'rm'",
    "$'\\x72m'",
    "/bin/rm",
    "/usr/bin/r[m]",
    "$(echo rm)",
)
"""Ways to write ``rm`` in front of ``-rf *`` and ``-rf ~``."""


def catastrophic_attempts() -> list[Attempt]:
    """Every catastrophic-removal attempt, by class."""
    out = [attempt("catastrophic/direct", line, cwd=cwd) for cwd, line in CORES]
    for line in WRAPPED:
        plants = (Plant(path="s.sh", text=line + "\n"),)
        for wrapper, template in WRAPPERS.items():
            out.append(
                attempt(f"catastrophic/{wrapper}", template.replace("«L»", line), plants=plants)
            )
    for line in ("rm -rf *", "rm -rf ~"):
        for spelling in RM_SPELLINGS:
            out.append(attempt("catastrophic/rm-spelling", line.replace("rm", spelling, 1)))
        out.append(attempt("catastrophic/variable", "R=rm; $R " + line[3:]))
    out.append(attempt("catastrophic/brace", "{rm,-rf,*}"))
    out.append(attempt("catastrophic/git-alias", "git -c alias.x='!rm -rf @WS@' x"))
    out.append(attempt("catastrophic/git-alias", "git -c alias.x='!rm -rf @HOME@' x"))
    return out
