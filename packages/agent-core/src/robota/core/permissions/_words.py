"""What bash does to one word before a command sees it (seed 000, "Permission Argument
Registry": a deny pattern that cannot be judged asks).

``bashlex`` gives each word's source span and its quote-removed text, but it does not decode
everything bash decodes (``$'\\x72m'`` and ``$"…"`` come out wrong, ``${…}`` internals are not
parsed). So every word is re-read here from its source span, with quote tracking, to learn:

* whether bash changes it at run time from the shell's state (*runtime*: ``$x``, ``${…}``,
  ``$(…)``, backticks, ``$((…))``, ``<(…)``, ``$'…'``, ``$"…"``, ``~user``, ``~+``, ``~-``);
* whether bash changes it from the file system or the home directory (*pattern*: unquoted
  ``*``, ``?``, ``[…]``, extglob ``+(…)``/``@(…)``/``!(…)``, brace expansion ``{a,b}`` /
  ``{1..3}``, a leading ``~`` or ``~/``);
* whether the word on its own makes bash run or evaluate text the parser cannot see
  (*danger*): ``${x@P}``, indirection ``${!x}``, an array subscript or substring offset that
  is not a literal number (bash evaluates it as arithmetic, and arithmetic on a variable
  holding ``a[$(cmd)]`` runs ``cmd``), code inside ``${…}``, ``$((…))``, ``$[…]``, an
  assignment through ``${NAME=…}`` to a variable in :data:`SENSITIVE_VARIABLES`, and any word
  this reader cannot follow.

A word is *certain* only when it is neither runtime nor pattern and the text read here equals
bashlex's; ``\\*`` and ``'*'`` are literal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "SENSITIVE_PREFIXES",
    "SENSITIVE_VARIABLES",
    "WordFacts",
    "dollar_spans",
    "is_identifier",
    "is_sensitive_variable",
    "scan_word",
]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ASSIGNMENT_LIKE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-]")
_SAFE_TRANSFORMS = frozenset("QEAaUuLKk")
_LITERAL_SUBSCRIPT = re.compile(r"\s*(-?[0-9]+|[@*])\s*\Z")
_LITERAL_SUBSTRING = re.compile(r":\s*-?[0-9]+\s*(:\s*-?[0-9]+\s*)?\Z")
_SPECIAL_AFTER_DOLLAR = frozenset("@*#?-$!0123456789")

SENSITIVE_VARIABLES = frozenset(
    {
        "PATH", "BASH_ENV", "ENV", "IFS", "CDPATH", "GLOBIGNORE", "SHELLOPTS", "BASHOPTS",
        "PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3", "PS4", "HOME", "SHELL", "EXECIGNORE",
        "POSIXLY_CORRECT", "OLDPWD", "PWD", "PAGER", "EDITOR", "VISUAL", "MANPAGER",
        "SYSTEMD_PAGER", "LESSOPEN", "LESSCLOSE", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME",
        "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "NODE_OPTIONS", "NODE_PATH",
        "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "SUDO_ASKPASS", "SSH_ASKPASS",
        "GCONV_PATH", "XDG_CONFIG_HOME", "ZDOTDIR", "INPUTRC", "HOSTALIASES", "TMOUT",
        "FUNCNEST", "HISTFILE", "MAKEFLAGS", "MAKEFILES", "SUDO_EDITOR",
    }
)  # fmt: skip
"""Variables whose value changes how later commands start, resolve or what code they load
(setting one — as a prefix, a standalone assignment, ``export``, ``read``, ``printf -v``,
``for``… — makes the line opaque)."""

SENSITIVE_PREFIXES = ("LD_", "BASH_", "GIT_", "DYLD_", "COMP_", "READLINE_")
"""Variable name prefixes treated like :data:`SENSITIVE_VARIABLES`."""

_HARMLESS_GIT = frozenset(
    {
        "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS",
        "GIT_FLUSH", "GIT_LFS_SKIP_SMUDGE", "GIT_MERGE_AUTOEDIT", "GIT_PROGRESS_DELAY",
        "GIT_ADVICE",
    }
)  # fmt: skip


def is_identifier(name: str) -> bool:
    """True when ``name`` is a plain shell variable name (no subscript)."""
    return bool(_IDENT.match(name))


def is_sensitive_variable(name: str) -> bool:
    """True when assigning ``name`` changes how later commands start or resolve."""
    if name in _HARMLESS_GIT:
        return False
    return name in SENSITIVE_VARIABLES or name.startswith(SENSITIVE_PREFIXES)


@dataclass(frozen=True, kw_only=True, slots=True)
class WordFacts:
    """What bash does to one word.

    Attributes:
        literal: The quote-removed text as read here (expansions left out), for comparison.
        raw: The word as written in the line (quotes included).
        runtime: The value depends on the shell's state when the line runs.
        pattern: The value depends on the file system or home directory (glob, brace, ``~``).
        splits: An unquoted expansion: the word may become several words, or none.
        danger: Why the word on its own can run or evaluate hidden code, or None.
        tilde: The word starts with an expanding ``~`` or ``~/`` (the home directory).
    """

    literal: str
    raw: str = ""
    runtime: bool = False
    pattern: bool = False
    splits: bool = False
    danger: str | None = None
    tilde: bool = False

    @property
    def certain(self) -> bool:
        """True when bash passes the word on exactly as read."""
        return not (self.runtime or self.pattern or self.danger)


class _Unreadable(Exception):
    """The scanner lost track of the word (unterminated quote or group)."""


class _Scanner:
    """One pass over a word's source text."""

    def __init__(self, text: str, *, assignment: bool) -> None:
        self.text = text
        self.assignment = assignment
        self.chars: list[tuple[str, bool]] = []  # (char, unquoted literal)
        self.runtime = False
        self.splits = False
        self.danger: str | None = None
        self.tilde = False

    def flag(self, reason: str) -> None:
        if self.danger is None:
            self.danger = reason

    def run(self, *, assignment_like: bool = False) -> None:
        text = self.text
        index = self.tilde_prefix(0)
        prefix = _ASSIGNMENT_LIKE.match(text) if assignment_like else None
        if prefix is not None:  # bash expands ~ after `=` and `:` in assignment-like words
            self.chars.extend((char, True) for char in text[: prefix.end()])
            self.assignment = True
            index = self.tilde_prefix(prefix.end())
        while index < len(text):
            char = text[index]
            if char == "\\":
                if index + 1 >= len(text):
                    self.chars.append(("\\", False))
                    index += 1
                elif text[index + 1] == "\n":
                    index += 2
                else:
                    self.chars.append((text[index + 1], False))
                    index += 2
            elif char == "'":
                end = text.find("'", index + 1)
                if end < 0:
                    raise _Unreadable
                self.chars.extend((c, False) for c in text[index + 1 : end])
                index = end + 1
            elif char == '"':
                index = self.double_quoted(index + 1)
            elif char == "$":
                index = self.dollar(index, quoted=False)
            elif char == "`":
                index = self.backtick(index, quoted=False)
            elif char in "<>" and text[index + 1 : index + 2] == "(":
                self.runtime = True
                self.chars.append(("\x00", False))
                index = _skip_group(text, index + 2, "(", ")")
            elif self.assignment and char == ":" and text[index + 1 : index + 2] == "~":
                self.chars.append((":", True))
                index = self.tilde_prefix(index + 1)
            else:
                self.chars.append((char, True))
                index += 1

    def tilde_prefix(self, index: int) -> int:
        text = self.text
        if not text.startswith("~", index):
            return index
        end = index + 1
        stops = "/:" if self.assignment else "/"
        while end < len(text) and text[end] not in stops:
            end += 1
        prefix = text[index + 1 : end]
        if prefix == "":
            self.tilde = True
            self.chars.append(("~", False))
            return end
        if any(c in prefix for c in "'\"\\$`"):
            return index  # a quoted tilde-prefix does not expand: read it as text
        self.runtime = True  # ~user, ~+, ~-, ~N
        self.chars.append(("\x00", False))
        return end

    def double_quoted(self, index: int) -> int:
        text = self.text
        while index < len(text):
            char = text[index]
            if char == '"':
                return index + 1
            if char == "\\" and index + 1 < len(text) and text[index + 1] in '$`"\\\n':
                if text[index + 1] != "\n":
                    self.chars.append((text[index + 1], False))
                index += 2
            elif char == "$":
                index = self.dollar(index, quoted=True)
            elif char == "`":
                index = self.backtick(index, quoted=True)
            else:
                self.chars.append((char, False))
                index += 1
        raise _Unreadable

    def dollar(self, index: int, *, quoted: bool) -> int:
        text = self.text
        following = text[index + 1 : index + 2]
        if following == "'" and not quoted:
            self.runtime = True  # ANSI-C quoting: not decoded here, so not known
            self.chars.append(("\x00", False))
            end = index + 2
            while end < len(text) and text[end] != "'":
                end += 2 if text[end] == "\\" else 1
            if end >= len(text):
                raise _Unreadable
            return end + 1
        if following == '"' and not quoted:
            self.runtime = True  # locale translation: the catalogue decides the text
            self.chars.append(("\x00", False))
            return self.double_quoted(index + 2)
        if following == "{":
            end = _skip_group(text, index + 2, "{", "}")
            reason = parameter_danger(text[index + 2 : end - 1])
            if reason is not None:
                self.flag(reason)
            self.expansion(quoted)
            return end
        if following == "(":
            if text[index + 2 : index + 3] == "(":
                self.flag("arithmetic expansion $((…)) evaluates its text")
            self.expansion(quoted)
            return _skip_group(text, index + 2, "(", ")")
        if following == "[":
            self.flag("arithmetic expansion $[…] evaluates its text")
            self.expansion(quoted)
            return _skip_group(text, index + 2, "[", "]")
        if following and (following.isalpha() or following == "_"):
            end = index + 1
            while end < len(text) and (text[end].isalnum() or text[end] == "_"):
                end += 1
            self.expansion(quoted)
            return end
        if following and following in _SPECIAL_AFTER_DOLLAR:
            self.expansion(quoted)
            return index + 2
        self.chars.append(("$", not quoted))
        return index + 1

    def backtick(self, index: int, *, quoted: bool) -> int:
        text = self.text
        end = index + 1
        while end < len(text) and text[end] != "`":
            end += 2 if text[end] == "\\" else 1
        if end >= len(text):
            raise _Unreadable
        self.expansion(quoted)
        return end + 1

    def expansion(self, quoted: bool) -> None:
        self.runtime = True
        self.splits = self.splits or not quoted
        self.chars.append(("\x00", False))

    def pattern(self) -> bool:
        chars = self.chars
        for index, (char, bare) in enumerate(chars):
            if not bare:
                continue
            following = chars[index + 1][0] if index + 1 < len(chars) else ""
            if char in "*?":
                return True
            if char == "[" and any(c == "]" for c, _ in chars[index + 1 :]):
                return True
            if char in "+@!" and following == "(":
                return True
            if char == "{" and _brace(chars, index):
                return True
        return False


