"""Per-package releases for the Robota workspace (run with ``python -m tools.release``).

Jobs, one file each: :mod:`tools.release.workspace` reads the packages, their versions and sibling
ranges; :mod:`tools.release.release` bumps a package (``uv version``), writes its changelog
(``towncrier``), moves the sibling ranges that must move, locks, commits and tags;
:mod:`tools.release.snapshot` takes a package's public API (``griffe``) in a small, stable form;
:mod:`tools.release.api_check` compares the source with the committed snapshot, or the last release
tag's copy when the clone has tags; :mod:`tools.release.consistency` checks changelogs, licences and
ranges; :mod:`tools.release.index_check` installs the built distributions piecemeal from a local
index (``.ci/index-check``).
"""
