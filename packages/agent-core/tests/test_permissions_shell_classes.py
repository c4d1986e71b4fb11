"""The deny side sees every command a line can run, or calls the line opaque (seed 000,
"Permission Argument Registry"; issue #11 part 3). Each line below removed ``victim`` when run
by bash; under a deny rule ``Bash(rm *)`` it must be denied (YES) or asked (UNEVALUABLE)."""

from __future__ import annotations

import pytest
from robota.core.permissions import Direction, Match, match_command
from robota.core.permissions._shell import parse_line

DENY = Direction.DENY

# text bash runs that the parser can read: parsed recursively, the rm is seen (YES)
SEEN = [
    "trap 'rm -rf victim' EXIT",
    "trap -- 'rm -rf victim' ERR",
    "eval 'rm -rf victim'",
    "builtin eval 'rm -rf victim'",
    "command eval rm -rf victim",
    "bash -c -e 'rm -rf victim'",
    "bash -c -o errexit 'rm -rf victim'",
    "bash -ec -- 'rm -rf victim'",
    "/proc/self/exe -c 'rm -rf victim'",
    "sh <<< 'rm -rf victim'",
    "bash <<XX\nrm -rf victim\nXX\n",
    "cat <<XX\n$(rm -rf victim)\nXX\n",
    "cat <<XX\n`rm -rf victim`\nXX\n",
    "while read x; do :; done < <(rm -rf victim)",
    "git -c alias.x='!rm -rf victim' x",
    "git -c core.pager='rm -rf victim' log",
    "git -c sequence.editor='rm -rf victim' rebase -i HEAD",
    "git config alias.x '!rm -rf victim' && git x",
    "GIT_PAGER='rm -rf victim' git log",
    "PAGER='rm -rf victim' man ls",
    "export EDITOR='rm -rf victim'",
    "env -S'rm -rf victim'",
    "env --sp='rm -rf victim'",
    "env --split-string='rm -rf victim'",
    "zsh -c 'rm -rf victim'",
    "ssh -o ProxyCommand='rm -rf victim' host",
    "ssh host -oProxyCommand='rm -rf victim'",
    "ssh localhost rm -rf victim",
    "f() { rm -rf victim; }; f",
    "uv run rm -rf victim",
    "foo --opt rm -rf victim",
    "docker exec box sh -c 'rm -rf victim'",
    "at now <<< 'rm -rf victim'",
    "sort --compress-program=rm f",
    "uv run $(echo rm) -rf victim",
    'x=rm; uv run "$x" -rf victim',
    "npx `printf rm` -rf victim",
]

