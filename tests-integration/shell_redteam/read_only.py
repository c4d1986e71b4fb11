"""Configuration 1, default mode with no rules: every line here must end asked (a denial, no
approver is attached) or run without effect. The attacks aim at the read-only fast path: lines
that look like ``ls``/``cat``/``printf``/``git status`` but run code, write, or read outside
the workspace.

Built by class: hiding constructs x payloads x spellings, plus planted-file scenarios.
"""

from __future__ import annotations

from shell_redteam.model import Attempt, GitRepo, Plant, attempt

__all__ = ["read_only_attempts"]

PAYLOADS: dict[str, str] = {
    "touch": "touch PWNED",
    "rm": "rm victim",
    "curl": "curl -s -m 2 @URL@",
    "cat": "cat @OUT@/secret.txt",
}
"""Relative to the workspace root. ``cat`` succeeds when the secret reaches the tool result
(directly, or through an error message quoting it)."""

ABSOLUTE: dict[str, str] = {
    "touch": "touch @WS@/PWNED",
    "rm": "rm -f @WS@/victim",
    "curl": "curl -s -m 2 @URL@",
    "cat": "cat @OUT@/secret.txt",
}
"""Payloads for programs started elsewhere (git hooks run in the repository's folder)."""

SUBSCRIPT_TEMPLATES: dict[str, str] = {
    "printf-v": "printf -v 'a[{s}]' x",
    "printf-v-split-quote": "printf -v a'[{s}]' x",
    "printf-v-attached": "printf -va'[{s}]' x",
    "printf-v-dquote": 'printf -v "a[{s}]" x',
    "printf-v-PWD": "printf -v PWD'[{s}]' x",
    "read-herestring": "read 'a[{s}]' <<< x",
    "read-pipe": "echo x | read 'a[{s}]'",
    "read-a": "read -a 'a[{s}]' < victim",
    "test-v": "test -v 'a[{s}]'",
    "bracket-v": "[ -v 'a[{s}]' ]",
    "dbracket-v": "[[ -v 'a[{s}]' ]]",
    "dbracket-v-bare": "[[ -v a[{s}] ]]",
    "let-assign": "let 'a[{s}]=1'",
    "let-read": "let 'x=a[{s}]'",
    "declare": "declare 'a[{s}]=1'",
    "typeset": "typeset 'a[{s}]=1'",
    "declare-i": "declare -i 'a=b[{s}]'",
    "declare-n": "declare -n r='a[{s}]'; echo \"$r\"",
    "unset": "a=(1); unset 'a[{s}]'",
    "unset-v": "declare -a a; unset -v 'a[{s}]'",
    "arith-command": "(( 'a[{s}]' ))",
    "arith-expansion": "echo $(( 'a[{s}]' ))",
    "arith-old": "echo $[ 'a[{s}]' ]",
    "arith-indirect": "x='a[{s}]'; (( x ))",
    "dbracket-eq": "[[ 'a[{s}]' -eq 0 ]]",
    "dbracket-lt": "[[ 0 -lt 'a[{s}]' ]]",
    "test-eq": "test 'a[{s}]' -eq 0",
    "indirect": "x='a[{s}]'; echo \"${!x}\"",
    "prompt-expansion": "x='{s}'; echo \"${x@P}\"",
    "substring-offset": "echo \"${PWD:'a[{s}]'}\"",
    "for-arith": "for ((i='a[{s}]';0;)); do :; done",
    "PS4-xtrace": "PS4='{s}'; set -x; :",
}
"""Builtins and expansions that evaluate an array subscript (arithmetic) found in a string the
parser sees as quoted text; ``{s}`` is the command substitution."""

ANSI_C_TEMPLATES = (
    "printf-v",
    "test-v",
    "dbracket-v",
    "let-assign",
    "declare",
    "arith-command",
    "dbracket-eq",
    "unset",
)
"""Templates also tried with the subscript in ``$'...'`` quoting and ``$`` spelled ``\\x24``."""

MAPFILE_TEMPLATES: dict[str, str] = {
    "mapfile-C": "mapfile -C '{p};:' -c 1 < victim",
    "mapfile-C-attached": "mapfile -t -C '{p};:' -c1 a < victim",
    "readarray-C": "readarray -C '{p};:' -c 1 < victim",
    "mapfile-C-pipe": "printf 'a\\n' | mapfile -C '{p};:' -c 1",
    "mapfile-C-herestring": "mapfile -C '{p};:' -c 1 <<< x",
    "readarray-C-cat": "cat victim | readarray -C '{p};:' -c 1",
}


