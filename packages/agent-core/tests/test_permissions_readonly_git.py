"""``git`` is inspect only when the repository it would open cannot make it run a program
(seed 000, "Permission System": the inspect exception; issue 11).

Covers the configuration reader (git's own syntax), the key allowlist, repository discovery
from the call's cwd (``.git`` folder, ``.git`` file, bare-looking folder, ``commondir``), hooks,
alternates, submodules recorded in the index, the environment, and the index reader on files
real git wrote.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from robota.core.host.paths import canonical_path
from robota.core.permissions._git_config import ConfigEntry, key_allowed, read_config
from robota.core.permissions._git_repo import gitlinks, inspect_repository
from robota.core.permissions._readonly import is_read_only_line
from robota.core.permissions._shell import parse_line

ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin"}
GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")

CLEAN_CONFIG = (
    "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
    "\tlogallrefupdates = true\n"
)


def make_repo(folder: Path, config: str = CLEAN_CONFIG) -> Path:
    """The layout ``git init`` makes (HEAD, objects, refs, config, sample hooks)."""
    git_dir = folder / ".git"
    for inner in ("objects/info", "refs/heads", "hooks"):
        (git_dir / inner).mkdir(parents=True, exist_ok=True)
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
    (git_dir / "config").write_text(config)
    (git_dir / "hooks" / "pre-commit.sample").write_text("#!/bin/sh\n")
    return git_dir


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("x = 1\n")
    return canonical_path(root)


def git_ro(line: str, ws: Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> bool:
    return is_read_only_line(
        parse_line(line), workspace=ws, home=ws, cwd=cwd, environ=ENV if env is None else env
    )


# --- the configuration reader --------------------------------------------------------------------


def keys(text: str) -> list[tuple[str, str | None]] | None:
    entries = read_config(text.encode())
    return None if entries is None else [(entry.key, entry.value) for entry in entries]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[core]\n\tbare = false\n", [("core.bare", "false")]),
        ("[Core]\n\tBARE\n", [("core.bare", None)]),
        ('[remote "Origin"]\n\turl = x\n', [("remote.Origin.url", "x")]),
        ("[remote.Origin]\nurl = x\n", [("remote.origin.url", "x")]),
        ('[a.b "C"]\nk = v\n', [("a.b.C.k", "v")]),
        ('[remote "o\\"x\\\\"]\nurl=1\n', [('remote.o"x\\.url', "1")]),
        ("[core] fsmonitor = touch m\n", [("core.fsmonitor", "touch m")]),
        ('[core]\nx = "a ; b" ; comment\n', [("core.x", "a ; b")]),
        ("[core]\nx = a \\\n  b\n", [("core.x", "a   b")]),
        ('[core]\nx = "\\ttab\\n"\n', [("core.x", "\ttab\n")]),
        ("[core]\r\nx = 1\r\n", [("core.x", "1")]),
        ("\ufeff[core]\nx=1", [("core.x", "1")]),
        ("# c\n; c\n\n[core]\n  x = 1   \n", [("core.x", "1")]),
        ("[core]\nx = a b  # c\n", [("core.x", "a b")]),
        ("[core]\nx = a\\", [("core.x", "a")]),  # git reads the end of file as a newline
        ("[core]\nx = \\q\n", None),
        ('[core]\nx = "open\n', None),
        ("[core\nx = 1\n", None),
        ('[core "x]\n', None),
        ("x = 1\n", None),
        ("[core]\n1x = 1\n", None),
        ("[core]\nx_y = 1\n", None),
        ("[core]\nx # c\n", None),
        ("[]\n", None),
        ("[co re]\n", None),
        ("[core]\nx = 1\x00\n", None),
    ],
)
def test_config_reader_sees_the_keys_git_sees(
    text: str, expected: list[tuple[str, str | None]] | None
) -> None:
    assert keys(text) == expected


@needs_git
@pytest.mark.parametrize(
    "text",
    [
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = https://x/y.git\n',
        '[core] fsmonitor = "touch m" ; trailing\n[Diff "A"]\n\ttextconv = cat\n',
        '[include]\n\tpath = other\n[a.B]\nk = "x\\ty" # c\n\tlong = one \\\n two\n',
        '[remote "o\\"x"]\n\turl = 1\n[section]\nflag\n',
    ],
)
def test_config_reader_agrees_with_git_config_list(tmp_path: Path, text: str) -> None:
    assert GIT is not None
    path = tmp_path / "config"
    path.write_text(text)
    listed = subprocess.run(
        [GIT, "config", "--file", str(path), "--list", "--null", "--no-includes"],
        capture_output=True,
        check=True,
        env={**ENV, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)},
    ).stdout.decode()
    theirs: list[tuple[str, str | None]] = []
    for record in listed.split("\0"):
        if record:
            key, newline, value = record.partition("\n")
            theirs.append((key, value if newline else None))
    ours = keys(text)
    assert ours is not None
    # git prints the key with the section and name lowercased, the subsection as written
    assert [(key.lower(), value) for key, value in ours] == [
        (key.lower(), value) for key, value in theirs
    ]


@pytest.mark.parametrize(
    ("key", "allowed"),
    [
        ("core.repositoryformatversion", True),
        ("core.bare", True),
        ("core.fsmonitor", False),
        ("core.pager", False),
        ("core.sshcommand", False),
        ("core.editor", False),
        ("core.askpass", False),
        ("core.hookspath", False),
        ("core.gitproxy", False),
        ("core.excludesfile", False),
        ("core.attributesfile", False),
        ("diff.external", False),
        ("diff.renames", True),
        ("diff.x.textconv", False),
        ("diff.x.command", False),
        ("filter.lfs.process", False),
        ("merge.x.driver", False),
        ("gpg.program", False),
        ("gpg.ssh.program", False),
        ("log.showsignature", False),
        ("pager.log", False),
        ("alias.st", False),
        ("credential.helper", False),
        ("interactive.difffilter", False),
        ("sequence.editor", False),
        ("uploadpack.packobjectshook", False),
        ("include.path", False),
        ("includeif.gitdir:x.path", False),
        ("remote.origin.url", True),
        ("remote.origin.fetch", True),
        ("remote.origin.uploadpack", False),
        ("remote.origin.vcs", False),
        ("remote.origin.promisor", False),
        ("extensions.partialclone", False),
        ("branch.main.remote", True),
        ("branch.main.merge", True),
        ("submodule.x.url", True),
        ("submodule.x.update", False),
        ("user.email", True),
        ("init.defaultbranch", True),
        ("color.diff.meta", True),
        ("hook.x.command", False),
        ("status.submodulesummary", False),
        ("fsmonitor.x", False),
    ],
)
def test_only_harmless_keys_are_allowed(key: str, allowed: bool) -> None:
    section, _, rest = key.partition(".")
    subsection, _, name = rest.rpartition(".")
    entry = ConfigEntry(section=section, subsection=subsection or None, name=name, value="x")
    assert key_allowed(entry) is allowed


def test_object_format_must_be_one_the_index_reader_knows() -> None:
    def entry(value: str) -> ConfigEntry:
        return ConfigEntry(section="extensions", subsection=None, name="objectformat", value=value)

    assert key_allowed(entry("sha256"))
    assert not key_allowed(entry("blake3"))


# --- repository discovery and checks ---------------------------------------------------------------


def test_clean_repository_at_the_root_is_inspect(ws: Path) -> None:
    make_repo(ws)
    assert git_ro("git status", ws)
    assert git_ro("git log --oneline -5", ws, cwd=ws / "src")
    assert git_ro("git diff HEAD -- a.py", ws, cwd=ws / "src")


def test_no_repository_inside_the_workspace_refuses(ws: Path) -> None:
    assert not git_ro("git status", ws)


def test_repository_shaped_folder_with_fsmonitor_refuses(ws: Path) -> None:
    make_repo(ws)
    make_repo(ws / "src", CLEAN_CONFIG + "\tfsmonitor = touch MARKER\n")
    assert git_ro("git status", ws)
    assert not git_ro("git status", ws, cwd=ws / "src")


def test_bare_looking_folder_is_a_repository_too(ws: Path) -> None:
    make_repo(ws)
    bare = ws / "src" / "bare"
    for inner in ("objects", "refs"):
        (bare / inner).mkdir(parents=True)
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    (bare / "config").write_text("[core]\n\tfsmonitor = touch MARKER\n")
    assert not git_ro("git status", ws, cwd=bare)
    (bare / "config").write_text("[core]\n\tbare = true\n")
    assert git_ro("git log", ws, cwd=bare)
    assert not git_ro("git diff", ws, cwd=bare)  # no working tree: diff could turn --no-index


@pytest.mark.parametrize(
    "config",
    [
        "[include]\n\tpath = ../other\n",
        '[includeIf "gitdir:/"]\n\tpath = x\n',
        "[core]\n\tpager = sh\n",
        '[diff "x"]\n\ttextconv = sh\n',
        "[alias]\n\tst = !sh\n",
        "[core]\n\tfsmonitor = \\\n touch MARKER\n",
        "[Core]\n\tFSMonitor = x\n",
        "[core.fsmonitor]\n\tx = 1\n",
        "[core]\n\tbare = \\q\n",
        "[core]\n\tworktree = ../../..\n",
        "[extensions]\n\tobjectformat = sha3\n",
        "[extensions]\n\trefstorage = reftable\n",
        "[extensions]\n\tpartialclone = origin\n",
    ],
)
def test_configuration_outside_the_allowlist_refuses(ws: Path, config: str) -> None:
    make_repo(ws, CLEAN_CONFIG + config)
    assert not git_ro("git status", ws)


def test_config_worktree_file_is_judged_too(ws: Path) -> None:
    git_dir = make_repo(ws)
    (git_dir / "config.worktree").write_text("[core]\n\tfsmonitor = x\n")
    assert not git_ro("git status", ws)


def test_gitfile_pointing_outside_refuses_and_inside_is_followed(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    make_repo(outside)
    (ws / ".git").write_text(f"gitdir: {outside / '.git'}\n")
    assert not git_ro("git status", ws)
    (ws / ".git").unlink()
    make_repo(ws / "store")
    (ws / ".git").write_text("gitdir: store/.git\n")
    assert git_ro("git status", ws)
    (ws / "store" / ".git" / "config").write_text("[core]\n\tfsmonitor = x\n")
    assert not git_ro("git status", ws)


def test_odd_dot_git_entries_refuse(ws: Path, tmp_path: Path) -> None:
    (ws / ".git").mkdir()  # git would skip an empty .git and keep walking up
    assert not git_ro("git status", ws)
    (ws / ".git").rmdir()
    (ws / ".git").write_text("not a gitfile\n")
    assert not git_ro("git status", ws)
    (ws / ".git").unlink()
    (ws / ".git").symlink_to(tmp_path / "missing")
    assert not git_ro("git status", ws)
    (ws / ".git").unlink()
    git_dir = make_repo(tmp_path / "out")
    (ws / ".git").symlink_to(git_dir)
    assert not git_ro("git status", ws)


def test_head_must_be_valid(ws: Path) -> None:
    git_dir = make_repo(ws)
    (git_dir / "HEAD").write_text("garbage\n")
    assert not git_ro("git status", ws)
    (git_dir / "HEAD").write_text("0123456789abcdef0123456789abcdef01234567\n")
    assert git_ro("git status", ws)


def test_linked_worktree_commondir_must_stay_inside(ws: Path, tmp_path: Path) -> None:
    main = make_repo(ws / "main")
    linked = main / "worktrees" / "feature"
    linked.mkdir(parents=True)
    (linked / "HEAD").write_text("ref: refs/heads/feature\n")
    (linked / "commondir").write_text("../..\n")
    (ws / "feature").mkdir()
    (ws / "feature" / ".git").write_text(f"gitdir: {linked}\n")
    assert git_ro("git status", ws, cwd=ws / "feature")
    (main / "config").write_text("[core]\n\tfsmonitor = x\n")
    assert not git_ro("git status", ws, cwd=ws / "feature")
    (main / "config").write_text(CLEAN_CONFIG)
    outside = make_repo(tmp_path / "outside-main")
    (linked / "commondir").write_text(f"{outside}\n")
    assert not git_ro("git status", ws, cwd=ws / "feature")


@pytest.mark.parametrize(
    ("hook", "allowed"),
    [("pre-commit", True), ("post-checkout", True), ("post-index-change", False),
     ("reference-transaction", False), ("fsmonitor-watchman", False), ("unknown", False),
     ("x.sample", True)],
)  # fmt: skip
def test_hooks_a_reading_command_runs_refuse(ws: Path, hook: str, allowed: bool) -> None:
    git_dir = make_repo(ws)
    (git_dir / "hooks" / hook).write_text("#!/bin/sh\ntouch MARKER\n")
    assert git_ro("git status", ws) is allowed


def test_alternates_refuse(ws: Path) -> None:
    git_dir = make_repo(ws)
    (git_dir / "objects" / "info" / "alternates").write_text("/elsewhere/objects\n")
    assert not git_ro("git log", ws)


@pytest.mark.parametrize(
    "variable",
    ["GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_COUNT",
     "GIT_CONFIG_PARAMETERS", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_CEILING_DIRECTORIES",
     "GIT_EXEC_PATH", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_SSH"],
)  # fmt: skip
def test_git_environment_refuses(ws: Path, variable: str) -> None:
    make_repo(ws)
    assert git_ro("git status", ws, env={**ENV, "GIT_AUTHOR_NAME": "a"})
    assert not git_ro("git status", ws, env={**ENV, variable: "x"})


def test_home_inside_the_workspace_refuses(ws: Path) -> None:
    make_repo(ws)
    assert not git_ro("git status", ws, env={**ENV, "HOME": str(ws)})
    assert not git_ro("git status", ws, env={**ENV, "XDG_CONFIG_HOME": str(ws / "cfg")})
    assert git_ro("git status", ws, env={**ENV, "HOME": str(ws.parent)})


def test_git_diff_paths_must_stay_in_the_working_tree(ws: Path) -> None:
    make_repo(ws / "src")
    (ws / "b.txt").write_text("b\n")
    assert git_ro("git diff -- a.py", ws, cwd=ws / "src")
    # paths outside the working tree make git compare them as plain files (--no-index)
    assert not git_ro("git diff ../b.txt a.py", ws, cwd=ws / "src")
    assert git_ro("git diff --no-index ../b.txt a.py", ws, cwd=ws / "src")
    assert not git_ro("git diff --no-index .. .", ws, cwd=ws / "src")  # directories
    assert not git_ro("git diff --no-index /etc/passwd a.py", ws, cwd=ws / "src")


def test_inspect_repository_reports_the_repository(ws: Path) -> None:
    git_dir = make_repo(ws)
    found = inspect_repository(ws / "src", workspace=ws, environ=ENV)
    assert found is not None
    assert (found.git_dir, found.common_dir, found.worktree) == (git_dir, git_dir, ws)
    assert inspect_repository(ws.parent, workspace=ws, environ=ENV) is None


# --- real git: the index reader and submodules ------------------------------------------------------


def run_git(*args: str, cwd: Path) -> None:
    assert GIT is not None
    subprocess.run(
        [GIT, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={**ENV, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd)},
    )


@needs_git
@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_index_reader_finds_gitlinks_in_every_index_version(tmp_path: Path, version: str) -> None:
    run_git("init", "-q", ".", cwd=tmp_path)
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "e" / ("long" * 40 + ".txt")).write_text("1\n")
    (tmp_path / "a").write_text("2\n")
    run_git("add", ".", cwd=tmp_path)
    oid = "882d6546757865c0843c720df73a85f8ea94e5c3"
    run_git("update-index", "--add", "--cacheinfo", f"160000,{oid},sub/mod", cwd=tmp_path)
    if version == "3":
        (tmp_path / "new").write_text("n\n")
        run_git("add", "-N", "new", cwd=tmp_path)  # intent-to-add: extended flags, version 3
    else:
        run_git("update-index", "--index-version", version, cwd=tmp_path)
    data = (tmp_path / ".git" / "index").read_bytes()
    assert data[4:8] == int(version).to_bytes(4, "big")
    assert gitlinks(data, 20) == [b"sub/mod"]
    assert gitlinks(data[:-5], 20) is None
    assert gitlinks(b"XXXX" + data[4:], 20) is None


@needs_git
def test_index_reader_with_sha256(tmp_path: Path) -> None:
    run_git("init", "-q", "--object-format=sha256", ".", cwd=tmp_path)
    (tmp_path / "a").write_text("1\n")
    run_git("add", "a", cwd=tmp_path)
    run_git("update-index", "--add", "--cacheinfo", f"160000,{'1' * 64},m", cwd=tmp_path)
    assert gitlinks((tmp_path / ".git" / "index").read_bytes(), 32) == [b"m"]


@needs_git
def test_real_clean_repository_is_inspect(ws: Path) -> None:
    run_git("init", "-q", ".", cwd=ws)
    run_git("add", ".", cwd=ws)
    run_git("commit", "-qm", "init", cwd=ws)
    for line in ("git status", "git status -sb", "git log --oneline -3", "git diff HEAD",
                 "git show --stat HEAD", "git rev-parse --show-toplevel", "git branch -vv"):  # fmt: skip
        assert git_ro(line, ws), line


@needs_git
def test_submodule_with_fsmonitor_refuses(ws: Path) -> None:
    outer = ws / "outer"
    outer.mkdir()
    run_git("init", "-q", ".", cwd=outer)
    inner = outer / "inner"
    inner.mkdir()
    run_git("init", "-q", ".", cwd=inner)
    (inner / "g").write_text("1\n")
    run_git("add", "g", cwd=inner)
    run_git("commit", "-qm", "i", cwd=inner)
    run_git("add", "inner", cwd=outer)
    run_git("commit", "-qm", "o", cwd=outer)
    assert git_ro("git status", ws, cwd=outer)
    run_git("config", "core.fsmonitor", "touch MARKER", cwd=inner)
    # git status and git diff in outer run `git status` inside inner (measured), so inner's
    # configuration counts even though the call's cwd is outer.
    assert not git_ro("git status", ws, cwd=outer)
    assert not git_ro("git diff", ws, cwd=outer)


def test_a_symlink_inside_dot_git_leading_out_refuses_the_fast_path(tmp_path: Path) -> None:
    """A fresh outsider's attack: ``.git/refs/heads`` (or ``objects/ab``, ``logs/HEAD``) linked to
    another repository outside makes ``git log`` show that repository's history."""
    outside = tmp_path / "outside"
    ws = tmp_path / "ws"
    for repo in (outside, ws):
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert is_read_only_line(parse_line("git log"), workspace=ws, home=tmp_path, cwd=ws)
    heads = ws / ".git" / "refs" / "heads"
    heads.rmdir()
    heads.symlink_to(outside / ".git" / "refs" / "heads", target_is_directory=True)
    assert not is_read_only_line(parse_line("git log"), workspace=ws, home=tmp_path, cwd=ws)