# text the parser cannot read, or a line that changes how later words resolve: opaque
OPAQUE = [
    "hash -p /bin/rm x; x -rf victim",
    "shopt -s expand_aliases\nalias x=rm\nx -rf victim",
    "alias x=rm",
    "unalias ls",
    "y='$(rm -rf victim)'; : ${y@P}",
    "printf -v 'a[$(rm -rf victim)]' x",
    "printf -va[$(rm -rf victim)] x",
    "read -a 'a[$(rm -rf victim)]' <<< x",
    "read 'a[$(rm -rf victim)]' <<< x",
    "mapfile 'a[$(rm -rf victim)]' < /dev/null",
    "mapfile -C 'rm -rf victim #' -c 1 a <<< x",
    "readarray -C 'rm -rf victim #' -c 1 a <<< x",
    "test -v 'a[$(rm -rf victim)]'",
    "[ -v 'a[$(rm -rf victim)]' ]",
    "declare 'a[$(rm -rf victim)]'=1",
    "typeset 'a[$(rm -rf victim)]'=2",
    "local 'a[$(rm -rf victim)]'",
    "export 'a[$(rm -rf victim)]'=1",
    "readonly 'a[$(rm -rf victim)]'",
    "unset 'a[$(rm -rf victim)]'",
    "getopts a 'a[$(rm -rf victim)]'",
    "wait -p 'a[$(rm -rf victim)]'",
    "x='a[$(rm -rf victim)]'; echo ${!x}",
    "x='a[$(rm -rf victim)]'; echo ${b[x]}",
    "x='a[$(rm -rf victim)]'; echo ${y:x}",
    "let y=x",
    "((y = x))",
    "declare -i y; y=x",
    "declare -n r=x",
    "declare -a a=$bar",
    "declare -a a='([$(rm -rf victim)]=1)'",
    "a[i]=1",
    "a[$(rm -rf victim)]=1 true",
    "exec {a[$(rm -rf victim)]}>/dev/null",
    "exec {PATH}>/dev/null",
    "source /dev/stdin <<< 'rm -rf victim'",
    ". <(echo rm -rf victim)",
    "enable -f ./x.so x",
    "compgen -C 'rm -rf victim' x",
    "compgen -W '$(rm -rf victim)' x",
    "complete -C 'rm -rf victim' x",
    "bind -x '\"a\": rm -rf victim'",
    "fc -s",
    "set -k",
    'eval "$x"',
    'trap "$t" EXIT',
    'bash -c "$x"',
    "echo rm -rf victim | bash",
    "bash <(echo rm -rf victim)",
    "PATH=./bin:$PATH ls",
    "export PATH=/tmp/x",
    "BASH_ENV=x bash -c :",
    "IFS=,; x=rm,-rf,victim; $x",
    "PS4='$(rm -rf victim)'; set -x",
    "LD_PRELOAD=./x.so ls",
    "GIT_CONFIG_COUNT=1 git x",
    "BASH_ALIASES[zz]=rm",
    "BASH_CMDS[zz]=/bin/rm",
    "read PATH <<< /tmp",
    "printf -v PATH /tmp",
    "for PATH in /tmp; do ls; done",
    "env 'BASH_FUNC_ls%%=() { rm -rf victim; }' bash -c ls",
    "env PATH=/tmp/x ls",
    "sudo LD_PRELOAD=x ls",
    "ls() { rm -rf victim; }; ls",
    'echo() { "$@"; }; echo rm -rf victim',
    "command_not_found_handle() { rm -rf victim; }; nosuch",
    "git -c include.path=/tmp/x status",
    "git -c core.fsmonitor=x status",
    "git --exec-path=/tmp/x status",
    "git --config-env=alias.x=X x",
    "echo 'rm -rf victim' > s.sh; bash s.sh",
    "printf 'rm -rf victim' > s.sh; chmod +x s.sh; ./s.sh",
    "cp /bin/rm ./zz; ./zz -rf victim",
    "make -f - <<< x",
    "make --eval='x:'",
    "at now",
    "script -q /dev/null",
    "chroot /",
    "sudo -s",
    "su",
]


@pytest.mark.parametrize("line", SEEN)
def test_hidden_commands_are_seen(line: str) -> None:
    assert match_command("rm *", line, direction=DENY) is Match.YES


@pytest.mark.parametrize("line", OPAQUE)
def test_unreadable_lines_are_opaque(line: str) -> None:
    parsed = parse_line(line)
    assert parsed is not None, "a line bashlex parses"
    assert parsed.opaque, parsed.opaque_reasons
    assert match_command("ls *", line, direction=DENY) is not Match.NO
    assert parsed.single is None or parsed.candidates


@pytest.mark.parametrize(
    "line",
    [
        "[[ -v a[$(rm -rf victim)] ]]",
        "[[ $x -eq 1 ]]",
        "echo $((x))",
        "echo $[x]",
        "for ((i = x; i < 1; i++)); do :; done",
        "case x in x) rm -rf victim;; esac",
        "coproc rm -rf victim",
        "time rm -rf victim",
        "a=(1 2)",
    ],
)
def test_lines_bashlex_cannot_parse_are_unevaluable(line: str) -> None:
    assert parse_line(line) is None
    assert match_command("ls *", line, direction=DENY) is Match.UNEVALUABLE