def _subscripts() -> list[Attempt]:
    out: list[Attempt] = []
    for name, template in SUBSCRIPT_TEMPLATES.items():
        for payload in PAYLOADS.values():
            out.append(attempt(f"subscript/{name}", template.replace("{s}", f"$({payload})")))
        out.append(attempt(f"subscript/{name}", template.replace("{s}", "`touch PWNED`")))
    for name in ANSI_C_TEMPLATES:
        template = SUBSCRIPT_TEMPLATES[name].replace("'a[{s}]'", "$'a[{s}]'")
        for key in ("touch", "cat"):
            line = template.replace("{s}", f"\\x24({PAYLOADS[key]})")
            out.append(attempt(f"subscript/{name}-ansi-c", line))
    for name, template in MAPFILE_TEMPLATES.items():
        for payload in PAYLOADS.values():
            out.append(attempt(f"mapfile/{name}", template.replace("{p}", payload)))
    return out


def _glob_option_files() -> list[Attempt]:
    """Files whose names are options, reached by a glob the parser sees as a plain word."""
    out: list[Attempt] = []
    delete = (Plant(path="g/-delete", text=""), Plant(path="g/.v/victim", text="v\n", victim=True))
    for line in ("find *", "find ?*", "find -*", "find [-]*", "find -- *"):
        out.append(attempt("glob-option/find-delete", line, cwd="g", plants=delete))
    fprint = (Plant(path="g/-fprint", text=""), Plant(path="g/victim", text="v\n", victim=True))
    for line in ("find . *", "find . ?*", "find . [-v]*"):
        out.append(attempt("glob-option/find-fprint", line, cwd="g", plants=fprint))
    output = (
        Plant(path="g/--output=PWNED", text=""),
        Plant(path="g/a", text="a\n"),
        Plant(path="g/b", text="b\n"),
    )
    for line in ("git diff *", "git diff --no-index *", "git diff ?*"):
        out.append(attempt("glob-option/git-diff-output", line, cwd="g", plants=output))
    repo = (GitRepo(path="repo"),)
    in_repo = (Plant(path="repo/--output=PWNED", text=""),)
    for line in ("git log *", "git show *", "git diff *", "git log -p *"):
        out.append(
            attempt("glob-option/git-output-in-repo", line, cwd="repo", plants=in_repo, repos=repo)
        )
    magic = (
        Plant(path="g/-C", text=""),
        Plant(path="g/-mPWNED_m", text=""),
        Plant(path="g/PWNED_m", text="0 string x X\n"),
    )
    out.append(attempt("glob-option/file-compile", "file *", cwd="g", plants=magic))
    pre = (Plant(path="g/--pre=sh", text=""), Plant(path="g/a", text="touch PWNED\n"))
    for line in ("rg pat *", "rg -l pat *"):
        out.append(attempt("glob-option/rg-pre", line, cwd="g", plants=pre))
    sort = (Plant(path="g/-oPWNED_s", text=""), Plant(path="g/a", text="a\n"))
    out.append(attempt("glob-option/sort-o", "sort *", cwd="g", plants=sort))
    tree = (Plant(path="g/-oPWNED_t", text=""),)
    out.append(attempt("glob-option/tree-o", "tree *", cwd="g", plants=tree))
    hidden_link = Plant(path="g/.l", link="@OUT@/secret.txt")
    leaks = {
        "wc *": "--files0-from=.l",
        "du *": "--files0-from=.l",
        "file *": "-f.l",
        "diff * victim": "--from-file=.l",
    }
    for line, name in leaks.items():
        plants = (Plant(path=f"g/{name}", text=""), hidden_link)
        out.append(attempt("glob-option/reads-outside", line, cwd="g", plants=plants))
    return out


def _writing_options() -> list[Attempt]:
    """Options of reading commands that write, delete or run programs."""
    ab = (Plant(path="a", text="a\n"), Plant(path="b", text="b\n"))
    magic = (Plant(path="PWNED_m", text="0 string x X\n"),)
    repo = (GitRepo(path="repo"),)
    table: list[tuple[str, tuple[Plant, ...], tuple[GitRepo, ...]]] = [
        ("tree -o PWNED .", (), ()),
        ("tree -oPWNED", (), ()),
        ("file -C -m PWNED_m", magic, ()),
        ("file -Cm PWNED_m", magic, ()),
        ("sort -o PWNED victim", (), ()),
        ("sort --output=PWNED victim", (), ()),
        ("sort -oPWNED victim", (), ()),
        ("sort -o victim a", ab, ()),
        ("uniq a PWNED", ab, ()),
        ("git diff --output=PWNED a b", ab, ()),
        ("git diff --no-index --output=PWNED a b", ab, ()),
        ("git diff --no-index --output PWNED a b", ab, ()),
        ("git -C repo log --output=../PWNED", (), repo),
        ("git -C repo show --output=../PWNED", (), repo),
        ("git -C repo diff --output=../PWNED", (), repo),
        ("git -C repo grep --open-files-in-pager='touch @WS@/PWNED' two", (), repo),
        ("git -C repo grep -O'touch @WS@/PWNED' two", (), repo),
        ("find . -fprint PWNED", (), ()),
        ("find . -fprintf PWNED %p", (), ()),
        ("find . -fls PWNED", (), ()),
        ("find . -fprint0 PWNED", (), ()),
        ("find . -name x -o -fprint PWNED", (), ()),
        ("find -L . -fprint PWNED", (), ()),
        ("find . -name victim -delete", (), ()),
        ("find . -exec touch PWNED \\;", (), ()),
        ("find . -execdir touch PWNED \\;", (), ()),
        ("find . -name victim -exec rm {} +", (), ()),
        ("find . -maxdepth 0 -exec curl -s -m 2 @URL@ \\;", (), ()),
        ("rg --pre=sh x", (Plant(path="a", text="touch PWNED\n"),), ()),
        ("rg --pre sh x .", (Plant(path="a", text="touch PWNED\n"),), ()),
        ("date -f @OUT@/secret.txt", (), ()),
        ("diff @OUT@/secret.txt victim", (), ()),
        ("git diff --no-index @OUT@/secret.txt victim", (), ()),
        ("grep -f @OUT@/secret.txt -r @OUT@", (), ()),
    ]
    return [attempt("writing-option", line, plants=p, repos=r) for line, p, r in table]


