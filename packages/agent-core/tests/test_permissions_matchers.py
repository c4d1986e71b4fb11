"""Path, URL, command and text matchers, each in its kind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from robota.core.permissions import (
    Direction,
    Match,
    match_command,
    match_path,
    match_text,
    match_url,
)

ALLOW, DENY = Direction.ALLOW, Direction.DENY


def _path(pattern: str, value: str, root: Path, direction: Direction = DENY) -> Match:
    return match_path(
        pattern,
        value,
        workspace=root.resolve(),
        home=(root / "home").resolve(),
        direction=direction,
    )


def test_relative_pattern_is_anchored_at_workspace(tmp_path: Path) -> None:
    assert _path("src/**", "src/a/b.py", tmp_path) is Match.YES
    assert _path("src/**", "lib/src/b.py", tmp_path) is Match.NO
    assert _path("src/**", str(tmp_path / "src" / "x.py"), tmp_path) is Match.YES


def test_pattern_without_slash_matches_at_any_depth(tmp_path: Path) -> None:
    assert _path(".env", "config/.env", tmp_path) is Match.YES
    assert _path("*.pem", "a/b/key.pem", tmp_path) is Match.YES
    assert _path(".env", "config/.envrc", tmp_path) is Match.NO


def test_pattern_covers_everything_below_a_directory(tmp_path: Path) -> None:
    assert _path("secrets", "secrets/prod/key", tmp_path) is Match.YES


def test_absolute_home_and_double_slash_forms(tmp_path: Path) -> None:
    assert _path("/etc/**", "/etc/passwd", tmp_path) is Match.YES
    assert _path("//etc/**", "/etc/passwd", tmp_path) is Match.YES
    assert _path("~/.ssh/**", "~/.ssh/id_rsa", tmp_path) is Match.YES
    assert _path("~/.ssh/**", str(tmp_path / "home" / ".ssh" / "id_rsa"), tmp_path) is Match.YES


def test_dotdot_is_resolved_before_matching(tmp_path: Path) -> None:
    assert _path("src/**", "src/../secrets/key", tmp_path, ALLOW) is Match.NO
    assert _path("secrets/**", "src/../secrets/key", tmp_path) is Match.YES


def test_symlink_is_followed_for_deny_and_allow(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key").write_text("k")
    (tmp_path / "src").mkdir()
    os.symlink(tmp_path / "secrets", tmp_path / "src" / "link")
    # a deny on the real location catches the link
    assert _path("secrets/**", "src/link/key", tmp_path) is Match.YES
    # an allow on src/** does not grant what the link points at
    assert _path("src/**", "src/link/key", tmp_path, ALLOW) is Match.NO
    # a deny spelled on the link's own path still matches (spelled form)
    assert _path("src/link/**", "src/link/key", tmp_path) is Match.YES


def test_workspace_reached_through_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "src").mkdir(parents=True)
    os.symlink(real, tmp_path / "ws")
    result = match_path(
        str(tmp_path / "ws" / "src" / "**"),
        str(real / "src" / "a.py"),
        workspace=real,
        home=tmp_path,
        direction=ALLOW,
    )
    assert result is Match.YES


def test_unusable_path_is_unevaluable(tmp_path: Path) -> None:
    assert _path("src/**", "a\x00b", tmp_path) is Match.UNEVALUABLE
    assert _path("src/**", "", tmp_path) is Match.UNEVALUABLE
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    assert _path("src/**", "loop/x", tmp_path) is Match.UNEVALUABLE


@pytest.mark.parametrize(
    ("pattern", "url", "expected"),
    [
        ("domain:example.com", "https://example.com/a", Match.YES),
        ("domain:example.com", "http://EXAMPLE.com./a", Match.YES),
        ("domain:example.com", "https://docs.example.com/a", Match.NO),
        ("domain:*.example.com", "https://docs.example.com/a", Match.YES),
        ("domain:*.example.com", "https://example.com/a", Match.NO),
        ("domain:*.example.com", "https://evilexample.com/", Match.NO),
        ("https://example.com/docs/**", "https://example.com/docs/a/b", Match.YES),
        ("https://example.com/docs/**", "https://example.com/admin", Match.NO),
        ("https://example.com/docs/**", "https://example.com/docs/../admin", Match.NO),
        ("https://example.com/docs/**", "http://example.com/docs/a", Match.NO),
        ("https://example.com/**", "https://example.com.evil.net/", Match.NO),
        ("https://example.com/**", "https://example.com@evil.net/", Match.NO),
        ("https://example.com/**", "https://user:pw@example.com/x", Match.YES),
        ("https://example.com/**", "https://example.com:8443/x", Match.NO),
        ("https://example.com:8443/**", "https://example.com:8443/x", Match.YES),
        ("https://example.com:*/**", "https://example.com:9/x", Match.YES),
        ("https://example.com", "https://example.com/any?q=1", Match.YES),
        ("*://example.com/**", "http://example.com/x", Match.YES),
        ("domain:bücher.example", "https://xn--bcher-kva.example/", Match.YES),
        ("domain:xn--bcher-kva.example", "https://BÜCHER.example/", Match.YES),
        ("https://*.example.com/**", "https://a.b.example.com/", Match.YES),
    ],
)
def test_url_parts(pattern: str, url: str, expected: Match) -> None:
    assert match_url(pattern, url) is expected


@pytest.mark.parametrize(
    "url",
    [
        "not a url",
        "https://evil.com\\@example.com/",
        "https://exa mple.com/",
        "https://example.com:99999/",
        "https://example.com/%2e%2e/admin",
        "https:///nohost",
        "https://ex%61mple.com/",
    ],
)
def test_unparseable_urls_are_unevaluable(url: str) -> None:
    assert match_url("domain:example.com", url) is Match.UNEVALUABLE


@pytest.mark.parametrize(
    "pattern", ["example.com/**", "https://ex*ample.com/", "domain:", "https://a@b/"]
)
def test_malformed_url_patterns_are_unevaluable(pattern: str) -> None:
    assert match_url(pattern, "https://example.com/") is Match.UNEVALUABLE


def test_command_allow_needs_a_single_plain_command() -> None:
    assert match_command("git status", "git status", direction=ALLOW) is Match.YES
    assert match_command("git status", 'git "status"', direction=ALLOW) is Match.YES
    assert match_command("git *", "git status; ls", direction=ALLOW) is Match.NO
    assert match_command("git *", "git status > out", direction=ALLOW) is Match.NO
    assert match_command("git *", "X=1 git status", direction=ALLOW) is Match.NO
    assert match_command("echo *", "echo 'a;b'", direction=ALLOW) is Match.YES
    assert match_command("npm run test:*", "npm run test", direction=ALLOW) is Match.YES
    assert match_command("npm run test:*", "npm run test --watch", direction=ALLOW) is Match.YES
    assert match_command("npm run test:*", "npm run testx", direction=ALLOW) is Match.NO


def test_command_deny_reaches_every_command() -> None:
    assert match_command("rm *", "ls && /bin/rm -r x", direction=DENY) is Match.YES
    assert match_command("rm *", "echo $(rm x)", direction=DENY) is Match.YES
    assert match_command("rm -rf /", "rm -rf $TARGET", direction=DENY) is Match.UNEVALUABLE
    assert match_command("rm *", "ls -la", direction=DENY) is Match.NO
    assert match_command("rm *", "ls | (", direction=DENY) is Match.UNEVALUABLE


def test_text_glob() -> None:
    assert match_text("deploy-*", "deploy-prod") is Match.YES
    assert match_text("deploy-*", "rollback") is Match.NO
    assert match_text("deploy-*", 3) is Match.UNEVALUABLE
