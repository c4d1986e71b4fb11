"""Per-package releases for the Robota workspace (run with ``python -m tools.release``).

Jobs, one file each: :mod:`tools.release.workspace` reads the packages, their versions and sibling
ranges; :mod:`tools.release.release` bumps a package (``uv version``), writes its changelog
(``towncrier``), moves the sibling ranges that must move, locks, commits and tags;
:mod:`tools.release.api_check` keeps a committed public-API snapshot per package and compares the
source with it (``griffe``); :mod:`tools.release.consistency` checks changelogs, licences and ranges.
"""