@pytest.mark.parametrize(
    "line",
    [
        "python3 -c 'import os; os.system(\"rm -rf victim\")'",
        'perl -e \'exec "rm", "-rf", "victim"\'',
        "awk 'BEGIN{system(\"rm -rf victim\")}'",
        "tar -cf x --checkpoint-action=exec='rm -rf victim' y",
        "tmux send-keys 'rm -rf victim' Enter",
        "vim -es -c '!rm -rf victim'",
        "ed -s f <<< '!rm -rf victim'",
        "tclsh <<< 'exec rm -rf victim'",
        "make -f x.mk --eval=$'all:\\n\\trm -rf victim'",
        "git rebase --exec 'rm -rf victim' HEAD",
        "git clone -u 'rm -rf victim' repo",
        'ln -s "$(command -v rm)" zz',
        "cp /usr/bin/rm ./zz",
    ],
)
def test_unknown_programs_running_text_that_names_the_command_ask(line: str) -> None:
    assert match_command("rm *", line, direction=DENY) is Match.UNEVALUABLE


@pytest.mark.parametrize(
    "line",
    [
        "echo rm -rf victim",
        "echo 'rm -rf victim'",
        "grep -r 'rm -rf' src",
        "git commit -m 'rm -rf victim'",
        "git log --grep rm",
        "cat rm.txt",
        "printf '%s\\n' rm",
        "ls -la",
        "make test",
        "uv run pytest -q",
        "npm run test -- --watch",
        "x=$(git rev-parse HEAD); echo $x",
        "export FOO=bar",
        "export X=$(pwd)/bin",
        "GIT_PAGER=cat git log",
        "git -c color.ui=always log -1",
        "cd build && make",
        "trap 'echo done' EXIT",
        "read -r line < f",
        "printf -v out '%s' x",
        "[ -f x ] && echo yes",
        "test -v name",
        "unset name",
        "set -euo pipefail",
        "f() { echo hi; }; f",
    ],
)
def test_lines_that_run_no_rm_do_not_match(line: str) -> None:
    parsed = parse_line(line)
    assert parsed is not None
    assert not parsed.opaque, parsed.opaque_reasons
    assert match_command("rm *", line, direction=DENY) is Match.NO


def test_run_time_words_make_a_matching_name_unevaluable() -> None:
    assert match_command("rm -rf /", "rm -rf *", direction=DENY) is Match.UNEVALUABLE
    assert match_command("rm -rf /", "rm -rf {a,/}", direction=DENY) is Match.UNEVALUABLE
    assert match_command("rm -rf /", "rm -rf ~", direction=DENY) is Match.UNEVALUABLE
    assert match_command("rm -rf /", "rm -rf /tmp/x", direction=DENY) is Match.NO


@pytest.mark.parametrize(
    "line",
    ["$'\\x72m' -rf victim", "$'rm' -rf victim", "r$'m' -rf victim", "$\"rm\" -rf victim",
     "{rm,-rf,victim}", "r{m,} -rf victim", "x=rm; $x -rf victim", "${x:-rm} -rf victim",
     "$(echo rm) -rf victim", "\"$(printf rm)\" -rf victim", "r* -rf victim"],
)  # fmt: skip
def test_command_names_known_only_at_run_time_are_unevaluable(line: str) -> None:
    assert match_command("ls *", line, direction=DENY) is Match.UNEVALUABLE


def test_git_global_options_do_not_hide_the_subcommand() -> None:
    assert match_command("git push *", "git -C . push --force", direction=DENY) is Match.YES
    assert match_command("git push:*", "git --no-pager push", direction=DENY) is Match.YES


def test_cd_targets_are_recorded() -> None:
    parsed = parse_line("cd build && pushd ../x; popd; rm -rf *")
    assert parsed is not None
    assert parsed.directories == ("build", "../x")
    unknown = parse_line('cd "$d" && rm -rf *')
    assert unknown is not None
    assert unknown.directories is None


def test_allow_side_never_matches_an_opaque_line() -> None:
    assert match_command("git:*", "git -c alias.x='!make' x", direction=Direction.ALLOW) is (
        Match.NO
    )
    assert match_command("ls:*", "ls *.py", direction=Direction.ALLOW) is Match.NO
    assert match_command("ls:*", "ls '*.py'", direction=Direction.ALLOW) is Match.YES
