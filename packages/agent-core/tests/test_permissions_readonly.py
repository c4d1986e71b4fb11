"""The read-only ("inspect") classification of shell lines fails closed (seed 000, "Permission
System": the inspect exception; "Path Containment"; issue 11).

Table tests by class: what the line may hold, which words count as literals, which options
each command may use, which files it may name (from the call's cwd, after symlinks), and which
environment refuses. The repository checks of ``git`` are in ``test_permissions_readonly_git``;
lines really run through bash are in ``test_permissions_readonly_bash``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from robota.core.host.paths import canonical_path
from robota.core.permissions import (
    Behavior,
    DecisionStep,
    PermissionCall,
    PermissionContext,
    evaluate_permission,
)
from robota.core.permissions._readonly import READ_ONLY_COMMANDS, is_read_only_line, literal_word
from robota.core.permissions._readonly_options import (
    COMMANDS,
    GIT_SUBCOMMANDS,
    Kind,
    OptionSpec,
    command_plan,
    parse_options,
)
from robota.core.permissions._shell import parse_line
from robota.core.tools.base import ArgumentKind, PermissionArgument, RiskClass

ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin"}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace with files, and a secret outside it reachable through symlinks."""
    root = tmp_path / "ws"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "a.py").write_text("foo = 1\n")
    (root / "README.md").write_text("hello\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("s3cret\n")
    (root / "link-out").symlink_to(outside / "secret")
    (root / "dir-out").symlink_to(outside)
    (root / "link-in").symlink_to(root / "README.md")
    return canonical_path(root)


def ro(line: str, ws: Path, *, cwd: Path | None = None, env: dict[str, str] | None = None) -> bool:
    return is_read_only_line(
        parse_line(line),
        workspace=ws,
        home=ws / "home",
        cwd=cwd,
        environ=ENV if env is None else env,
    )


# --- accepted ---------------------------------------------------------------------------------

ACCEPTED = [
    "ls", "ls -la src", "ls -la --color=auto src", "ls -R", "cat README.md", "cat -n 'README.md'",
    "head -5 README.md", "head -n 3 README.md", "tail -n +2 README.md", "tail -n+2 README.md", "wc -l src/a.py",
    "grep -rn foo .", "grep -rn 'foo.*bar' src", "grep -e -R src/a.py", "grep -c foo -- README.md",
    "grep --include='*.py' -r foo src", "egrep 'a|b' README.md", "fgrep x README.md",
    "find . -name '*.py' -print", "find src -type f -newer README.md", "find . ! -name x -o -empty",
    "pwd", "echo hi there", "echo -n 'a*b'", "true", "false", "which ls", "file README.md",
    "stat -c %s README.md", "du -sh .", "du --max-depth=1 src", "basename /a/b.txt .txt",
    "dirname /etc/passwd", "realpath src/a.py", "readlink -f link-in", "cmp README.md src/a.py",
    "diff README.md src/a.py", "diff -r --no-dereference src src", "whoami", "id -un",
    "uname -a", "cat link-in", "ls src | wc -l", "ls; pwd && echo ok || true", "ls &",
    "cat README.md\nls src", "rg -n 'def foo' src", "rg --files src", "grep \"\\$x\" src/a.py", "grep 'end$' README.md",
]  # fmt: skip


@pytest.mark.parametrize("line", ACCEPTED)
def test_read_only_lines_are_inspect(ws: Path, line: str) -> None:
    assert ro(line, ws)


# --- the line ---------------------------------------------------------------------------------

LINE_REFUSED = [
    "ls > out.txt", "cat < README.md", "cat <<EOF\nx\nEOF", "ls 2>&1", "X=1 ls", "ls $(pwd)",
    "ls `pwd`", "ls <(pwd)", "(ls)", "{ ls; }", "if true; then ls; fi", "for f in a; do ls; done",
    "f() { ls; }", "env ls", "command ls", "nohup ls", "sudo ls", "xargs ls", "bash -c 'ls'",
    "ls | bash", "eval ls", "time ls", "! ls", "ls |& cat", "/bin/ls", "./ls", "\\ls; rm x",
    "ls 'unterminated", "", "   ", "rm -rf build", "touch x", "printf x", "printf -v a x",
    "sh script.sh", "python -c 1", "source x", ". x", "cd src", "exec ls",
]  # fmt: skip


@pytest.mark.parametrize("line", LINE_REFUSED)
def test_line_shapes_that_are_not_inspect(ws: Path, line: str) -> None:
    assert not ro(line, ws)


def test_unparsed_line_is_not_inspect(ws: Path) -> None:
    assert not is_read_only_line(None, workspace=ws, home=ws, environ=ENV)


# --- every word is a literal -------------------------------------------------------------------

EXPANSION_REFUSED = [
    "cat *", "cat src/*.py", "cat ?EADME.md", "cat [R]EADME.md", "ls {src,.}", "cat ~/x",
    "ls ~", "ls ~root", "cat $HOME", "cat ${HOME}", "cat \"$HOME\"", "echo $((1+1))",
    "echo $'\\x41'", "echo $\"x\"", "cat a=~/x", "printf -v 'a[$(touch m)]' x",
    "echo \"`id`\"", "grep foo *", "rg pattern *", "find *", "git diff *", "ls src/{a,b}",
]  # fmt: skip


@pytest.mark.parametrize("line", EXPANSION_REFUSED)
def test_words_bash_rewrites_are_not_inspect(ws: Path, line: str) -> None:
    assert not ro(line, ws)


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("plain", "plain"),
        ("'a*b'", "a*b"),
        ('"a*b"', "a*b"),
        ("a\\*b", "a*b"),
        ("--glob='*.py'", "--glob=*.py"),
        ("'$HOME'", "$HOME"),
        ('"a\\$b"', "a$b"),
        ('"a\\b"', "a\\b"),
        ("'a'\"b\"c", "abc"),
        ("a\\\nb", "ab"),
        ("x!y", "x!y"),
        ("%s", "%s"),
        ("HEAD~1", "HEAD~1"),
        ("a~b", "a~b"),
        ("'~'", "~"),
        ("a=~", None),
        ("x:~y", None),
        ("*", None),
        ("a?", None),
        ("[a]", None),
        ("{a,b}", None),
        ("~", None),
        ("$x", None),
        ('"$x"', None),
        ('"`id`"', None),
        ("$'x'", None),
        ("'open", None),
        ('"open', None),
        ("trailing\\", None),
    ],
)
def test_literal_word_reads_quotes_like_bash(raw: str, value: str | None) -> None:
    assert literal_word(raw) == value


