"""The workspace's packages as the release tools see them: directory, distribution, version,
import name and the version ranges it declares on its siblings.

Everything is read from each ``packages/<dir>/pyproject.toml``; nothing is cached, so a step that
rewrote a file (``uv version``) is seen by the next read.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, kw_only=True, slots=True)
class Package:
    """One workspace member.

    Attributes:
        short: The directory name under ``packages/`` (``agent-core``); the tag prefix.
        dist: The distribution name (``robota-agent-core``).
        module: The import name (``robota.core``).
        version: The version in its pyproject.
        path: The package directory.
        requires: Sibling distribution name -> the specifier it declares (``>=0.2,<0.3``);
            names are normalised, so ``robota_agent_core`` is the sibling ``robota-agent-core``.
        spellings: Sibling distribution name -> every spelling of it the pyproject uses.
    """

    short: str
    dist: str
    module: str
    version: Version
    path: Path
    requires: dict[str, str]
    spellings: dict[str, list[str]] = field(default_factory=dict[str, list[str]])

    @property
    def tag(self) -> str:
        """The git tag of this version, ``<short>-v<version>`` (``agent-core-v0.2.0``)."""
        return f"{self.short}-v{self.version}"

    @property
    def src(self) -> Path:
        """The folder that holds the ``robota`` namespace portion."""
        return self.path / "src"


def load_packages(root: Path = ROOT) -> dict[str, Package]:
    """Every package under ``root/packages``, keyed by distribution name, in directory order."""
    pyprojects = sorted((root / "packages").glob("*/pyproject.toml"))
    data = {p.parent: tomllib.loads(p.read_text(encoding="utf-8")) for p in pyprojects}
    names = {canonicalize_name(d["project"]["name"]): d["project"]["name"] for d in data.values()}
    packages: dict[str, Package] = {}
    for path, doc in data.items():
        project = doc["project"]
        declared = list(project.get("dependencies", []))
        for extra in project.get("optional-dependencies", {}).values():
            declared.extend(extra)
        requires: dict[str, str] = {}
        spellings: dict[str, list[str]] = {}
        for line in declared:
            req = Requirement(line)
            sibling = names.get(canonicalize_name(req.name))
            if sibling is not None:
                requires[sibling] = str(req.specifier)
                spellings.setdefault(sibling, []).append(req.name)
        packages[project["name"]] = Package(
            short=path.name,
            dist=project["name"],
            module=doc["tool"]["uv"]["build-backend"]["module-name"],
            version=Version(project["version"]),
            path=path,
            requires=requires,
            spellings=spellings,
        )
    return packages


def find_package(packages: dict[str, Package], name: str) -> Package:
    """The package called ``name``: distribution (``robota-agent-core``), directory
    (``agent-core``) or the part after ``agent-`` (``core``).

    Raises:
        KeyError: no package has that name.
    """
    for package in packages.values():
        if name in {package.dist, package.short, package.short.removeprefix("agent-")}:
            return package
    raise KeyError(f"no package {name!r}; known: {', '.join(p.short for p in packages.values())}")


def compatible_range(version: Version) -> str:
    """The range a sibling declares on ``version``: the versions that may not break it.

    While 0.x a minor release may break (``0.3.1`` -> ``>=0.3,<0.4``); from 1.0 only a major
    release may (``1.4.2`` -> ``>=1.0,<2``). Semantic Versioning 2.0.0, item 4 and 8.
    """
    if version.major == 0:
        return f">=0.{version.minor},<0.{version.minor + 1}"
    return f">={version.major}.0,<{version.major + 1}"


def is_compatible_range(specifier: str) -> bool:
    """Whether ``specifier`` is what :func:`compatible_range` writes for its floor
    (``>=0.2,<0.3``; ``>=1.0,<2``), or that range with its floor raised to a release inside
    the series (``>=0.2.2,<0.3``: a dependent needs what a patch release added): bounded on both
    sides, one compatible series."""
    parts = [s for s in SpecifierSet(specifier)]
    floors = [s for s in parts if s.operator == ">="]
    if len(parts) != 2 or len(floors) != 1:
        return False
    try:
        floor = Version(floors[0].version)
    except InvalidVersion:
        return False
    series = compatible_range(floor)
    if SpecifierSet(specifier) == SpecifierSet(series):
        return True
    ceiling = next(s for s in SpecifierSet(series) if s.operator == "<")
    return SpecifierSet(specifier) == SpecifierSet(f">={floor},<{ceiling.version}")


def set_sibling_range(package: Package, sibling: str, specifier: str) -> None:
    """Rewrite the specifier of every requirement on ``sibling`` in ``package``'s pyproject
    (dependencies and extras), leaving every other line as it is."""
    pyproject = package.path / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    spelled = "[-_.]+".join(re.escape(part) for part in re.split(r"[-_.]+", sibling))
    pattern = re.compile(rf'"{spelled}(\[[^\]]*\])?\s*[<>=!~][^";]*(;[^"]*)?"', flags=re.IGNORECASE)
    new, count = pattern.subn(lambda m: f'"{sibling}{m[1] or ""}{specifier}{m[2] or ""}"', text)
    if count == 0:
        raise ValueError(f"{pyproject}: no versioned requirement on {sibling}")
    pyproject.write_text(new, encoding="utf-8")
