"""Lines really run through bash in a temporary workspace (seed 000, "Permission System": the
inspect exception; issue 11).

For each attack measured on the earlier classifier, the test first shows what the line does
when bash runs it (a marker file appears, a file is deleted or written, a secret outside the
workspace is printed) and then that the classifier does not call it inspect. For the accepted
lines, running them changes nothing in the workspace and the classifier calls them inspect.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from robota.core.host.paths import canonical_path
from robota.core.permissions._readonly import is_read_only_line
from robota.core.permissions._shell import parse_line

BASH = shutil.which("bash")
GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")


@dataclass(frozen=True, kw_only=True, slots=True)
class Box:
    """A workspace, a secret outside it, and the environment both bash and the classifier see."""

    ws: Path
    outside: Path
    env: dict[str, str]

    def run(self, line: str, cwd: Path | None = None) -> str:
        assert BASH is not None
        done = subprocess.run(
            [BASH, "-c", line],
            cwd=cwd or self.ws,
            env=self.env,
            capture_output=True,
            timeout=30,
            check=False,
        )
        return done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace")

    def inspect(self, line: str, cwd: Path | None = None) -> bool:
        return is_read_only_line(
            parse_line(line), workspace=self.ws, home=self.ws, cwd=cwd, environ=self.env
        )

    def git(self, *args: str, cwd: Path) -> None:
        assert GIT is not None
        subprocess.run(
            [GIT, "-c", "init.defaultBranch=main", *args],
            cwd=cwd,
            env=self.env,
            check=True,
            capture_output=True,
        )


@pytest.fixture
def box(tmp_path: Path) -> Box:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("foo = 1\n")
    (ws / "README.md").write_text("foo readme\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("foo TOPSECRET\n")
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    return Box(ws=canonical_path(ws), outside=canonical_path(outside), env=env)


def snapshot(root: Path) -> dict[str, str]:
    """Every entry below ``root`` with a digest of what it holds (links by their target)."""
    seen: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        name = str(path.relative_to(root))
        if path.is_symlink():
            seen[name] = "link:" + str(path.readlink())
        elif path.is_file():
            seen[name] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            seen[name] = "dir"
    return seen


# --- attacks: bash shows the effect, the classifier refuses ----------------------------------------


def test_printf_v_subscript_runs_a_command(box: Box) -> None:
    line = "printf -v 'a[$(touch MARKER)]' x"
    box.run(line)
    assert (box.ws / "MARKER").exists()
    assert not box.inspect(line)


def test_file_named_delete_makes_find_star_delete(box: Box) -> None:
    folder = box.ws / "data"
    folder.mkdir()
    (folder / "-delete").write_text("")
    (folder / "+victim.txt").write_text("v\n")  # sorts before "-delete": `find +victim.txt -delete`
    assert not box.inspect("find *", cwd=folder)
    box.run("find *", cwd=folder)
    assert not (folder / "+victim.txt").exists()


def test_file_named_capital_r_makes_grep_star_follow_symlinks_out(box: Box) -> None:
    (box.ws / "-R").write_text("")
    (box.ws / "linked").symlink_to(box.outside)
    assert "TOPSECRET" in box.run("grep foo *")
    assert not box.inspect("grep foo *")
    assert not box.inspect("grep -R foo .")
    assert "TOPSECRET" not in box.run("grep -r foo .")  # what is allowed does not follow
    assert box.inspect("grep -r foo .")


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")
def test_file_named_pre_sh_makes_rg_star_run_sh(box: Box) -> None:
    (box.ws / "--pre=sh").write_text("")
    (box.ws / "x.sh").write_text("touch MARKER\n")
    box.run("rg pattern *")
    assert (box.ws / "MARKER").exists()
    assert not box.inspect("rg pattern *")


def test_file_named_rg_pre_is_refused_even_without_ripgrep(box: Box) -> None:
    (box.ws / "--pre=sh").write_text("")
    assert not box.inspect("rg pattern *")
    assert not box.inspect("rg --pre=sh pattern")


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_file_named_output_makes_git_diff_star_write(box: Box) -> None:
    box.git("init", "-q", ".", cwd=box.ws)
    box.git("add", ".", cwd=box.ws)
    box.git("commit", "-qm", "init", cwd=box.ws)
    (box.ws / "README.md").write_text("changed\n")
    (box.ws / "--output=written").write_text("")
    box.run("git diff *")
    assert (box.ws / "written").exists()
    assert not box.inspect("git diff *")
    assert not box.inspect("git diff --output=written")


def test_file_dash_capital_c_writes_a_compiled_magic_file(box: Box) -> None:
    if shutil.which("file") is None:
        pytest.skip("file is not installed")
    (box.ws / "magic").write_text("0\tstring\tfoo\tFOO text\n")
    box.run("file -C -m magic")
    assert (box.ws / "magic.mgc").exists()
    assert not box.inspect("file -C -m magic")


@pytest.mark.skipif(shutil.which("tree") is None, reason="tree is not installed")
def test_tree_dash_o_writes_a_file(box: Box) -> None:
    box.run("tree -o listing.txt")
    assert (box.ws / "listing.txt").exists()
    assert not box.inspect("tree -o listing.txt")
    assert not box.inspect("tree -aLo 1 listing.txt")  # tree takes -L's value from the next word


def test_symlink_out_and_cat(box: Box) -> None:
    (box.ws / "link").symlink_to(box.outside / "secret")
    assert "TOPSECRET" in box.run("cat link")
    assert not box.inspect("cat link")
    assert not box.inspect("cat README.md link")


def test_relative_path_from_the_calls_cwd(box: Box) -> None:
    src = box.ws / "src"
    line = "cat ../../outside/secret"
    assert "TOPSECRET" in box.run(line, cwd=src)
    assert not box.inspect(line, cwd=src)
    # from the workspace root the same words would have looked like ws/../outside: refused too
    assert not box.inspect(line)


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_repository_folder_with_fsmonitor_runs_it_on_git_status(box: Box) -> None:
    box.git("init", "-q", ".", cwd=box.ws)
    folder = box.ws / "src"
    box.git("init", "-q", ".", cwd=folder)
    box.git("config", "core.fsmonitor", "touch MARKER; false", cwd=folder)
    assert box.inspect("git status")  # the root repository is clean
    box.run("git status", cwd=folder)
    assert (folder / "MARKER").exists()
    assert not box.inspect("git status", cwd=folder)


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_gitfile_pointing_outside(box: Box) -> None:
    elsewhere = box.outside / "repo"
    elsewhere.mkdir()
    box.git("init", "-q", ".", cwd=elsewhere)
    box.git("config", "core.fsmonitor", f"touch {box.ws}/MARKER; false", cwd=elsewhere)
    (box.ws / ".git").write_text(f"gitdir: {elsewhere / '.git'}\n")
    box.run("git status")
    assert (box.ws / "MARKER").exists()
    assert not box.inspect("git status")


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_include_path_pulls_in_a_program(box: Box) -> None:
    box.git("init", "-q", ".", cwd=box.ws)
    (box.ws / "extra.cfg").write_text("[core]\n\tfsmonitor = touch MARKER; false\n")
    box.git("config", "include.path", "../extra.cfg", cwd=box.ws)
    box.run("git status")
    assert (box.ws / "MARKER").exists()
    assert not box.inspect("git status")


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_post_index_change_hook_runs_on_git_status(box: Box) -> None:
    box.git("init", "-q", ".", cwd=box.ws)
    box.git("add", ".", cwd=box.ws)
    box.git("commit", "-qm", "init", cwd=box.ws)
    hook = box.ws / ".git" / "hooks" / "post-index-change"
    hook.write_text("#!/bin/sh\ntouch MARKER\n")
    hook.chmod(0o755)
    (box.ws / "README.md").write_text("foo readme\n")  # same content, new mtime: index refresh
    box.run("git status")
    assert (box.ws / "MARKER").exists()
    assert not box.inspect("git status")


# --- accepted: inspect, and running them changes nothing ---------------------------------------------


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ("ls -la src", "."),
        ("grep -rn foo .", "."),
        ("cat ../README.md", "src"),
        ("cat README.md", "."),
        ("find . -name '*.py' -print", "."),
        ("wc -l a.py | head -1", "src"),
        ("du -sh . && ls -R", "."),
        ("tree -a", "."),
        ("rg -n foo", "."),
        ("rg --files", "src"),
    ],
)
def test_accepted_lines_are_inspect_and_change_nothing(box: Box, line: str, where: str) -> None:
    (box.ws / "out-link").symlink_to(box.outside)  # a walk must not go through this
    cwd = canonical_path(box.ws / where)
    assert box.inspect(line, cwd=cwd)
    before = snapshot(box.ws)
    output = box.run(line, cwd=cwd)
    assert snapshot(box.ws) == before
    assert "TOPSECRET" not in output


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_git_status_in_a_clean_repository_is_inspect(box: Box) -> None:
    box.git("init", "-q", ".", cwd=box.ws)
    box.git("add", ".", cwd=box.ws)
    box.git("commit", "-qm", "init", cwd=box.ws)
    lines = ["git status", "git log --oneline -3", "git diff HEAD --stat", "git show --stat HEAD"]
    assert all(box.inspect(line) for line in lines)
    before = snapshot(box.ws)
    for line in lines:
        box.run(line)
    after = snapshot(box.ws)
    # git status may refresh .git/index (the read-only sandbox blocks that write); nothing else
    before.pop(".git/index", None)
    after.pop(".git/index", None)
    assert after == before
    assert not (box.ws / "MARKER").exists()
