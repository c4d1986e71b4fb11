"""``python -m tools.release bump <package> <major|minor|patch>``: release one package.

Steps: refuse a dirty tree; ``uv version --bump`` the package; find the siblings whose declared
range no longer admits the new version, move their range (:func:`compatible_range`) and give each a
patch release with a changelog line saying so (a minor one, major from 1.0, when the sibling's
release breaks this package's own public API: every one of its breaking changes comes from a name
it re-exports from a sibling or inherits from a sibling's class); repeated until nothing else must
move; build every released package's CHANGELOG.md entry with towncrier from its ``changelog.d/``
fragments; refresh their API snapshots; ``uv lock``; one commit; one tag ``<dir>-v<version>`` per
released package. Refused before anything changes: a tag that already exists, a public API that
breaks without the matching bump, a missing snapshot (unless ``--first-release``) or a corrupt one
(see :mod:`tools.release.api_check`). ``--dry-run`` prints the plan and changes nothing.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tools.release import api_check, snapshot
from tools.release.workspace import (
    ROOT,
    Package,
    compatible_range,
    find_package,
    load_packages,
    set_sibling_range,
)


@dataclass(kw_only=True, slots=True)
class Release:
    """One package in a release plan.

    Attributes:
        package: The package as it is now.
        bump: The ``uv version --bump`` kind (``patch`` for the siblings that follow).
        version: The version it is released at.
        moves: Sibling distribution -> the new range this package declares on it.
    """

    package: Package
    bump: str
    version: Version
    moves: dict[str, str] = field(default_factory=dict[str, str])


def _run(*args: str, root: Path) -> str:
    done = subprocess.run(args, cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"release: {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout.strip()


def plan(root: Path, name: str, bump: str) -> list[Release]:
    """The releases that bumping ``name`` by ``bump`` makes: the package first, then every sibling
    whose range must move."""
    packages = load_packages(root)
    first = find_package(packages, name)
    new = _run(
        "uv",
        "version",
        "--package",
        first.dist,
        "--bump",
        bump,
        "--dry-run",
        "--short",
        "--frozen",
        root=root,
    )
    releases = {first.dist: Release(package=first, bump=bump, version=Version(new))}
    queue = [first.dist]
    while queue:
        moved = releases[queue.pop(0)]
        for package in packages.values():
            spec = package.requires.get(moved.package.dist)
            if spec is None or SpecifierSet(spec).contains(moved.version, prereleases=True):
                continue
            if package.dist not in releases:
                kind = _follow_bump(package)
                releases[package.dist] = Release(
                    package=package, bump=kind, version=_bumped(package.version, kind)
                )
                queue.append(package.dist)
            releases[package.dist].moves[moved.package.dist] = compatible_range(moved.version)
    return list(releases.values())


def _follow_bump(package: Package) -> str:
    """The bump of a sibling that follows a release: patch, or the breaking bump when its public
    API breaks only through what it re-exports or inherits from a sibling."""
    if api_check.carried_only(package):
        return "minor" if package.version.major == 0 else "major"
    return "patch"


def _bumped(v: Version, kind: str) -> Version:
    if kind == "major":
        return Version(f"{v.major + 1}.0.0")
    if kind == "minor":
        return Version(f"{v.major}.{v.minor + 1}.0")
    return Version(f"{v.major}.{v.minor}.{v.micro + 1}")


def describe(releases: list[Release]) -> str:
    """The plan, one line per package and one per moved range."""
    lines: list[str] = []
    for r in releases:
        lines.append(f"{r.package.dist} {r.package.version} -> {r.version} ({r.bump})")
        lines += [f"    requires {sibling}{spec}" for sibling, spec in r.moves.items()]
        lines.append(f"    tag {r.package.short}-v{r.version}")
    return "\n".join(lines)


def refusal(releases: list[Release], *, first_release: bool = False) -> str | None:
    """Why the plan must not run, or None: a public-API break the new version does not allow, a
    corrupt snapshot, or a missing one (allowed only with ``first_release``)."""
    problems: list[str] = []
    for r in releases:
        try:
            base = api_check.baseline(r.package)
        except FileNotFoundError:
            if first_release:
                continue  # a package's first snapshot is taken by this release
            problems.append(
                f"{r.package.dist} {r.version}: no {api_check.SNAPSHOT}; restore it from git, "
                "or pass --first-release if this is the package's first release"
            )
            continue
        except api_check.SnapshotError as error:
            problems.append(f"{r.package.dist} {r.version}: {error}")
            continue
        new = snapshot.public_api(r.package)[0]
        found = api_check.breaking_changes(r.package.module, base.api, new)
        why = api_check.judge(base.version, r.version, breaking=bool(found))
        if why:
            problems.append(f"{r.package.dist} {r.version}: {why}")
            problems += [f"    {line}" for line in found]
    return "\n".join(problems) if problems else None


def taken_tags(root: Path, releases: list[Release]) -> list[str]:
    """The tags the plan would create that already exist."""
    existing = set(_run("git", "tag", "--list", root=root).split())
    return [t for r in releases if (t := f"{r.package.short}-v{r.version}") in existing]


def release(root: Path, releases: list[Release]) -> list[str]:
    """Carry out ``releases`` in the git checkout at ``root``; returns the tags made."""
    if _run("git", "status", "--porcelain", root=root):
        raise SystemExit("release: the working tree has changes; commit or stash them first")
    if taken := taken_tags(root, releases):
        raise SystemExit(f"release: refused: tag {', '.join(taken)} already exists")
    for r in releases:
        _run("uv", "version", "--package", r.package.dist, "--bump", r.bump, "--frozen", root=root)
        for sibling, spec in r.moves.items():
            set_sibling_range(r.package, sibling, spec)
            fragment = r.package.path / "changelog.d" / f"+requires-{sibling}.changed.md"
            fragment.write_text(f"Requires `{sibling}{spec}`.\n", encoding="utf-8")
    fresh = load_packages(root)
    for r in releases:
        package = fresh[r.package.dist]
        assert package.version == r.version, (package.dist, package.version, r.version)
        _run(
            sys.executable,
            "-m",
            "towncrier",
            "build",
            "--yes",
            "--version",
            str(r.version),
            "--config",
            str(package.path / "towncrier.toml"),
            "--dir",
            str(package.path),
            root=root,
        )
        snapshot.write(package)
    _run("uv", "lock", root=root)
    _run("git", "add", "--all", root=root)
    names = ", ".join(f"{r.package.dist} {r.version}" for r in releases)
    _run("git", "commit", "--quiet", "-m", f"Release {names}", root=root)
    tags = [f"{r.package.short}-v{r.version}" for r in releases]
    for r, tag in zip(releases, tags, strict=True):
        _run("git", "tag", "-a", tag, "-m", f"{r.package.dist} {r.version}", root=root)
    return tags


def news_fragments(package_dir: Path) -> list[Path]:
    """The towncrier news fragments waiting in ``<package>/changelog.d/`` (its README excluded)."""
    folder = package_dir / "changelog.d"
    return sorted(f for f in folder.glob("*.md") if f.is_file() and f.name.lower() != "readme.md")


def bump(
    name: str, kind: str, *, dry_run: bool, first_release: bool = False, root: Path = ROOT
) -> int:
    """The ``bump`` command: print the plan, then (unless ``dry_run``) release it."""
    releases = plan(root, name, kind)
    print(describe(releases))
    if taken := taken_tags(root, releases):
        print(f"release: refused: tag {', '.join(taken)} already exists", file=sys.stderr)
        return 1
    named = releases[0]  # plan() puts the named package first
    if not news_fragments(named.package.path):
        print(
            f"release: warning: {named.package.dist} has no news fragment in changelog.d/, so its "
            "changelog entry will say 'No significant changes' (add one per user-visible change, "
            "see changelog.d/README.md)",
            file=sys.stderr,
        )
    if why := refusal(releases, first_release=first_release):
        print(f"release: refused\n{why}", file=sys.stderr)
        return 1
    if dry_run:
        return 0
    tags = release(root, releases)
    print(f"release: committed and tagged {' '.join(tags)}")
    return 0


def tag_all(root: Path = ROOT) -> int:
    """Tag every package's current version on HEAD (once, for the first release); tags that exist
    are left alone."""
    if _run("git", "status", "--porcelain", root=root):
        print("tag-all: the working tree has changes; commit them first", file=sys.stderr)
        return 1
    existing = set(_run("git", "tag", "--list", root=root).splitlines())
    for package in load_packages(root).values():
        if package.tag in existing:
            print(f"tag-all: {package.tag} exists")
            continue
        _run("git", "tag", "-a", package.tag, "-m", f"{package.dist} {package.version}", root=root)
        print(f"tag-all: {package.tag}")
    return 0