# --- options ------------------------------------------------------------------------------------

OPTION_REFUSED = [
    "grep -R foo .", "grep -rR foo .", "grep --dereference-recursive foo .", "grep --recur foo .",
    "grep -f /etc/passwd README.md", "grep --file=../x README.md", "grep -X egrep x README.md",
    "rg --pre=sh x", "rg --pre sh x", "rg --pre-glob '*' x", "rg -z x", "rg --search-zip x",
    "rg -L x", "rg --follow x", "rg --hostname-bin=sh x", "rg --ignore-file=/etc/passwd x",
    "rg --no-conf x", "find . -delete", "find . -exec rm {} ;", "find . -execdir ls ;",
    "find . -ok ls ;", "find . -fprint out", "find . -fprintf out %p", "find . -fls out",
    "find -L .", "find -H .", "find . -follow", "find . -files0-from list", "find -D tree .",
    "find . -name", "find . -newer /etc/passwd", "find -- .", "tail -f README.md",
    "tail -F README.md", "tail --follow README.md", "tail --pid=1 README.md", "tail -5f README.md", "tail +5f README.md", "tail +f README.md",
    "file -C", "file -C -m magic", "file --compile", "file -z README.md", "file -Z README.md",
    "file -p README.md", "file -S README.md", "file -f list", "file -m /etc/magic README.md",
    "tree -o out", "tree -R", "tree -H x", "tree -l", "tree --fromfile", "tree -Lo 2 out",
    "tree -L2", "tree -- -o", "tree --gitignore", "du -L .", "du -D .", "du -H .",
    "du --files0-from=list", "ls -L", "ls -H src", "ls --dereference", "ls --hyperlink",
    "wc --files0-from=list", "diff src src", "diff -r src src", "diff -l a b", "diff --paginate a b",
    "diff --from-file=src README.md", "cat -x README.md", "cat --show README.md",
    "head --lin=3 README.md", "echo -x", "pwd x", "whoami x", "uname x", "which -s ls",
    "stat --printf", "cmp -i",
]  # fmt: skip


