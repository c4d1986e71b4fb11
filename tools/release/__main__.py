"""``python -m tools.release``: per-package releases and their checks.

Commands:
    bump <package> <major|minor|patch> [--dry-run]   release one package (see tools.release.release)
    tag-all                                          tag every package's current version once
    api-check [package ...]                          the public-API check against api.json
    api-snapshot [package ...]                       retake api.json at the current versions
    check                                            changelogs, licences and ranges
"""

from __future__ import annotations

import argparse
import sys

from tools.release import api_check, consistency, release
from tools.release.workspace import find_package, load_packages


def _api_check(names: list[str]) -> int:
    packages = load_packages()
    chosen = [find_package(packages, n) for n in names] if names else list(packages.values())
    failed = 0
    for package in chosen:
        verdict = api_check.check(package)
        if verdict.failure:
            failed += 1
            print(
                f"{package.dist} {verdict.snapshot_version} -> {verdict.version}: {verdict.failure}"
            )
            for line in verdict.breakages:
                print(f"    {line}")
    print(f"api: packages={len(chosen)} breaking={failed}")
    return 1 if failed else 0


def _api_snapshot(names: list[str]) -> int:
    packages = load_packages()
    chosen = [find_package(packages, n) for n in names] if names else list(packages.values())
    for package in chosen:
        print(f"api-snapshot: {api_check.write_snapshot(package)}")
    return 0


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
    commands.add_parser("tag-all", help="tag every package's current version")
    for name in ("api-check", "api-snapshot"):
        commands.add_parser(name).add_argument("packages", nargs="*")
    commands.add_parser("check", help="changelogs, licences and sibling ranges")
    args = parser.parse_args(argv)
    match args.command:
        case "bump":
            return release.bump(args.package, args.kind, dry_run=args.dry_run)
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