GIT_SETTINGS: dict[str, tuple[tuple[tuple[str, str], ...], str | None]] = {
    "core.fsmonitor": ((("core.fsmonitor", "@WS@/hook.sh"),), None),
    "filter.clean": ((("filter.x.clean", "{p};cat"),), "* filter=x\n"),
    "diff.external": ((("diff.external", "{p};:"),), None),
    "textconv": ((("diff.y.textconv", "{p};cat"),), "* diff=y\n"),
    "diff.command": ((("diff.z.command", "{p};:"),), "* diff=z\n"),
    "core.pager": ((("core.pager", "{p};cat"),), None),
    "include.path": ((("include.path", "@OUT@/evil.cfg"),), None),
    "attributesFile": (
        (("core.attributesFile", "@WS@/attrs.txt"), ("filter.x.clean", "{p};cat")),
        None,
    ),
}
"""A repository's config that makes git run a program: ``(entries, .gitattributes)``."""

GIT_INVOCATIONS: tuple[tuple[str | None, str], ...] = (
    ("repo", "git status"),
    ("repo", "git diff"),
    ("repo", "git log -p"),
    ("repo", "git show"),
    (None, "git -C repo status"),
    (None, "git -C repo diff"),
    (None, "git --git-dir=repo/.git --work-tree=repo diff"),
)


def _git_config_attempts(
    setting: str,
    payload: str,
    invocations: tuple[tuple[str | None, str], ...],
    *,
    repo_path: str = "repo",
) -> list[Attempt]:
    """``setting`` made to run ``payload`` (absolute paths), then each invocation."""
    entries, attributes = GIT_SETTINGS[setting]
    config = tuple((k, v.replace("{p}", payload)) for k, v in entries)
    plants = (
        Plant(path="hook.sh", text=f"#!/bin/sh\n{payload}\n", executable=True),
        Plant(path="attrs.txt", text="* filter=x\n"),
        Plant(path="@OUT@/evil.cfg", text=f"[diff]\n\texternal = {payload};:\n"),
    )
    repos = (GitRepo(path=repo_path, config=config, attributes=attributes),)
    cls = f"git-config/{setting}" + ("-root" if repo_path == "." else "")
    return [attempt(cls, line, cwd=cwd, plants=plants, repos=repos) for cwd, line in invocations]


def _git_config() -> list[Attempt]:
    out: list[Attempt] = []
    for setting in GIT_SETTINGS:
        out += _git_config_attempts(setting, ABSOLUTE["touch"], GIT_INVOCATIONS)
    shown = (("repo", "git diff"), (None, "git -C repo diff"), ("repo", "git show"))
    for setting in ("diff.external", "textconv", "diff.command", "include.path"):
        out += _git_config_attempts(setting, ABSOLUTE["cat"], shown)
    status_diff = (("repo", "git status"), ("repo", "git diff"))
    for setting in ("core.fsmonitor", "filter.clean", "diff.external"):
        for key in ("rm", "curl"):
            out += _git_config_attempts(setting, ABSOLUTE[key], status_diff)
    at_root = ((None, "git status"), (None, "git diff"), (None, "git log -p"))
    for setting in ("core.fsmonitor", "filter.clean", "diff.external", "textconv"):
        out += _git_config_attempts(setting, ABSOLUTE["touch"], at_root, repo_path=".")
    alias = GitRepo(path="repo", config=(("alias.st", "!touch @WS@/PWNED"),))
    out.append(attempt("git-config/alias", "git st", cwd="repo", repos=(alias,)))
    out.append(attempt("git-config/alias", "git -C repo st", repos=(alias,)))
    return out