def _brace(chars: list[tuple[str, bool]], start: int) -> bool:
    depth = 0
    for index in range(start, len(chars)):
        char, bare = chars[index]
        if not bare:
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return False
        elif (char == "," and depth >= 1) or (
            char == "." and index + 1 < len(chars) and chars[index + 1] == (".", True)
        ):
            return True
    return False


def _skip_group(text: str, index: int, opening: str, closing: str) -> int:
    """Index just past the ``closing`` that matches an already-consumed ``opening``."""
    depth = 1
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "'":
            end = text.find("'", index + 1)
            if end < 0:
                raise _Unreadable
            index = end + 1
            continue
        if char == '"':
            index = _skip_double(text, index + 1)
            continue
        if char == "`":
            end = index + 1
            while end < len(text) and text[end] != "`":
                end += 2 if text[end] == "\\" else 1
            if end >= len(text):
                raise _Unreadable
            index = end + 1
            continue
        if char == "$" and text[index + 1 : index + 2] in ("(", "{", "["):
            inner = text[index + 1]
            index = _skip_group(text, index + 2, inner, {"(": ")", "{": "}", "[": "]"}[inner])
            continue
        if char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    raise _Unreadable


def _skip_double(text: str, index: int) -> int:
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
        elif char == '"':
            return index + 1
        elif char == "$" and text[index + 1 : index + 2] in ("(", "{", "["):
            inner = text[index + 1]
            index = _skip_group(text, index + 2, inner, {"(": ")", "{": "}", "[": "]"}[inner])
        elif char == "`":
            end = index + 1
            while end < len(text) and text[end] != "`":
                end += 2 if text[end] == "\\" else 1
            index = end + 1
        else:
            index += 1
    raise _Unreadable


