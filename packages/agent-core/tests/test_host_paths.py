"""Path containment (seed 000, "Path Containment"): canonical paths, symlinks resolved."""

from __future__ import annotations

import os
import posixpath
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from robota.core.host.errors import InvalidPathError, PathOutsideRootError
from robota.core.host.paths import canonical_path, is_inside, resolve_inside


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "workspace"
    outside = tmp_path / "outside"
    (root / "src").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (root / "src" / "main.py").write_text("print()")
    return root.resolve(), outside.resolve()


def test_relative_candidate_is_taken_relative_to_root(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    assert resolve_inside(root, "src/main.py") == root / "src" / "main.py"
    assert resolve_inside(root, "") == root
    assert resolve_inside(root, "src/../src/./main.py") == root / "src" / "main.py"


def test_dot_dot_out_of_root_is_refused(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    with pytest.raises(PathOutsideRootError) as caught:
        resolve_inside(root, "../outside/secret.txt")
    assert caught.value.error_code == "path_outside_root"
    assert caught.value.candidate == "../outside/secret.txt"
    assert is_inside(root, "src/../../outside") is False


def test_absolute_candidate_is_judged_as_given(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    assert resolve_inside(root, str(root / "src")) == root / "src"
    assert is_inside(root, "/etc/passwd") is False
    assert is_inside(root, str(outside / "secret.txt")) is False


def test_sibling_with_root_as_name_prefix_is_outside(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work-evil").mkdir()
    assert is_inside(tmp_path / "work", "../work-evil/x") is False
    assert is_inside(tmp_path / "work", str(tmp_path / "work-evil")) is False


def test_nul_byte_is_refused(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    with pytest.raises(InvalidPathError) as caught:
        resolve_inside(root, "src/main.py\x00.txt")
    assert caught.value.error_code == "invalid_path"
    assert is_inside(root, "a\x00") is False


def test_url_encoded_dots_are_literal_file_names(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    assert resolve_inside(root, "%2e%2e/%2e%2e/etc/passwd") == root / "%2e%2e/%2e%2e/etc/passwd"
    assert resolve_inside(root, "..%2f..%2fetc") == root / "..%2f..%2fetc"
    assert resolve_inside(root, "..\\..\\etc\\passwd") == root / "..\\..\\etc\\passwd"


def test_missing_intermediate_components_then_dot_dot(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    assert resolve_inside(root, "new/deeper/../file.txt") == root / "new" / "file.txt"
    assert is_inside(root, "new/deeper/../../../outside") is False


def test_link_inside_pointing_out_is_refused(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    (root / "escape").symlink_to(outside)
    assert is_inside(root, "escape") is False
    assert is_inside(root, "escape/secret.txt") is False
    assert is_inside(root, str(root / "escape" / "secret.txt")) is False


def test_link_inside_pointing_inside_is_allowed(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    (root / "alias").symlink_to("src")
    assert resolve_inside(root, "alias/main.py") == root / "src" / "main.py"


def test_link_chain_leaving_root_is_refused(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    (root / "hop2").symlink_to(outside)
    (root / "src" / "hop1").symlink_to("../hop2")
    (root / "hop0").symlink_to(root / "src" / "hop1")
    assert canonical_path(root / "hop0" / "secret.txt") == outside / "secret.txt"
    assert is_inside(root, "hop0/secret.txt") is False


def test_dangling_link_pointing_out_is_refused(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    (root / "dangling").symlink_to(outside / "not-yet-created.txt")
    assert not (root / "dangling").exists()
    assert is_inside(root, "dangling") is False


def test_missing_final_component_under_an_escaping_link(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    (root / "out").symlink_to(outside)
    with pytest.raises(PathOutsideRootError):
        resolve_inside(root, "out/new-file.txt")
    with pytest.raises(PathOutsideRootError):
        resolve_inside(root, "out/missing/dir/new-file.txt")


def test_symlink_loop_is_refused(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    (root / "a").symlink_to("b")
    (root / "b").symlink_to("a")
    with pytest.raises(InvalidPathError):
        resolve_inside(root, "a/x")


def test_root_reached_through_a_link(layout: tuple[Path, Path], tmp_path: Path) -> None:
    root, _ = layout
    link_to_root = tmp_path / "root-link"
    link_to_root.symlink_to(root)
    assert resolve_inside(link_to_root, "src/main.py") == root / "src" / "main.py"
    assert is_inside(link_to_root, "../outside") is False


def test_toctou_directory_swapped_for_link_after_check(layout: tuple[Path, Path]) -> None:
    """Documents the limit in the module docstring: the check is for the tree as it was."""
    root, outside = layout
    (outside / "main.py").write_text("outside content")
    checked = resolve_inside(root, "src/main.py")
    shutil.rmtree(root / "src")
    (root / "src").symlink_to(outside)
    # The path approved a moment ago now reads a file outside the root ...
    assert checked.read_text() == "outside content"
    # ... and only a fresh check sees it.
    assert is_inside(root, "src/main.py") is False


_SEGMENTS = st.sampled_from(["..", ".", "a", "b", "", "%2e%2e", "..%2f", "...", "\\.."])


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(_SEGMENTS, max_size=8), absolute=st.booleans())
def test_without_links_containment_matches_lexical_model(
    parts: list[str], absolute: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.getbasetemp().resolve() / "prop-root"
    (root / "a").mkdir(parents=True, exist_ok=True)
    candidate = "/".join(parts)
    if absolute:
        candidate = str(root) + "/" + candidate
    expected = posixpath.normpath(posixpath.join(str(root), candidate))
    inside = expected == str(root) or expected.startswith(str(root) + os.sep)
    assert is_inside(root, candidate) is inside
    if inside:
        assert resolve_inside(root, candidate) == Path(expected)