@pytest.mark.parametrize("line", OPTION_REFUSED)
def test_options_off_the_allowlist_are_not_inspect(ws: Path, line: str) -> None:
    assert not ro(line, ws)


def test_no_command_lists_a_letter_both_as_flag_and_as_value() -> None:
    specs: list[OptionSpec] = [spec.options for spec in COMMANDS.values()]
    specs.extend(GIT_SUBCOMMANDS.values())
    for spec in specs:
        assert not spec.flags & set(spec.values)
        assert not spec.flags & spec.optional
        assert not set(spec.values) & spec.optional


def test_parse_options_follows_getopt() -> None:
    grep = COMMANDS["grep"].options
    parsed = parse_options(grep, ["-rne", "pat", "src", "-i", "--", "-R"])
    assert parsed is not None
    assert parsed.options == (("-r", None), ("-n", None), ("-e", "pat"), ("-i", None))
    assert parsed.operands == ("src", "-R")
    assert parse_options(grep, ["-m5", "--color", "x"]) is not None
    context = parse_options(grep, ["--context", "3", "x"])
    assert context is not None
    assert context.options == (("--context", "3"),)
    assert parse_options(grep, ["-e"]) is None  # value missing
    assert parse_options(grep, ["--color=always", "--colour=never"]) is not None
    assert parse_options(grep, ["--col"]) is None  # abbreviation


def test_pattern_is_not_a_path_but_files_are(ws: Path) -> None:
    plan = command_plan("grep", ("-n", "/etc", "src"))
    assert plan is not None
    assert plan.paths == ("src",)
    plan = command_plan("grep", ("-e", "x", "/etc"))
    assert plan is not None
    assert plan.paths == ("/etc",)
    plan = command_plan("rg", ("--files", "/etc"))
    assert plan is not None
    assert plan.paths == ("/etc",)
    plan = command_plan("grep", ("-f", "pats", "-r", "."))
    assert plan is not None
    assert plan.paths == ("pats", ".")
    assert ro("grep -rn /api/ src", ws)
    assert not ro("grep -e x /etc/passwd", ws)
    assert not ro("rg --files /etc", ws)


def test_read_only_commands_are_exactly_these() -> None:
    assert sorted(READ_ONLY_COMMANDS) == [
        "basename", "cat", "cmp", "diff", "dirname", "du", "echo", "egrep", "false", "fgrep",
        "file", "find", "git", "grep", "head", "id", "ls", "pwd", "readlink", "realpath", "rg",
        "stat", "tail", "tree", "true", "uname", "wc", "which", "whoami",
    ]  # fmt: skip
    assert "printf" not in READ_ONLY_COMMANDS
    assert COMMANDS["rg"].options.values["--ignore-file"] is Kind.PATH


# --- git options ---------------------------------------------------------------------------------

