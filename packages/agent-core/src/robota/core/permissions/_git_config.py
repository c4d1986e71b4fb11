"""A careful reader of git configuration files and the allowlist of harmless keys, for the
read-only classification of ``git`` (seed 000, "Permission System": the inspect exception).

A repository's own configuration can make the most innocent git command run a program:
``core.fsmonitor`` runs on ``git status``, ``core.pager``/``pager.*`` when paging,
``diff.external`` and ``diff.*.textconv`` on ``git diff``/``log -p``/``show``, ``filter.*`` when
the worktree is compared, ``gpg.program`` with ``log.showSignature``, ``include.path`` pulls in
any of these from another file. A denylist would miss the next such key, so this module keeps
an **allowlist** (:data:`ALLOWED_KEYS`, :func:`key_allowed`) of keys known to only set data
(identity, remotes, branches, formatting) and refuses everything else.

The reader follows git's own parser (``config.c``: ``git_parse_source``, ``get_base_var``,
``get_value``, ``parse_value``) so that it sees the same keys git sees:

* sections ``[section]``, ``[section "subsection"]`` (subsection case kept, ``\\"`` and ``\\\\``
  escapes) and the old ``[section.subsection]`` (all lowercased); section and variable names
  are case-insensitive (lowercased here); a variable may follow ``]`` on the same line;
* ``name = value``, or ``name`` alone (boolean true); values are trimmed, ``"…"`` quoting,
  the escapes ``\\n \\t \\b \\" \\\\``, a backslash-newline continues the line, and ``#``/``;``
  outside quotes start a comment; ``\\r\\n`` counts as a newline; a leading UTF-8 BOM is skipped.

Anything git would reject (an unknown escape, an unterminated quote or header, a name with an
odd character, a variable before any section) makes :func:`read_config` return None, and the
caller refuses: fail closed.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ALLOWED_KEYS", "ConfigEntry", "key_allowed", "read_config"]


def _names(text: str) -> frozenset[str]:
    """The space-separated names of ``text``."""
    return frozenset(text.split())


@dataclass(frozen=True, kw_only=True, slots=True)
class ConfigEntry:
    """One ``key = value`` of a configuration file.

    Attributes:
        section: Section name, lowercased (``"remote"``).
        subsection: Subsection as git keeps it (``"origin"``), or None.
        name: Variable name, lowercased (``"url"``).
        value: The value after unquoting, or None for a bare ``name`` (boolean true).
    """

    section: str
    subsection: str | None
    name: str
    value: str | None

    @property
    def key(self) -> str:
        """``section.subsection.name`` as ``git config --list`` prints it."""
        if self.subsection is None:
            return f"{self.section}.{self.name}"
        return f"{self.section}.{self.subsection}.{self.name}"


_SPACE = " \t\n\r"


def _is_key_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "-")


class _Source:
    """Characters of a file the way git's ``get_next_char`` hands them out."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.index = 0
        self.eof = False

    def next(self) -> str:
        if self.index >= len(self.text):
            self.eof = True
            return "\n"
        char = self.text[self.index]
        self.index += 1
        if char == "\r" and self.index < len(self.text) and self.text[self.index] == "\n":
            self.index += 1
            return "\n"
        return char


class _ConfigSyntaxError(Exception):
    """The file is not valid git configuration."""


def read_config(data: bytes) -> list[ConfigEntry] | None:
    """Parse a configuration file; None when git would reject it (or it holds a NUL byte).

    Args:
        data: The file's bytes.

    Returns:
        Every entry in file order.
    """
    if b"\x00" in data:
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return _parse(_Source(data.decode("utf-8", errors="surrogateescape")))
    except _ConfigSyntaxError:
        return None


def _parse(source: _Source) -> list[ConfigEntry]:
    entries: list[ConfigEntry] = []
    section: tuple[str, str | None] | None = None
    comment = False
    while True:
        char = source.next()
        if char == "\n":
            if source.eof:
                return entries
            comment = False
            continue
        if comment or char in _SPACE:
            continue
        if char in "#;":
            comment = True
            continue
        if char == "[":
            section = _section(source)
            continue
        if not (char.isascii() and char.isalpha()) or section is None:
            raise _ConfigSyntaxError
        name, value = _variable(source, char.lower())
        entries.append(
            ConfigEntry(section=section[0], subsection=section[1], name=name, value=value)
        )


def _section(source: _Source) -> tuple[str, str | None]:
    name: list[str] = []
    while True:
        char = source.next()
        if source.eof:
            raise _ConfigSyntaxError
        if char == "]":
            return _split_section("".join(name))
        if char in _SPACE:
            return _extended_section("".join(name), source, char)
        if not _is_key_char(char) and char != ".":
            raise _ConfigSyntaxError
        name.append(char.lower())


def _split_section(name: str) -> tuple[str, str | None]:
    if not name:
        raise _ConfigSyntaxError
    section, dot, subsection = name.partition(".")
    if not section:
        raise _ConfigSyntaxError
    return section, subsection if dot else None


def _extended_section(name: str, source: _Source, char: str) -> tuple[str, str]:
    while char in _SPACE:
        if char == "\n":
            raise _ConfigSyntaxError
        char = source.next()
    if char != '"':
        raise _ConfigSyntaxError
    subsection: list[str] = []
    while True:
        char = source.next()
        if char == "\n":
            raise _ConfigSyntaxError
        if char == '"':
            break
        if char == "\\":
            char = source.next()
            if char == "\n":
                raise _ConfigSyntaxError
        subsection.append(char)
    if source.next() != "]":
        raise _ConfigSyntaxError
    section, inner = _split_section(name)
    full = "".join(subsection) if inner is None else f"{inner}.{''.join(subsection)}"
    return section, full