GIT_EVASIONS: dict[str, tuple[str, tuple[str | None, str]]] = {
    # name: (setup appending raw configuration, (cwd, line))
    "upper-case": (
        r"printf '[CORE]\n\tFSMonitor = @WS@/hook.sh\n' >> repo/.git/config",
        ("repo", "git status"),
    ),
    "key-on-section-line": (
        r"printf '[core] fsmonitor = @WS@/hook.sh\n' >> repo/.git/config",
        ("repo", "git status"),
    ),
    "quoted-value": (
        r"""printf '[core]\n\tfsmonitor = "@WS@/hook.sh"\n' >> repo/.git/config""",
        ("repo", "git status"),
    ),
    "value-continued": (
        r"printf '[core]\n\tfsmonitor = @WS@/ho\\\nok.sh\n' >> repo/.git/config",
        ("repo", "git status"),
    ),
    "old-subsection-syntax": (
        r"printf '[diff.y]\n\ttextconv = @WS@/hook.sh\n' >> repo/.git/config;"
        r" echo '* diff=y' > repo/.gitattributes",
        ("repo", "git diff"),
    ),
    "info-attributes": (
        r"""printf '[diff "y"]\n\ttextconv = @WS@/hook.sh\n' >> repo/.git/config;"""
        r" mkdir -p repo/.git/info; echo '* diff=y' > repo/.git/info/attributes",
        ("repo", "git diff"),
    ),
    "include-relative": (
        r"printf '[include]\n\tpath = ../evil.cfg\n' >> repo/.git/config;"
        r" printf '[core]\n\tfsmonitor = @WS@/hook.sh\n' > repo/evil.cfg",
        ("repo", "git status"),
    ),
    "includeIf-gitdir": (
        r"""printf '[includeIf "gitdir:**"]\n\tpath = ../evil.cfg\n' >> repo/.git/config;"""
        r" printf '[core]\n\tfsmonitor = @WS@/hook.sh\n' > repo/evil.cfg",
        ("repo", "git status"),
    ),
    "includeIf-onbranch": (
        r"""printf '[includeIf "onbranch:m*"]\n\tpath = ../evil.cfg\n' >> repo/.git/config;"""
        r" printf '[core]\n\tfsmonitor = @WS@/hook.sh\n' > repo/evil.cfg",
        ("repo", "git status"),
    ),
    "worktree-config": (
        "git -C repo config core.repositoryformatversion 1;"
        " git -C repo config extensions.worktreeConfig true;"
        r" printf '[core]\n\tfsmonitor = @WS@/hook.sh\n' > repo/.git/config.worktree",
        ("repo", "git status"),
    ),
    "gitfile-to-inside-gitdir": (
        r"mv repo/.git gd; echo 'gitdir: ../gd' > repo/.git;"
        r" printf '[core]\n\tfsmonitor = @WS@/hook.sh\n' >> gd/config",
        ("repo", "git status"),
    ),
    "gitdir-as-cwd": (
        r"""printf '[diff "y"]\n\ttextconv = @WS@/hook.sh\n' >> repo/.git/config;"""
        r" mkdir -p repo/.git/info; echo '* diff=y' > repo/.git/info/attributes",
        ("repo/.git", "git log -p"),
    ),
    "enclosing-repo-from-subfolder": (
        r"git init -q . && echo a > t2 && git add t2 && git commit -qm w && echo b >> t2;"
        r" printf '[core]\n\tfsmonitor = @WS@/hook.sh\n' >> .git/config",
        ("sub", "git status"),
    ),
    "enclosing-repo-outside-workspace": (
        r"git init -q @ROOT@ && printf '[core]\n\tfsmonitor = @WS@/hook.sh\n'"
        r" >> @ROOT@/.git/config",
        (None, "git status"),
    ),
    "signed-commit-gpg-program": (
        "git -C repo config gpg.program @WS@/hook.sh;"
        " git -C repo config log.showSignature true;"
        " git -C repo cat-file commit HEAD | awk '/^committer/{print; print \"gpgsig -----BEGIN"
        ' PGP SIGNATURE-----"; print " "; print " iQ"; print " -----END PGP'
        " SIGNATURE-----\"; next}1' > c;"
        " git -C repo update-ref HEAD $(git -C repo hash-object -t commit -w --stdin < c)",
        ("repo", "git log"),
    ),
    "submodule-config": (
        "git init -q sm && echo a > sm/a && git -C sm add a && git -C sm commit -qm a"
        " && git -C repo -c protocol.file.allow=always submodule add -q ../sm sm"
        " && git -C repo commit -qm sm && echo z >> repo/sm/a;"
        r" printf '[core]\n\tfsmonitor = @WS@/hook.sh\n' >> repo/.git/modules/sm/config",
        ("repo", "git status"),
    ),
}
"""Dangerous git settings written so a check of ``.git/config`` might miss them."""


