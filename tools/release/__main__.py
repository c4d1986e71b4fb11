"""``python -m tools.release``: per-package releases and their checks.

Commands:
    bump <package> <major|minor|patch> [--dry-run] [--first-release]
                                                     release one package (see tools.release.release)
    tag-all                                          tag every package's current version once
    api-check [package ...]                          the public-API check against the last release
    api-snapshot [package ...]                       record additions in api.json (never a break)
    check                                            changelogs, licences and ranges
"""

from __future__ import annotations

import argparse
import sys

from packaging.version import Version

from tools.release import api_check, consistency, release, snapshot
from tools.release.workspace import find_package, load_packages


def _api_check(names: list[str]) -> int:
    packages = load_packages()
    chosen = [find_package(packages, n) for n in names] if names else list(packages.values())
    failed = 0
    untagged: list[str] = []
    for package in chosen:
        verdict = api_check.check(package)
        if not verdict.tagged and verdict.snapshot_version != Version("0"):
            untagged.append(package.short)
        if verdict.failure:
            failed += 1
            print(
                f"{package.dist} {verdict.snapshot_version} -> {verdict.version}: {verdict.failure}"
            )
            for line in verdict.breakages:
                print(f"    {line}")
    if untagged:
        print(
            f"api: baseline is the committed {api_check.SNAPSHOT}, not a release tag, for "
            f"{len(untagged)} package(s) (no <folder>-v<version> tag in this clone)"
        )
    print(f"api: packages={len(chosen)} breaking={failed}")
    return 1 if failed else 0


def _api_snapshot(names: list[str]) -> int:
    packages = load_packages()
    chosen = [find_package(packages, n) for n in names] if names else list(packages.values())
    refused = 0
    for package in chosen:
        try:
            base = api_check.baseline(package)
        except FileNotFoundError:
            base = api_check.head_snapshot(package)  # None: the package's first snapshot
        except api_check.SnapshotError as error:
            print(f"api-snapshot: refused: {error} (restore it from git first)", file=sys.stderr)
            refused += 1
            continue
        if base is not None and base.version == package.version:
            found = api_check.breaking_changes(
                package.module, base.api, snapshot.public_api(package)[0]
            )
            if found:
                where = base.tag or f"the committed {api_check.SNAPSHOT}"
                print(
                    f"api-snapshot: refused: {package.dist} {package.version} breaks the API "
                    f"recorded in {where} at the same version; only additions may be recorded "
                    "between releases (release the break with `bump`, which retakes the snapshot)",
                    file=sys.stderr,
                )
                print("\n".join(f"    {line}" for line in found), file=sys.stderr)
                refused += 1
                continue
        print(f"api-snapshot: {snapshot.write(package)}")
    return 1 if refused else 0


def _check() -> int:
    count, found = consistency.problems()
    for line in found:
        print(line)
    print(f"release: packages={count} problems={len(found)}")
    return 1 if found else 0


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run one command; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m tools.release", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    bump = commands.add_parser("bump", help="release one package")
    bump.add_argument("package")
    bump.add_argument("kind", choices=["major", "minor", "patch"])
    bump.add_argument("--dry-run", action="store_true", help="print the plan only")
    bump.add_argument(
        "--first-release",
        action="store_true",
        help="allow released packages without api.json (their first snapshot is taken)",
    )
    commands.add_parser("tag-all", help="tag every package's current version")
    for name in ("api-check", "api-snapshot"):
        commands.add_parser(name).add_argument("packages", nargs="*")
    commands.add_parser("check", help="changelogs, licences and sibling ranges")
    args = parser.parse_args(argv)
    match args.command:
        case "bump":
            return release.bump(
                args.package, args.kind, dry_run=args.dry_run, first_release=args.first_release
            )
        case "tag-all":
            return release.tag_all()
        case "api-check":
            return _api_check(args.packages)
        case "api-snapshot":
            return _api_snapshot(args.packages)
        case _:
            return _check()


if __name__ == "__main__":
    sys.exit(main())
