"""The public addresses documentation links use, defined once.

Package READMEs are published on the package index, where a relative link has nothing to point
at; they link to the repository's files and to the docs site absolutely, through these bases.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO_URL = "https://github.com/robota-ai/robota-python"
"""The public home of the repository."""

BLOB_BASE = f"{REPO_URL}/blob/main/"
"""Prefix of a file of the repository; append its repository-relative path."""

TREE_BASE = f"{REPO_URL}/tree/main/"
"""Prefix of a folder of the repository; append its repository-relative path."""

DOCS_URL = "https://robota-ai.github.io/robota-python/"
"""The documentation site (built by ``mkdocs`` from ``docs/``)."""

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
"""This checkout's root folder."""


def repo_path_of(url: str) -> str | None:
    """The repository-relative path a public repository URL points at.

    Args:
        url: An absolute URL, with or without a ``#fragment``.

    Returns:
        The path (``""`` for the repository itself) when ``url`` is under :data:`REPO_URL`,
        otherwise None.
    """
    url = url.split("#", 1)[0].rstrip("/")
    for base in (BLOB_BASE, TREE_BASE):
        if url.startswith(base):
            return url[len(base) :]
    if url == REPO_URL:
        return ""
    return None


def docs_pages_of(url: str) -> tuple[str, ...] | None:
    """The ``docs/`` source files a docs-site URL may be built from.

    With MkDocs' directory URLs, ``guide/tools/`` is built from ``guide/tools.md`` or
    ``guide/tools/index.md``; the site root from ``index.md``.

    Args:
        url: An absolute URL, with or without a ``#fragment``.

    Returns:
        The candidate paths relative to ``docs/`` when ``url`` is under :data:`DOCS_URL`,
        otherwise None.
    """
    url = url.split("#", 1)[0]
    if not url.startswith(DOCS_URL):
        return None
    page = url[len(DOCS_URL) :].strip("/")
    if not page:
        return ("index.md",)
    return (f"{page}.md", f"{page}/index.md")


_INLINE_LINK = re.compile(r"\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
_REF_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*(?P<target>\S+)", re.M)
_AUTOLINK = re.compile(r"<(?P<target>https?://[^>\s]+)>")


def links_of(text: str) -> list[str]:
    """Every link target of a Markdown text: inline links and images, reference definitions and
    ``<https://...>`` autolinks, in that order."""
    return [
        m.group("target")
        for pattern in (_INLINE_LINK, _REF_LINK, _AUTOLINK)
        for m in pattern.finditer(text)
    ]


def broken_links(path: Path, *, absolute_only: bool, repo_root: Path = REPO_ROOT) -> list[str]:
    """The links of a Markdown file that point nowhere in this checkout.

    A link under :data:`REPO_URL` must name a file or folder of ``repo_root``; one under
    :data:`DOCS_URL` a page of ``repo_root/docs``; a relative link (ignoring its ``#fragment``)
    a file beside ``path``. Other absolute links and ``mailto:`` / ``#fragment`` links are not
    checked.

    Args:
        path: The Markdown file.
        absolute_only: Also report every relative link (``"TARGET (relative)"``): package
            READMEs are published on the index, where a relative link has nothing to point at.
        repo_root: The checkout the links are resolved in.

    Returns:
        The offending targets, in the order :func:`links_of` finds them.
    """
    broken: list[str] = []
    for target in links_of(path.read_text(encoding="utf-8")):
        if target.startswith(("mailto:", "#")):
            continue
        if "://" in target:
            repo_path = repo_path_of(target)
            if repo_path is not None and not (repo_root / repo_path).exists():
                broken.append(target)
            pages = docs_pages_of(target)
            if pages is not None and not any((repo_root / "docs" / p).exists() for p in pages):
                broken.append(target)
            continue
        if absolute_only:
            broken.append(f"{target} (relative)")
        elif not (path.parent / target.split("#", 1)[0]).resolve().exists():
            broken.append(target)
    return broken