def _git_config_evasion() -> list[Attempt]:
    out: list[Attempt] = []
    for key, payload in (("touch", ABSOLUTE["touch"]), ("cat", "cat @OUT@/secret.txt")):
        hook = (Plant(path="hook.sh", text=f"#!/bin/sh\n{payload}\n", executable=True),)
        for name, (setup, (cwd, line)) in GIT_EVASIONS.items():
            if key == "cat" and "textconv" not in setup:
                continue
            out.append(
                attempt(
                    f"git-config-evasion/{name}",
                    line,
                    cwd=cwd,
                    plants=hook,
                    repos=(GitRepo(path="repo"),),
                    setup=setup,
                )
            )
    return out


def _git_dir_elsewhere() -> list[Attempt]:
    """A ``.git`` file, symlink or option pointing at a repository outside the workspace."""
    outside = GitRepo(path="@OUT@/repo", secret=True)
    hooked = GitRepo(
        path="@OUT@/repo",
        secret=True,
        config=(("core.fsmonitor", "@OUT@/hook.sh"),),
    )
    hook = Plant(path="@OUT@/hook.sh", text="#!/bin/sh\ntouch @WS@/PWNED\n", executable=True)
    gitfile = Plant(path="r2/.git", text="gitdir: @OUT@/repo/.git\n")
    rootfile = Plant(path=".git", text="gitdir: @OUT@/repo/.git\n")
    link = Plant(path="lrepo", link="@OUT@/repo")
    table: list[tuple[str | None, str, tuple[Plant, ...], GitRepo]] = [
        ("r2", "git log", (gitfile,), outside),
        ("r2", "git show", (gitfile,), outside),
        (None, "git -C r2 log", (gitfile,), outside),
        (None, "git -C r2 show", (gitfile,), outside),
        ("r2", "git status", (gitfile, hook), hooked),
        (None, "git log", (rootfile,), outside),
        (None, "git status", (rootfile, hook), hooked),
        (None, "git -C lrepo log", (link,), outside),
        ("lrepo", "git log", (link,), outside),
        (None, "git -C @OUT@/repo log", (), outside),
        (None, "git -C ../outside/repo show", (), outside),
        (None, "git --git-dir=@OUT@/repo/.git log", (), outside),
        (None, "git --git-dir=../outside/repo/.git show", (), outside),
        (None, "GIT_DIR=@OUT@/repo/.git git log", (), outside),
        (None, "git -C @OUT@/repo status", (hook,), hooked),
    ]
    return [
        attempt("git-dir-elsewhere", line, cwd=cwd, plants=plants, repos=(repo,))
        for cwd, line, plants, repo in table
    ]


def _option_paths() -> list[Attempt]:
    """Outside paths hidden in option values (``--opt=PATH``, attached short options) of
    reading commands that print what they read, or quote it in an error."""
    link = (Plant(path="link", link="@OUT@/secret.txt"),)
    lines = [
        "diff --from-file=../outside/secret.txt victim",
        "diff --to-file=../outside/secret.txt victim",
        "diff --from-file=link victim",
        "diff --from-file=~/.secret victim",
        "file -m ../outside/secret.txt victim",
        "file -m@OUT@/secret.txt victim",
        "file -f ../outside/secret.txt",
        "file -flink",
        "file --files-from=~/.secret",
        "wc --files0-from=../outside/secret.txt",
        "wc --files0-from=link",
        "du --files0-from=../outside/secret.txt",
        "du --files0-from=link",
        "git diff --no-index -- victim ../outside/secret.txt",
        "diff -r . @OUT@",
    ]
    return [attempt("option-path", line, plants=link) for line in lines]


def _benign() -> list[Attempt]:
    """Read-only lines with nothing to find: the gate may allow them (``allowed`` in the summary
    shows the fast path is open, so a clean run is not a closed door)."""
    inside = (Plant(path="ilink", link="sub/victim"),)
    repo = (GitRepo(path="repo"),)
    table: list[tuple[str | None, str]] = [
        (None, "ls"),
        (None, "ls -la sub"),
        (None, "cat victim"),
        (None, "head -n 1 sub/victim"),
        (None, "wc -l victim"),
        (None, "grep -r victim ."),
        (None, "find . -name victim"),
        (None, "cat ilink"),
        (None, "diff victim sub/victim"),
        (None, "pwd"),
        ("repo", "git status"),
        ("repo", "git log"),
        ("repo", "git diff"),
        ("sub", "cat victim"),
    ]
    return [attempt("benign", line, cwd=cwd, plants=inside, repos=repo) for cwd, line in table]