GIT_OPTION_REFUSED = [
    "git diff --output=x", "git diff --ext-diff", "git diff --textconv", "git log --show-signature",
    "git -c core.pager=sh log", "git -C .. status", "git --git-dir=/x status", "git --work-tree=.. status",
    "git --exec-path=. status", "git -p log", "git --paginate log", "git log --format=%G?",
    "git log --pretty=format:%GS", "git diff -O order", "git diff --submodule=diff", "git push",
    "git commit -m x", "git checkout .", "git branch new", "git branch -d main", "git log -ps",
    "git status -sbx", "git log --author x", "git log -S x", "git fetch", "git config -l",
    "git stash list", "git show --output=x HEAD", "git log --outp=x", "git", "git --no-pager",
    "git log --no-index", "git diff --no-ind a b",
]  # fmt: skip


@pytest.mark.parametrize("line", GIT_OPTION_REFUSED)
def test_git_options_off_the_allowlist(line: str) -> None:
    assert command_plan("git", tuple(line.split()[1:])) is None


GIT_OPTION_ACCEPTED = [
    "git status", "git status -sb", "git status --porcelain=v2 -uno", "git log --oneline -5",
    "git log -n 3 --stat", "git log -n5 -p -- src", "git log --format=%h%x09%s --since=2.weeks",
    "git diff --cached --stat", "git diff -U3 HEAD~1", "git diff --no-index a b",
    "git show --name-only HEAD", "git rev-parse --show-toplevel", "git rev-parse --abbrev-ref HEAD",
    "git branch", "git branch -vv", "git branch --list 'feat*'", "git --no-pager log -1",
    "git branch --show-current", "git log -Sfoo -Gbar", "git diff -M50% -C",
]  # fmt: skip


@pytest.mark.parametrize("line", GIT_OPTION_ACCEPTED)
def test_git_options_on_the_allowlist(line: str) -> None:
    words = [literal_word(word) or word for word in line.split()[1:]]
    assert command_plan("git", tuple(words)) is not None


# --- paths --------------------------------------------------------------------------------------

PATH_REFUSED = [
    "cat /etc/passwd", "cat ../outside/secret", "cat link-out", "cat dir-out/secret",
    "ls dir-out", "grep -r x dir-out", "find dir-out", "du dir-out", "ls src/../..",
    "cat link-in/../../outside/secret", "cat src/../../outside/secret", "head -n 1 link-out",
    "stat link-out", "file link-out", "readlink -f link-out", "realpath --relative-to=/ x",
    "wc -c /dev/zero", "cmp README.md /etc/passwd", "diff README.md /etc/passwd",
    "find . -newer /etc/passwd", "grep -f link-out README.md", "cat ..", "tree /",
]  # fmt: skip


@pytest.mark.parametrize("line", PATH_REFUSED)
def test_files_outside_the_workspace_after_symlinks(ws: Path, line: str) -> None:
    assert not ro(line, ws)


def test_commands_that_open_no_file_are_not_path_checked(ws: Path) -> None:
    for line in (
        "echo /etc/passwd",
        "basename /etc/passwd",
        "dirname ../..",
        "which cat",
        "id root",
    ):
        assert ro(line, ws)


def test_relative_paths_resolve_from_the_calls_cwd(ws: Path) -> None:
    src = ws / "src"
    assert ro("cat a.py", ws, cwd=src)
    assert ro("cat ../README.md", ws, cwd=src)
    assert not ro("cat ../../outside/secret", ws, cwd=src)
    assert not ro("cat ../link-out", ws, cwd=src)
    assert ro("ls pkg", ws, cwd=src)
    assert ro("ls ..", ws, cwd=src / "pkg")  # ws/src: inside
    assert not ro("ls ../../..", ws, cwd=src / "pkg")
    assert not ro("ls", ws, cwd=ws.parent)  # a cwd outside the workspace


def test_dot_dot_after_a_symlink_is_taken_after_the_symlink(ws: Path) -> None:
    # `link/..` is the parent of the link's target for the kernel, not the link's folder.
    (ws / "deep").mkdir()
    outside_deep = ws.parent / "outside" / "d1"
    outside_deep.mkdir()
    (ws / "deep" / "hop").symlink_to(outside_deep)
    assert not ro("cat deep/hop/../secret", ws)
    assert ro("cat deep/../README.md", ws)


