"""The sibling ranges the release check accepts (tools/release/workspace.py)."""

import pytest

from tools.release.workspace import compatible_range, is_compatible_range


@pytest.mark.parametrize(
    ("specifier", "accepted"),
    [
        (">=0.2,<0.3", True),  # what bump writes while 0.x
        (">=1.0,<2", True),  # and from 1.0
        (">=0.2.2,<0.3", True),  # a floor raised to a patch release inside the series
        (">=1.2.3,<2", True),
        (">=0.2.2,<0.4", False),  # two series
        (">=1.2.3,<1.3", False),  # narrower than the series
        (">=0.2.2", False),  # unbounded
        (">=0.2.2,<0.3,!=0.2.5", False),  # an exclusion bump cannot move
        ("<0.3", False),
    ],
)
def test_sibling_ranges(specifier: str, accepted: bool) -> None:
    assert is_compatible_range(specifier) is accepted


def test_bump_writes_series_ranges() -> None:
    from packaging.version import Version

    assert compatible_range(Version("0.2.2")) == ">=0.2,<0.3"
    assert compatible_range(Version("1.4.2")) == ">=1.0,<2"