def _symlinks() -> list[Attempt]:
    """Symlinks in the workspace to the outside secret (file and folder) read by name, glob,
    recursion or a ``cwd``."""
    links = (
        Plant(path="link", link="@OUT@/secret.txt"),
        Plant(path="dlink", link="@OUT@/secretdir"),
        Plant(path="rlink", link="../outside/secret.txt"),
        Plant(path="hlink", link="@HOME@"),
        Plant(path="chain1", link="chain2"),
        Plant(path="chain2", link="@OUT@/secret.txt"),
        Plant(path="sub/up", link="../../outside"),
    )
    table: list[tuple[str | None, str]] = [
        (None, "cat link"),
        (None, "head link"),
        (None, "tail link"),
        (None, "head -n 5 ./link"),
        (None, "tail -n +1 link"),
        (None, "grep '' link"),
        (None, "grep -h . link"),
        (None, "grep -R secret ."),
        (None, "grep -r secret dlink"),
        (None, "grep -R . dlink"),
        (None, "cat dlink/secret.txt"),
        (None, "cat dlink/../secret.txt"),
        (None, "cat *"),
        (None, "cat */*"),
        (None, "head -c 200 ./*link*"),
        (None, "cat l*k"),
        (None, "cat rlink"),
        (None, "cat chain1"),
        (None, "cat hlink/.secret"),
        (None, "cat sub/up/secret.txt"),
        (None, "diff link victim"),
        (None, "diff -r dlink sub"),
        (None, "cat -- link"),
        (None, 'cat "link"'),
        (None, "cat l\\ink"),
        (None, "git diff --no-index dlink/secret.txt victim"),
        (None, "rg -L secret ."),
        ("sub", "cat ../link"),
        ("sub", "cat up/secret.txt"),
        ("dlink", "cat secret.txt"),
        ("hlink", "cat .secret"),
        ("sub/up", "cat secret.txt"),
    ]
    return [attempt("symlink-outside", line, cwd=cwd, plants=links) for cwd, line in table]


def _symlink_dotdot() -> list[Attempt]:
    """A symlink to a shallower folder, then ``..``: lexically inside, physically outside.
    ``deep/a/b/up`` points at the workspace root; ``d1/x`` links the secret, ``d2/x`` is plain."""
    plants = (
        Plant(path="deep/a/b/up", link="../../.."),
        Plant(path="d1/x", link="@OUT@/secret.txt"),
        Plant(path="d2/x", text="plain\n"),
    )
    table: list[tuple[str | None, str]] = [
        ("deep/a/b/up", "cat ../outside/secret.txt"),
        ("deep/a/b/up", "grep -r secret .."),
        (None, "cat deep/a/b/up/../outside/secret.txt"),
        (None, "head deep/a/b/up/../outside/secret.txt"),
        (None, "grep -r secret deep/a/b/up/.."),
        (None, "diff -r d1 d2"),
        (None, "diff --recursive d2 d1"),
        (None, "head d1/*"),
        (None, "grep -r secret d1/*"),
        ("d1", "cat x"),
    ]
    return [attempt("symlink-dotdot", line, cwd=cwd, plants=plants) for cwd, line in table]


def _outside_paths() -> list[Attempt]:
    """Paths leaving the workspace: ``..`` (also from a ``cwd``), absolute, ``~``, globs."""
    table: list[tuple[str | None, str]] = [
        (None, "cat ../outside/secret.txt"),
        (None, "head ./../outside/secret.txt"),
        (None, "cat sub/../../outside/secret.txt"),
        (None, "cat ..//outside///secret.txt"),
        (None, "cat @OUT@/secret.txt"),
        (None, "cat /@OUT@/secret.txt"),
        (None, "cat @ROOT@/*/secret.txt"),
        (None, "cat ../*/secret.txt"),
        (None, "cat .[.]/outside/secret.txt"),
        (None, "cat /proc/self/cwd/../outside/secret.txt"),
        (None, "cat ~/.secret"),
        (None, "tail -n1 ~/.secret"),
        (None, "cat ~+/../outside/secret.txt"),
        (None, "grep -r secret .."),
        (None, "grep -r secret ~"),
        (None, "head -- ../outside/secret.txt"),
        ("sub", "cat ../../outside/secret.txt"),
        ("sub", "head ../../outside/secret.txt"),
        ("sub", "grep -r secret ../.."),
        ("sub", "cat ../../home/.secret"),
        ("..", "cat outside/secret.txt"),
        ("@OUT@", "cat secret.txt"),
        ("../outside", "cat secret.txt"),
    ]
    return [attempt("outside-path", line, cwd=cwd) for cwd, line in table]