def parameter_danger(body: str) -> str | None:
    """Why the parameter expansion ``${body}`` can run or evaluate code, or None."""
    if any(mark in body for mark in ("$(", "`", "$[")):
        return "code inside ${…} is not parsed"
    if body.startswith("!"):
        rest = body[1:]
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*([*@]|\[[*@]\])", rest):
            return None  # ${!prefix*}, ${!name[@]}: names and keys, nothing is evaluated
        return "indirect expansion ${!…} evaluates a name held in a variable"
    text = body[1:] if body.startswith("#") and len(body) > 1 else body
    match = _PARAM_NAME.match(text)
    if match is None:
        return "a ${…} form this reader does not know"
    name = match.group(0)
    rest = text[match.end() :]
    if rest.startswith("["):
        close = rest.find("]")
        if close < 0:
            return "an unterminated subscript"
        if not _LITERAL_SUBSCRIPT.match(rest[1:close]):
            return "an array subscript is evaluated as arithmetic"
        rest = rest[close + 1 :]
    if not rest:
        return None
    operand = ""
    assigns = False
    if rest[0] == "@":
        if len(rest) == 2 and rest[1] in _SAFE_TRANSFORMS:
            return None
        return "${…@P} and unknown transformations expand prompts or evaluate"
    if rest.startswith(":") and len(rest) > 1 and rest[1] in "-=+?":
        operand, assigns = rest[2:], rest[1] == "="
    elif rest.startswith(":"):
        if _LITERAL_SUBSTRING.match(rest):
            return None
        return "a substring offset is evaluated as arithmetic"
    elif rest[0] in "-=+?":
        operand, assigns = rest[1:], rest[0] == "="
    elif rest[0] in "#%/^,":
        operand = rest
    else:
        return "a ${…} form this reader does not know"
    if assigns and is_sensitive_variable(name):
        return f"${{{name}=…}} assigns {name}"
    for start, end in dollar_spans(operand):
        if operand[start + 1 : start + 2] == "{":
            reason = parameter_danger(operand[start + 2 : end - 1])
            if reason is not None:
                return reason
    return None