def _variable(source: _Source, first: str) -> tuple[str, str | None]:
    name = [first]
    char = source.next()
    while not source.eof and _is_key_char(char):
        name.append(char.lower())
        char = source.next()
    while char in " \t":
        char = source.next()
    if char == "\n":
        return "".join(name), None
    if char != "=":
        raise _ConfigSyntaxError
    return "".join(name), _value(source)


def _value(source: _Source) -> str:
    value: list[str] = []
    quote = False
    comment = False
    trim = 0
    while True:
        char = source.next()
        if char == "\n":
            if quote:
                raise _ConfigSyntaxError
            if trim:
                del value[trim:]
            return "".join(value)
        if comment:
            continue
        if char in _SPACE and not quote:
            if not trim:
                trim = len(value)
            if value:
                value.append(char)
            continue
        if not quote and char in ";#":
            comment = True
            continue
        trim = 0
        if char == "\\":
            char = source.next()
            if char == "\n":
                continue
            escaped = {"t": "\t", "b": "\b", "n": "\n", "\\": "\\", '"': '"'}.get(char)
            if escaped is None:
                raise _ConfigSyntaxError
            value.append(escaped)
            continue
        if char == '"':
            quote = not quote
            continue
        value.append(char)


ALLOWED_KEYS: dict[str, frozenset[str]] = {
    "core": _names(
        "repositoryformatversion filemode bare logallrefupdates ignorecase "
        "precomposeunicode symlinks autocrlf eol safecrlf quotepath trustctime checkstat "
        "untrackedcache sharedrepository abbrev compression loosecompression preloadindex "
        "commentchar whitespace sparsecheckout sparsecheckoutcone warnambiguousrefs "
        "multipackindex commitgraph bigfilethreshold deltabasecachelimit packedgitlimit "
        "packedgitwindowsize checkroundtripencoding hidedotfiles longpaths protecthfs "
        "protectntfs worktree"
    ),
    "extensions": _names("objectformat worktreeconfig refstorage preciousobjects noop"),
    "user": _names("name email signingkey"),
    "init": frozenset({"defaultbranch"}),
    "pull": frozenset({"rebase", "ff"}),
    "push": frozenset({"default", "autosetupremote", "followtags"}),
    "fetch": frozenset({"prune", "prunetags"}),
    "merge": frozenset({"ff", "conflictstyle"}),
    "rebase": frozenset({"autostash", "autosquash", "updaterefs"}),
    "status": _names(
        "showuntrackedfiles short branch relativepaths renames renamelimit showstash "
        "aheadbehind displaycommentprefix"
    ),
    "log": _names("date decorate abbrevcommit follow mailmap graphcolors"),
    "diff": _names(
        "renames renamelimit algorithm mnemonicprefix noprefix context interhunkcontext "
        "indentheuristic colormoved colormovedws wserrorhighlight statgraphwidth dirstat "
        "suppressblankempty"
    ),
    "color": _names("ui diff status branch grep interactive pager decorate"),
    "column": frozenset({"ui"}),
    "commit": frozenset({"gpgsign", "verbose", "cleanup", "status"}),
    "tag": frozenset({"gpgsign", "sort"}),
    "gc": frozenset({"auto", "autodetach", "autopacklimit"}),
    "i18n": frozenset({"commitencoding", "logoutputencoding"}),
    "index": frozenset({"version", "threads"}),
    "feature": frozenset({"manyfiles"}),
    "branch": frozenset({"autosetupmerge", "autosetuprebase", "sort"}),
    "lfs": frozenset({"repositoryformatversion"}),
}
"""Two-part keys (``section.name``) known to set data only, by section."""

_ALLOWED_SUBSECTION_KEYS: dict[str, frozenset[str] | None] = {
    "remote": _names("url fetch pushurl push tagopt prune mirror skipdefaultupdate skipfetchall"),
    "branch": frozenset({"remote", "merge", "rebase", "pushremote", "description"}),
    "submodule": frozenset({"url", "active", "branch", "ignore"}),
    "color": None,  # color.<slot-group>.<slot> = a color
    "lfs": frozenset({"access", "locksverify"}),
}
"""Three-part keys (``section.<subsection>.name``) known to set data only (None: any name).
Not here on purpose: ``remote.*.uploadpack``/``receivepack``/``vcs``/``proxy``/``promisor``,
``submodule.*.update`` (``!command``), ``diff.*``, ``filter.*``, ``merge.*``, ``pager.*``,
``alias.*``, ``credential.*``, ``gpg.*``, ``includeIf.*``, ``hook.*``."""


def key_allowed(entry: ConfigEntry) -> bool:
    """True when ``entry`` is on the allowlist (and, for ``extensions.objectformat``, names a
    format the index reader knows).

    Args:
        entry: One configuration entry.
    """
    if entry.subsection is None:
        names = ALLOWED_KEYS.get(entry.section)
        if names is None or entry.name not in names:
            return False
        if entry.section == "extensions" and entry.name == "objectformat":
            return (entry.value or "").lower() in ("sha1", "sha256")
        return True
    if entry.section not in _ALLOWED_SUBSECTION_KEYS:
        return False
    names = _ALLOWED_SUBSECTION_KEYS[entry.section]
    return names is None or entry.name in names