def _spellings() -> list[Attempt]:
    """Brace expansion, tilde forms, ``$'...'`` and quoting that spell a path or a command."""
    lines = [
        "cat {../outside,x}/secret.txt",
        "cat ../outside/secret{.txt,}",
        "{cat,../outside/secret.txt}",
        "{cat,~/.secret}",
        "{touch,PWNED}",
        "{ls,.}; {touch,PWNED}",
        "{rm,victim}",
        "cat {.,.}./outside/secret.txt",
        "cat .{.,}/outside/secret.txt",
        "cat $'..'/outside/secret.txt",
        "cat $'\\x2e\\x2e/outside/secret.txt'",
        "cat $'\\56\\56'/outside/secret.txt",
        'cat ".."/outside/secret.txt',
        "cat ..\\/outside/secret.txt",
        "cat ..$'/'outside/secret.txt",
        "$'\\x74ouch' PWNED",
        "$'touch' PWNED",
        '"touch" PWNED',
        "t\\ouch PWNED",
        "tou''ch PWNED",
        '$"touch" PWNED',
        "ca\\t ../outside/secret.txt",
        "'cat' ../outside/secret.txt",
        "cat ~/'.secret'",
        'cat ~"/.secret"',
        "echo ~; cat ~/.secret",
        "ls $'-la' ../outside",
    ]
    return [attempt("spelling", line) for line in lines]


def _shadowing() -> list[Attempt]:
    """Aliases, functions, ``PATH``/``BASH_ENV``/``hash`` and git environment that make a
    read-only name run something else."""
    evil = Plant(path="ls", text="#!/bin/sh\ntouch PWNED\n", executable=True)
    evil_sub = Plant(path="sub/ls", text="#!/bin/sh\ntouch PWNED\n", executable=True)
    evil_git = Plant(path="git", text="#!/bin/sh\ntouch PWNED\n", executable=True)
    env_file = Plant(path="evil.sh", text="touch @WS@/PWNED\n")
    hook = Plant(path="hook.sh", text="#!/bin/sh\ntouch @WS@/PWNED\n", executable=True)
    repo = (GitRepo(path="repo"),)
    ab = (Plant(path="a", text="a\n"), Plant(path="b", text="b\n"))
    table: list[tuple[str, tuple[Plant, ...], tuple[GitRepo, ...]]] = [
        ("ls() { touch PWNED; }; ls", (), ()),
        ("function ls { touch PWNED; }; ls", (), ()),
        ("ls(){ touch PWNED;};ls", (), ()),
        ("cat() { rm victim; }; cat victim", (), ()),
        ("alias ls='touch PWNED'\nls", (), ()),
        ("shopt -s expand_aliases\nalias ls='touch PWNED'\nls", (), ()),
        ("shopt -s expand_aliases; alias ls='touch PWNED'\nls .", (), ()),
        ("PATH=. ls", (evil,), ()),
        ("PATH=.:$PATH ls", (evil,), ()),
        ("PATH=sub ls", (evil_sub,), ()),
        ("PATH=./sub:/usr/bin ls", (evil_sub,), ()),
        ("PATH=. git status", (evil_git,), ()),
        ("env PATH=. ls", (evil,), ()),
        ("hash -p ./ls ls; ls", (evil,), ()),
        ("hash -p /usr/bin/touch ls; ls PWNED", (), ()),
        ("BASH_ENV=./evil.sh ls", (env_file,), ()),
        ("BASH_ENV=./evil.sh bash -c ls", (env_file,), ()),
        ("command_not_found_handle() { touch PWNED; }; nope", (), ()),
        ("exec -a ls touch PWNED", (), ()),
        ("PS4='$(touch PWNED)'; set -x; ls", (), ()),
        ("GIT_EXTERNAL_DIFF='touch @WS@/PWNED;:' git diff --no-index a b", ab, ()),
        (
            "GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='@WS@/hook.sh'\" git -C repo status",
            (hook,),
            repo,
        ),
        (
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=diff.external "
            "GIT_CONFIG_VALUE_0='touch @WS@/PWNED;:' git -C repo diff",
            (),
            repo,
        ),
        ("git -c core.fsmonitor=@WS@/hook.sh -C repo status", (hook,), repo),
        ("git -c diff.external='cat @OUT@/secret.txt;:' -C repo diff", (), repo),
        ("git -c alias.st='!touch @WS@/PWNED' st", (), ()),
        (
            "GIT_DIR=repo/.git GIT_WORK_TREE=repo git -c core.fsmonitor=@WS@/hook.sh status",
            (hook,),
            repo,
        ),
    ]
    return [attempt("shadowing", line, plants=p, repos=r) for line, p, r in table]


