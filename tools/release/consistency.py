"""What every release needs besides the API: each package has a CHANGELOG.md with an entry for its
current version and its towncrier config, ships the root LICENSE unchanged, and declares ranges
on its siblings that admit the siblings' current versions (so the workspace is installable from an
index as it stands), each written with the sibling's distribution name as spelled in its
pyproject and as the bounded compatible range ``bump`` writes (so ``bump`` can move it)."""

from __future__ import annotations

from pathlib import Path

from packaging.specifiers import SpecifierSet

from tools.release.workspace import ROOT, is_compatible_range, load_packages


def problems(root: Path = ROOT) -> tuple[int, list[str]]:
    """The number of packages checked and one line per problem found."""
    packages = load_packages(root)
    licence = (root / "LICENSE").read_bytes()
    found: list[str] = []
    for package in packages.values():
        name = package.path.relative_to(root)
        changelog = package.path / "CHANGELOG.md"
        if not changelog.is_file():
            found.append(f"{name}: no CHANGELOG.md")
        elif f"## [{package.version}]" not in changelog.read_text(encoding="utf-8"):
            found.append(f"{name}: CHANGELOG.md has no entry for {package.version}")
        if not (package.path / "towncrier.toml").is_file():
            found.append(f"{name}: no towncrier.toml")
        own = package.path / "LICENSE"
        if not own.is_file() or own.read_bytes() != licence:
            found.append(f"{name}: LICENSE missing or not identical to the root LICENSE")
        for sibling, spec in package.requires.items():
            for spelling in package.spellings.get(sibling, []):
                if spelling != sibling:
                    found.append(
                        f"{name}: requires {spelling!r}, not the distribution name {sibling!r}"
                    )
            if not is_compatible_range(spec):
                found.append(
                    f"{name}: requires {sibling}{spec}, not a compatible range as `bump` writes "
                    f"it (>=X.Y,<X.(Y+1) while 0.x, >=X.0,<X+1 from 1.0)"
                )
            current = packages[sibling].version
            if not SpecifierSet(spec).contains(current, prereleases=True):
                found.append(f"{name}: requires {sibling}{spec}, which excludes {current}")
    return len(packages), found