# --- environment --------------------------------------------------------------------------------


def test_environment_that_changes_what_runs_refuses(ws: Path, tmp_path: Path) -> None:
    for variable in ("BASH_ENV", "ENV", "POSIXLY_CORRECT"):
        assert not ro("ls", ws, env={**ENV, variable: "x"})
    assert not ro("grep x README.md", ws, env={**ENV, "GREP_OPTIONS": "-R"})
    assert not ro("rg x", ws, env={**ENV, "RIPGREP_CONFIG_PATH": "x"})
    assert ro("rg --no-config x", ws, env={**ENV, "RIPGREP_CONFIG_PATH": "x"})


def test_a_program_path_finds_in_the_workspace_refuses(ws: Path) -> None:
    bin_dir = ws / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "cat"
    fake.write_text("#!/bin/sh\ntouch MARKER\n")
    fake.chmod(0o755)
    path = f"{bin_dir}:{ENV['PATH']}"
    assert not ro("cat README.md", ws, env={"PATH": path})
    assert ro("ls", ws, env={"PATH": path})  # found outside the workspace first
    assert ro("echo hi", ws, env={"PATH": path})  # a builtin: PATH is not consulted
    assert not ro("ls", ws, env={"PATH": f".:{ENV['PATH']}"})
    assert not ro("ls", ws, env={"PATH": f":{ENV['PATH']}"})
    grep = bin_dir / "grep"
    grep.write_text("#!/bin/sh\n")
    grep.chmod(0o755)
    assert not ro("egrep x README.md", ws, env={"PATH": path})  # egrep runs grep by name


# --- through the evaluator -----------------------------------------------------------------------


def _shell_call(line: str, *, cwd: str | None = None, sandboxed: bool = True) -> PermissionCall:
    argument = PermissionArgument(
        key="command", kind=ArgumentKind.COMMAND, cwd_key="cwd", sandboxed_inspect=sandboxed
    )
    arguments: dict[str, object] = {"command": line}
    if cwd is not None:
        arguments["cwd"] = cwd
    return PermissionCall(
        tool_name="Bash", risk=RiskClass.EXECUTE, argument=argument, arguments=arguments
    )


def test_evaluator_allows_inspect_from_the_calls_cwd_and_asks_otherwise(ws: Path) -> None:
    context = PermissionContext.from_rules(ws, home=ws / "home")
    allowed = evaluate_permission(_shell_call("cat ../README.md", cwd="src"), context)
    assert (allowed.behavior, allowed.step, allowed.risk) == (
        Behavior.ALLOW,
        DecisionStep.MODE,
        RiskClass.INSPECT,
    )
    for call in (
        _shell_call("cat ../../outside/secret", cwd="src"),
        _shell_call("cat ../README.md", cwd="src", sandboxed=False),
        _shell_call("cat README.md", cwd="../outside"),
        _shell_call("printf -v 'a[$(touch m)]' x"),
    ):
        decision = evaluate_permission(call, context)
        assert (decision.behavior, decision.risk) == (Behavior.ASK, RiskClass.EXECUTE)


def test_a_deny_rule_still_answers_an_inspect_line(ws: Path) -> None:
    context = PermissionContext.from_rules(ws, home=ws / "home", deny=["Bash(cat:*)"])
    assert evaluate_permission(_shell_call("cat README.md"), context).behavior is Behavior.DENY


def test_os_environ_is_the_default_environment(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("BASH_ENV", "ENV"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("POSIXLY_CORRECT", "1")
    assert not is_read_only_line(parse_line("ls"), workspace=ws, home=ws)
    monkeypatch.delenv("POSIXLY_CORRECT")
    monkeypatch.setenv("PATH", os.environ.get("PATH", ENV["PATH"]))
    assert is_read_only_line(parse_line("ls"), workspace=ws, home=ws)