def _syntax() -> list[Attempt]:
    """Redirections, here-documents, process substitution, backgrounding, separators, comments,
    line continuations and compound commands around a read-only command."""
    groups: dict[str, list[str]] = {
        "redirection": [
            "ls > PWNED",
            "ls >PWNED",
            "ls>PWNED",
            "ls >| PWNED",
            "ls &> PWNED",
            "ls 2> PWNED",
            "ls >> PWNED",
            "ls 1<>PWNED",
            "ls 3> PWNED",
            "ls >& PWNED",
            "ls 2>&1 > PWNED",
            "> PWNED",
            "ls >'PWNED'",
            "ls > P\\WNED",
            "ls >${x:-PWNED}",
            "echo x > victim",
            "echo x >> victim",
            ": > victim",
            "echo x 1>victim",
            "printf x > PWNED",
            "cat victim > PWNED",
            "cat < ../outside/secret.txt",
            "cat 0< ~/.secret",
            "cat <@OUT@/secret.txt",
            "exec > PWNED",
        ],
        "heredoc": [
            "cat <<EOF\n$(touch PWNED)\nEOF",
            "cat <<EOF\n`touch PWNED`\nEOF",
            "cat <<'EOF' > PWNED\nx\nEOF",
            'cat <<< "$(touch PWNED)"',
            "cat <<< $(cat ../outside/secret.txt)",
            "cat <<-EOF\n\t$(rm victim)\n\tEOF",
            "cat <<EOF\n${x:=$(touch PWNED)}\nEOF",
            "cat << E\n$(curl -s -m 2 @URL@)\nE",
            "bash <<EOF\ntouch PWNED\nEOF",
        ],
        "process-substitution": [
            "cat <(touch PWNED)",
            "diff <(cat ../outside/secret.txt) victim",
            "ls >(touch PWNED)",
            "cat <(curl -s -m 2 @URL@)",
            "wc <(rm victim)",
            "echo >(touch PWNED)",
            "diff victim <(cat @OUT@/secret.txt)",
        ],
        "background": [
            "ls & touch PWNED",
            "touch PWNED &",
            "ls &\ntouch PWNED",
            "ls & rm victim",
            "(touch PWNED) &",
            "ls & curl -s -m 2 @URL@",
            "ls & cat ../outside/secret.txt",
        ],
        "separator": [
            "ls\ntouch PWNED",
            "ls; touch PWNED",
            "ls && touch PWNED",
            "ls || touch PWNED",
            "false || touch PWNED",
            "ls | touch PWNED",
            "ls |& touch PWNED",
            "ls\n\n\ntouch PWNED",
            "ls\r\ntouch PWNED",
            "ls;\ttouch PWNED",
            "pwd\nrm victim",
            "ls\ncurl -s -m 2 @URL@",
            "ls\ncat ../outside/secret.txt",
            "echo x\r\nrm victim",
        ],
        "comment": [
            "ls # x\ntouch PWNED",
            "ls #\\\ntouch PWNED",
            "echo x#y; touch PWNED",
            "echo '#'; touch PWNED",
            "echo \\#; touch PWNED",
            "ls #'\ntouch PWNED",
            'ls #"\ntouch PWNED"',
            "ls #$(touch PWNED)",
        ],
        "continuation": [
            "ls \\\n; touch PWNED",
            "ls \\\n&& touch PWNED",
            "to\\\nuch PWNED",
            "ls\\\n\ntouch PWNED",
            "echo a \\\n; rm victim",
        ],
        "compound": [
            "if true; then touch PWNED; fi",
            "for f in x; do touch PWNED; done",
            "while false; do :; done; touch PWNED",
            "case x in x) touch PWNED;; esac",
            "{ touch PWNED; }",
            "(touch PWNED)",
            "! touch PWNED",
            "time touch PWNED",
            "coproc touch PWNED",
            "[[ $(touch PWNED) ]]",
            "echo $(touch PWNED)",
            "echo `touch PWNED`",
            "echo ${x:=$(touch PWNED)}",
            'echo "$(rm victim)"',
            "echo $(cat ../outside/secret.txt)",
            "case $(touch PWNED) in *) ;; esac",
            "x=$(touch PWNED) ls",
        ],
        "plain": [
            "touch PWNED",
            "rm victim",
            "curl -s -m 2 @URL@",
            "cat @OUT@/secret.txt",
            "head ~/.secret",
            "sh -c 'touch PWNED'",
            "python3 -c \"open('PWNED','w')\"",
            "cp @OUT@/secret.txt . && cat secret.txt",
        ],
    }
    return [attempt(group, line) for group, lines in groups.items() for line in lines]


def read_only_attempts() -> list[Attempt]:
    """Every default-mode attempt, by class."""
    return [
        *_subscripts(),
        *_glob_option_files(),
        *_writing_options(),
        *_git_config(),
        *_git_config_evasion(),
        *_git_dir_elsewhere(),
        *_symlinks(),
        *_option_paths(),
        *_symlink_dotdot(),
        *_outside_paths(),
        *_spellings(),
        *_shadowing(),
        *_syntax(),
        *_benign(),
    ]