def dollar_spans(text: str) -> list[tuple[int, int]]:
    """Spans of the ``${…}``, ``$(…)``, ``$[…]`` and backtick groups in double-quote-like
    text (a here-document body, a ``${…}`` operand).

    Raises:
        ValueError: When a group is not terminated.
    """
    spans: list[tuple[int, int]] = []
    index = 0
    try:
        while index < len(text):
            char = text[index]
            if char == "\\":
                index += 2
            elif char == "$" and text[index + 1 : index + 2] in ("(", "{", "["):
                inner = text[index + 1]
                end = _skip_group(text, index + 2, inner, {"(": ")", "{": "}", "[": "]"}[inner])
                spans.append((index, end))
                index = end
            elif char == "`":
                end = index + 1
                while end < len(text) and text[end] != "`":
                    end += 2 if text[end] == "\\" else 1
                if end >= len(text):
                    raise _Unreadable
                spans.append((index, end + 1))
                index = end + 1
            else:
                index += 1
    except _Unreadable as error:
        raise ValueError("unterminated group") from error
    return spans


def scan_word(raw: str, *, parsed: str | None = None, assignment: bool = False) -> WordFacts:
    """Read one word from its source text.

    Args:
        raw: The word exactly as written in the line (quotes included).
        parsed: bashlex's quote-removed text of the word; a word whose text read here differs
            is not certain.
        assignment: The word is an assignment value (``~`` also expands after ``:``/``=``).

    Returns:
        The word's facts.
    """
    scanner = _Scanner(raw, assignment=assignment)
    try:
        scanner.run(assignment_like=not assignment)
    except _Unreadable:
        return WordFacts(
            literal=raw, raw=raw, runtime=True, danger="a word this reader cannot follow"
        )
    literal = "".join(char for char, _ in scanner.chars)
    pattern = scanner.tilde or scanner.pattern()
    runtime = scanner.runtime
    if not runtime and parsed is not None and literal != parsed:
        runtime = True  # bashlex and bash may disagree about this word
    return WordFacts(
        literal=literal,
        raw=raw,
        runtime=runtime,
        pattern=pattern,
        splits=scanner.splits,
        danger=scanner.danger,
        tilde=scanner.tilde,
    )
