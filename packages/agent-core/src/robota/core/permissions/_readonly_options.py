"""Per-command option allowlists for the read-only ("inspect") classification (seed 000,
"Permission System": a command tool whose call runs only built-in read-only commands, naming
nothing outside the workspace once symlinks are followed, is decided as inspect).

Every option a command line uses must be on that command's own allowlist, spelled exactly:

* short flags without a value (``-l``), combined when the program combines them (``-la`` is
  ``-l -a``); a short option taking a value takes the rest of the word (``-n5``) or the next
  word (``-n 5``), exactly as ``getopt`` does;
* long options by their exact name (``--recursive``), with ``=value`` or the next word as value
  when they take one; an optional value only in the ``--name=value`` form (as ``getopt_long``).
  GNU abbreviations (``--recur``) are **not** accepted: an abbreviation could name a dangerous
  option on another version of the program;
* ``--`` ends options; words after it are operands. Options after operands are still options
  (GNU permutation; the line is refused when ``POSIXLY_CORRECT`` is set, see ``_readonly``).

Each option value and each operand has a kind: :attr:`Kind.PATH` words name files and must
resolve inside the workspace (checked by ``_readonly``), :attr:`Kind.TEXT` words are patterns,
numbers, formats. Options that write, run programs, follow symlinks out of a walk, or read a
list of file names from a file are simply absent from the lists:

=========== ===============================================================================
command     not allowlisted (examples)
=========== ===============================================================================
grep        ``-R``/``--dereference-recursive`` (follows symlinks), abbreviations
rg          ``--pre``, ``--pre-glob`` (run a program), ``-z``/``--search-zip`` (run
            decompressors), ``-L``/``--follow``, ``--hostname-bin``; ``RIPGREP_CONFIG_PATH``
            set without ``--no-config`` refuses (the config file could add ``--pre``)
find        ``-exec*``, ``-ok*``, ``-delete``, ``-fprint*``, ``-fls``, ``-L``, ``-H``,
            ``-follow``, ``-files0-from``, ``-D``, ``-O``; unknown primaries
tail        ``-f``, ``-F``, ``--follow``, ``--pid``, ``--retry``, ``-s``, ``-5f`` and ``+5f``
            (obsolete forms of follow)
file        ``-C``/``--compile`` (writes), ``-z``/``-Z`` (runs decompressors), ``-p``
            (sets access times), ``-S`` (no seccomp sandbox), ``-f`` (names from a file)
tree        ``-o`` (writes), ``-R`` (writes 00Tree.html), ``-H``, ``-l`` (follows links),
            ``--fromfile``, ``--gitignore``, ``--hintro``/``--houtro``
du          ``-L``, ``-D``/``-H`` (dereference), ``--files0-from``
diff        ``-l``/``--paginate`` (runs ``pr``), ``-D``/``--ifdef``; a directory operand needs
            ``--no-dereference`` (GNU diff follows symlinks inside compared directories,
            measured)
ls          ``-L``, ``-H``, ``--dereference*``, ``--hyperlink``
wc          ``--files0-from``
git         see :data:`GIT_SUBCOMMANDS`: only ``status``, ``log``, ``diff``, ``show``,
            ``rev-parse``, ``branch`` (listing); no ``-c``, ``-C``, ``--git-dir``,
            ``--work-tree``, ``--exec-path``, ``-p``/``--paginate``, ``--output``,
            ``--ext-diff``, ``--textconv``, ``--show-signature``, ``-O``, ``--submodule``,
            ``--format``/``--pretty`` holding a ``%G`` (signature) placeholder
printf      not read-only any more (``printf -v`` assigns, with arithmetic in subscripts)
=========== ===============================================================================

Recursive walkers allowed here do not follow symlinks met during the walk (measured with a
link to an outside file and one to an outside directory in a temp directory, GNU grep 3.8,
findutils 4.9, coreutils 9.1, ripgrep 13, tree 2.1: ``grep -r``, ``find`` (``-P`` is the
default), ``du`` (``-P``), ``ls -R``, ``rg`` and ``tree`` list or skip the links; ``grep -R``,
``rg -L`` and ``tree -l`` read through them, and are refused). A symlink given on the command
line is resolved by the path check itself. tree 2.1 takes ``-L`` only with a separate value
(``-L2``: "Missing argument"), hence ``attached=False``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum

__all__ = [
    "COMMANDS",
    "FIND_PRIMARIES",
    "GIT_GLOBAL_FLAGS",
    "GIT_SUBCOMMANDS",
    "CommandPlan",
    "CommandSpec",
    "Kind",
    "OptionSpec",
    "ParsedArgs",
    "command_plan",
    "parse_options",
]


def _names(text: str) -> frozenset[str]:
    """The space-separated names of ``text``."""
    return frozenset(text.split())


class Kind(Enum):
    """What an option value or operand is."""

    TEXT = "text"
    """A pattern, number, format or name that is not opened as a file."""
    PATH = "path"
    """A file the program opens: it must resolve inside the workspace."""


def _no_signature_placeholder(value: str) -> bool:
    return "%G" not in value  # %G?, %GS, %GK… make git run gpg to verify a signature


@dataclass(frozen=True, kw_only=True, slots=True)
class OptionSpec:
    """The options one program (or git subcommand) accepts, by exact spelling.

    Attributes:
        flags: Options without a value, spelled with dashes (``"-l"``, ``"--all"``); a
            multi-letter short word listed here (``"-vv"``) matches as a whole.
        values: Options that require a value, and the value's kind.
        optional: Options whose value is optional: only ``-xVALUE`` (attached) or
            ``--name=VALUE`` give one; the next word is never taken.
        operands: Kind of the non-option words; None: the program takes none.
        clusters: Short flags may be combined in one word (``-la``).
        attached: A short option's value may be attached (``-n5``). When False, a short option
            with a value must end its word and take the next word (tree's own parser).
        separate: Which value options may take their value from the next word (None: all).
        numeric: ``-NUM`` is an option (``head -5``, ``grep -3``, ``git log -5``).
        end_of_options: ``--`` ends the options. When False a ``--`` word refuses (tree: not
            sure every version honours it, and then the words after it would be options).
        checks: Extra validation of some options' values (True: accepted).
    """

    flags: frozenset[str] = frozenset()
    values: Mapping[str, Kind] = field(default_factory=dict[str, Kind])
    optional: frozenset[str] = frozenset()
    operands: Kind | None = Kind.PATH
    clusters: bool = True
    attached: bool = True
    separate: frozenset[str] | None = None
    numeric: bool = False
    end_of_options: bool = True
    checks: Mapping[str, Callable[[str], bool]] = field(
        default_factory=dict[str, Callable[[str], bool]]
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class ParsedArgs:
    """A command's words split by :func:`parse_options`.

    Attributes:
        options: ``(option, value)`` in order; value None for a flag.
        operands: The non-option words in order.
    """

    options: tuple[tuple[str, str | None], ...]
    operands: tuple[str, ...]

    def has(self, *names: str) -> bool:
        """True when any of ``names`` was given."""
        return any(option in names for option, _ in self.options)


def parse_options(spec: OptionSpec, args: Iterable[str]) -> ParsedArgs | None:
    """Split ``args`` into options and operands by ``spec``; None when any option is not on
    the allowlist, is malformed, lacks its value or fails its check.

    Args:
        spec: The program's allowlist.
        args: The words after the program name.
    """
    words = list(args)
    options: list[tuple[str, str | None]] = []
    operands: list[str] = []
    index = 0
    ended = False
    while index < len(words):
        word = words[index]
        index += 1
        if ended or word == "-" or not word.startswith("-"):
            operands.append(word)
            continue
        if word == "--":
            if not spec.end_of_options:
                return None
            ended = True
            continue
        if word in spec.flags:
            options.append((word, None))
            continue
        if spec.numeric and word[1:].isdigit() and word[1:].isascii():
            options.append(("-NUM", word[1:]))
            continue
        if word.startswith("--"):
            name, equals, value = word.partition("=")
            if name in spec.optional:
                options.append((name, value if equals else None))
            elif name in spec.values:
                if not equals:
                    if not _may_separate(spec, name) or index >= len(words):
                        return None
                    value = words[index]
                    index += 1
                options.append((name, value))
            else:
                return None
            continue
        taken = _short(spec, word, words, index, options)
        if taken is None:
            return None
        index += taken
    if operands and spec.operands is None:
        return None
    for option, value in options:
        check = spec.checks.get(option)
        if check is not None and value is not None and not check(value):
            return None
    return ParsedArgs(options=tuple(options), operands=tuple(operands))


def _may_separate(spec: OptionSpec, name: str) -> bool:
    return spec.separate is None or name in spec.separate


def _short(
    spec: OptionSpec,
    word: str,
    words: list[str],
    index: int,
    options: list[tuple[str, str | None]],
) -> int | None:
    """Parse one short-option word; return how many following words it consumed."""
    letters = word[1:]
    if not spec.clusters and len(letters) > 1:
        name = word[:2]
        if name in spec.values and spec.attached:
            options.append((name, letters[1:]))
            return 0
        if name in spec.optional:
            options.append((name, letters[1:]))
            return 0
        return None
    position = 0
    while position < len(letters):
        name = "-" + letters[position]
        rest = letters[position + 1 :]
        if name in spec.flags:
            options.append((name, None))
            position += 1
            continue
        if name in spec.optional:
            options.append((name, rest or None))
            return 0
        if name in spec.values:
            if rest:
                if not spec.attached:
                    return None
                options.append((name, rest))
                return 0
            if not _may_separate(spec, name) or index >= len(words):
                return None
            options.append((name, words[index]))
            return 1
        return None
    return 0


def _spec(
    *,
    short: str = "",
    long: str = "",
    values: Mapping[str, Kind] | None = None,
    optional: str = "",
    operands: Kind | None = Kind.PATH,
    clusters: bool = True,
    attached: bool = True,
    separate: Iterable[str] | None = None,
    numeric: bool = False,
    end_of_options: bool = True,
    checks: Mapping[str, Callable[[str], bool]] | None = None,
    extra_flags: Iterable[str] = (),
) -> OptionSpec:
    """Build a spec: ``short`` letters are flags, ``long`` is space-separated flag names,
    ``values`` keys and ``optional`` names are spelled with their dashes."""
    flags = {f"-{letter}" for letter in short} | {f"--{name}" for name in long.split()}
    return OptionSpec(
        flags=frozenset(flags | set(extra_flags)),
        values=dict(values or {}),
        optional=frozenset(optional.split()),
        operands=operands,
        clusters=clusters,
        attached=attached,
        separate=frozenset(separate) if separate is not None else None,
        numeric=numeric,
        end_of_options=end_of_options,
        checks=dict(checks or {}),
    )


def _text(*names: str) -> dict[str, Kind]:
    return dict.fromkeys(names, Kind.TEXT)


@dataclass(frozen=True, kw_only=True, slots=True)
class CommandSpec:
    """One allowlisted command.

    Attributes:
        options: Its option allowlist.
        reads_files: False for commands that open no file named on the line (``echo``,
            ``pwd``, ``which``…): their words are not path-checked.
        pattern_operand: The first operand is a pattern, not a file, unless one of
            ``pattern_options`` was given (``grep PATTERN FILE…``).
        pattern_options: Options that supply the pattern (``-e``, ``-f``) or mean there is
            none (``rg --files``): then every operand is a file.
        directories_need: An option without which no path may be a directory (diff follows
            symlinks inside the directories it compares unless ``--no-dereference``).
        environment: Environment variables whose presence refuses the command, each with an
            option that makes the variable harmless (None: nothing does).
        also_runs: Other programs it runs by bare name through ``PATH`` (``egrep`` runs
            ``grep``).
        operand_prefixes: Operands starting with one of these refuse (GNU ``tail`` reads a
            first operand ``+5f`` as the obsolete option "from line 5, follow").
    """

    options: OptionSpec
    reads_files: bool = True
    pattern_operand: bool = False
    pattern_options: frozenset[str] = frozenset()
    directories_need: str | None = None
    environment: Mapping[str, str | None] = field(default_factory=dict[str, str | None])
    also_runs: tuple[str, ...] = ()
    operand_prefixes: tuple[str, ...] = ()


_GREP = _spec(
    short="EFGPiyvwxclLoqsbHhnTZzaIrUV",
    long=(
        "extended-regexp fixed-strings basic-regexp perl-regexp ignore-case no-ignore-case "
        "invert-match word-regexp line-regexp count files-with-matches files-without-match "
        "only-matching quiet silent no-messages byte-offset with-filename no-filename "
        "line-number initial-tab null null-data text recursive line-buffered binary version"
    ),
    values={
        **_text("-A", "-B", "-C", "-m", "-e", "-d", "-D"),
        **_text("--after-context", "--before-context", "--context", "--max-count", "--regexp"),
        **_text("--include", "--exclude", "--exclude-dir", "--label", "--binary-files"),
        **_text("--devices", "--directories"),
        "-f": Kind.PATH,
        "--file": Kind.PATH,
        "--exclude-from": Kind.PATH,
    },
    optional="--color --colour",
    numeric=True,
)
_GREP_COMMAND = CommandSpec(
    options=_GREP,
    pattern_operand=True,
    pattern_options=frozenset({"-e", "-f", "--regexp", "--file"}),
    environment={"GREP_OPTIONS": None},
)

_RG = _spec(
    short="iSsFwxvclonNHIbpUPuaq0.",
    long=(
        "ignore-case case-sensitive smart-case fixed-strings no-fixed-strings word-regexp "
        "line-regexp invert-match no-invert-match count count-matches files-with-matches "
        "files-without-match only-matching line-number no-line-number with-filename "
        "no-filename no-heading heading column no-column byte-offset no-byte-offset pretty "
        "vimgrep json no-json multiline no-multiline multiline-dotall no-multiline-dotall "
        "pcre2 no-pcre2 hidden no-hidden no-ignore ignore no-ignore-vcs ignore-vcs "
        "no-ignore-parent ignore-parent no-ignore-dot ignore-dot no-ignore-global "
        "ignore-global no-ignore-exclude ignore-exclude no-ignore-files ignore-files "
        "no-ignore-messages ignore-messages unrestricted no-messages messages quiet stats "
        "no-stats trim no-trim text no-text binary no-binary files null null-data crlf "
        "no-crlf no-unicode unicode one-file-system no-one-file-system passthru passthrough "
        "include-zero no-include-zero no-require-git require-git line-buffered "
        "no-line-buffered block-buffered no-block-buffered sort-files no-sort-files "
        "glob-case-insensitive no-glob-case-insensitive ignore-file-case-insensitive "
        "no-ignore-file-case-insensitive no-config no-follow no-pre no-search-zip "
        "max-columns-preview no-max-columns-preview mmap no-mmap auto-hybrid-regex "
        "no-auto-hybrid-regex"
    ),
    values={
        **_text("-A", "-B", "-C", "-m", "-M", "-d", "-j", "-g", "-e", "-t", "-T", "-r", "-E"),
        **_text("--after-context", "--before-context", "--context", "--max-count"),
        **_text("--max-columns", "--max-depth", "--maxdepth", "--max-filesize", "--threads"),
        **_text("--glob", "--iglob", "--regexp", "--type", "--type-not", "--type-add"),
        **_text("--type-clear", "--replace", "--encoding", "--engine", "--sort", "--sortr"),
        **_text("--color", "--colors", "--path-separator", "--context-separator"),
        **_text("--field-match-separator", "--field-context-separator", "--dfa-size-limit"),
        **_text("--regex-size-limit"),
        "-f": Kind.PATH,
        "--file": Kind.PATH,
        "--ignore-file": Kind.PATH,
    },
)
_RG_COMMAND = CommandSpec(
    options=_RG,
    pattern_operand=True,
    pattern_options=frozenset({"-e", "-f", "--regexp", "--file", "--files"}),
    environment={"RIPGREP_CONFIG_PATH": "--no-config"},
)

_LS = _spec(
    short="aAbBcCdDfFgGhiklmnNopqQrRsStuUvxXZ1",
    long=(
        "all almost-all author escape ignore-backups directory dired file-type full-time "
        "group-directories-first no-group human-readable si inode kibibytes literal "
        "numeric-uid-gid hide-control-chars show-control-chars quote-name reverse recursive "
        "size context zero"
    ),
    values={
        **_text("-I", "-T", "-w", "--block-size", "--format", "--hide", "--ignore"),
        **_text("--indicator-style", "--quoting-style", "--sort", "--time", "--time-style"),
        **_text("--tabsize", "--width"),
    },
    optional="--color --classify",
)
_CAT = _spec(
    short="AbeEnstTuv",
    long=("show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting"),
)
_HEAD_TAIL = _spec(
    short="qvz",
    long="quiet silent verbose zero-terminated",
    values=_text("-c", "-n", "--bytes", "--lines"),
    numeric=True,
)
_WC = _spec(
    short="cmlLw",
    long="bytes chars lines max-line-length words",
    values=_text("--total"),
)
_FILE = _spec(
    short="bcdEhiklLnNrs0",
    long=(
        "brief checking-printout debug no-dereference mime mime-type mime-encoding "
        "keep-going list dereference no-buffer no-pad raw special-files print0 extension "
        "apple"
    ),
    values={
        **_text("-e", "-F", "-P", "--exclude", "--separator", "--parameter"),
        "-m": Kind.PATH,
        "--magic-file": Kind.PATH,
    },
)
_STAT = _spec(
    short="Lft",
    long="dereference file-system terse",
    values=_text("-c", "--format", "--printf", "--cached"),
)
_DU = _spec(
    short="0abchklmsSxP",
    long=(
        "null all apparent-size bytes total human-readable inodes count-links no-dereference "
        "separate-dirs si summarize one-file-system"
    ),
    values={
        **_text("-B", "-d", "-t", "--block-size", "--max-depth", "--threshold", "--exclude"),
        **_text("--time-style"),
        "-X": Kind.PATH,
        "--exclude-from": Kind.PATH,
    },
    optional="--time",
)
_TREE = _spec(
    short="adfiqNQpugshDFvtcUrCnASxJX",
    long=("inodes device noreport dirsfirst filesfirst ignore-case matchdirs prune si du version"),
    values=_text("-L", "-P", "-I", "--filelimit", "--charset", "--sort", "--timefmt"),
    attached=False,
    end_of_options=False,
)
_DIFF = _spec(
    short="abBcdeEfinNpqrstTuwyZ",
    long=(
        "normal brief report-identical-files side-by-side left-column suppress-common-lines "
        "show-c-function minimal speed-large-files new-file unidirectional-new-file recursive "
        "no-dereference ignore-case ignore-file-name-case no-ignore-file-name-case "
        "ignore-tab-expansion ignore-trailing-space ignore-space-change ignore-all-space "
        "ignore-blank-lines strip-trailing-cr text expand-tabs initial-tab "
        "suppress-blank-empty ed rcs"
    ),
    values={
        **_text("-C", "-U", "-W", "-x", "-I", "-F", "-S", "--label", "--width", "--exclude"),
        **_text("--ignore-matching-lines", "--show-function-line", "--starting-file"),
        **_text("--tabsize", "--horizon-lines", "--line-format", "--old-line-format"),
        **_text("--new-line-format", "--unchanged-line-format", "--old-group-format"),
        **_text("--new-group-format", "--changed-group-format", "--unchanged-group-format"),
        **_text("--palette"),
        "-X": Kind.PATH,
        "--exclude-from": Kind.PATH,
        "--from-file": Kind.PATH,
        "--to-file": Kind.PATH,
    },
    optional="--unified --context --color",
)
_CMP = _spec(
    short="bls",
    long="print-bytes verbose quiet silent",
    values=_text("-i", "-n", "--ignore-initial", "--bytes"),
)
_REALPATH = _spec(
    short="eLmPqsz",
    long=(
        "canonicalize-existing canonicalize-missing logical physical quiet strip no-symlinks zero"
    ),
    values={"--relative-to": Kind.PATH, "--relative-base": Kind.PATH},
)
_READLINK = _spec(
    short="femnqsvz",
    long=(
        "canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent "
        "verbose zero"
    ),
)


COMMANDS: Mapping[str, CommandSpec] = {
    "ls": CommandSpec(options=_LS),
    "cat": CommandSpec(options=_CAT),
    "head": CommandSpec(options=_HEAD_TAIL),
    "tail": CommandSpec(options=_HEAD_TAIL, operand_prefixes=("+",)),
    "wc": CommandSpec(options=_WC),
    "grep": _GREP_COMMAND,
    "egrep": CommandSpec(
        options=_GREP,
        pattern_operand=True,
        pattern_options=_GREP_COMMAND.pattern_options,
        environment=_GREP_COMMAND.environment,
        also_runs=("grep",),
    ),
    "fgrep": CommandSpec(
        options=_GREP,
        pattern_operand=True,
        pattern_options=_GREP_COMMAND.pattern_options,
        environment=_GREP_COMMAND.environment,
        also_runs=("grep",),
    ),
    "rg": _RG_COMMAND,
    "file": CommandSpec(options=_FILE),
    "stat": CommandSpec(options=_STAT),
    "du": CommandSpec(options=_DU),
    "tree": CommandSpec(options=_TREE),
    "diff": CommandSpec(options=_DIFF, directories_need="--no-dereference"),
    "cmp": CommandSpec(options=_CMP),
    "realpath": CommandSpec(options=_REALPATH),
    "readlink": CommandSpec(options=_READLINK),
    "pwd": CommandSpec(options=_spec(short="LP", long="logical physical", operands=None)),
    "echo": CommandSpec(options=_spec(short="neE", operands=Kind.TEXT), reads_files=False),
    "true": CommandSpec(options=_spec(operands=Kind.TEXT), reads_files=False),
    "false": CommandSpec(options=_spec(operands=Kind.TEXT), reads_files=False),
    "which": CommandSpec(options=_spec(short="a", operands=Kind.TEXT), reads_files=False),
    "basename": CommandSpec(
        options=_spec(
            short="az",
            long="multiple zero",
            values=_text("-s", "--suffix"),
            operands=Kind.TEXT,
        ),
        reads_files=False,
    ),
    "dirname": CommandSpec(
        options=_spec(short="z", long="zero", operands=Kind.TEXT), reads_files=False
    ),
    "whoami": CommandSpec(options=_spec(operands=None), reads_files=False),
    "id": CommandSpec(
        options=_spec(
            short="agGnruzZ",
            long="context group groups name real user zero",
            operands=Kind.TEXT,
        ),
        reads_files=False,
    ),
    "uname": CommandSpec(
        options=_spec(
            short="asnrvmpio",
            long=(
                "all kernel-name nodename kernel-release kernel-version machine processor "
                "hardware-platform operating-system"
            ),
            operands=None,
        ),
        reads_files=False,
    ),
}
"""The read-only commands by bare name (``find`` and ``git`` are parsed on their own)."""

BUILTINS = frozenset({"echo", "pwd", "true", "false"})
"""Names bash runs as builtins whatever ``PATH`` holds."""


# --- find -------------------------------------------------------------------------------------

FIND_PRIMARIES: Mapping[str, Kind | None] = {
    **dict.fromkeys(
        _names(
            "-print -print0 -prune -quit -true -false -empty -o -or -a -and ! -not ( ) , "
            "-depth -mount -xdev -noleaf -readable -writable -executable -nouser -nogroup -ls "
            "-daystart -ignore_readdir_race -noignore_readdir_race"
        )
    ),
    **dict.fromkeys(
        _names(
            "-name -iname -path -ipath -wholename -iwholename -lname -ilname -regex -iregex "
            "-regextype -type -maxdepth -mindepth -size -mtime -mmin -atime -amin -ctime -cmin "
            "-perm -user -group -uid -gid -links -inum -used -printf -fstype -newermt -newerat "
            "-newerct"
        ),
        Kind.TEXT,
    ),
    **dict.fromkeys(_names("-newer -anewer -cnewer -samefile"), Kind.PATH),
}
"""``find`` expression words: None for a word without argument, else the argument's kind.

Absent on purpose: ``-exec``, ``-execdir``, ``-ok``, ``-okdir`` (run programs), ``-delete``,
``-fprint``, ``-fprint0``, ``-fprintf``, ``-fls`` (write), ``-follow`` (follows symlinks),
``-files0-from`` (names from a file), ``-xtype``."""

_FIND_EXPRESSION_START = frozenset({"(", ")", "!", ","})


def _find_plan(args: tuple[str, ...]) -> CommandPlan | None:
    index = 0
    while index < len(args) and args[index] == "-P":
        index += 1  # -P (never follow symlinks) is the default; -H, -L, -D, -O are refused
    paths: list[str] = []
    while index < len(args):
        word = args[index]
        if word.startswith("-") or word in _FIND_EXPRESSION_START:
            break
        paths.append(word)
        index += 1
    while index < len(args):
        word = args[index]
        index += 1
        if word not in FIND_PRIMARIES:
            return None
        kind = FIND_PRIMARIES[word]
        if kind is None:
            continue
        if index >= len(args):
            return None
        if kind is Kind.PATH:
            paths.append(args[index])
        index += 1
    return CommandPlan(paths=tuple(paths))


# --- git --------------------------------------------------------------------------------------

GIT_GLOBAL_FLAGS = frozenset(
    {"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects"}
)
"""Options allowed between ``git`` and its subcommand. Absent: ``-c``, ``-C``, ``--git-dir``,
``--work-tree``, ``--namespace``, ``--exec-path``, ``--config-env``, ``-p``/``--paginate``."""

_DIFF_FLAGS = (
    "-p -u --patch -s --no-patch --raw --patch-with-raw --patch-with-stat --numstat "
    "--shortstat --summary --name-only --name-status --compact-summary -z --minimal "
    "--patience --histogram --no-renames --rename-empty --no-rename-empty --check "
    "--full-index --binary -R --no-prefix --default-prefix -a --text --ignore-cr-at-eol "
    "--ignore-space-at-eol -b --ignore-space-change -w --ignore-all-space "
    "--ignore-blank-lines --indent-heuristic --no-indent-heuristic -W --function-context "
    "--exit-code --quiet --no-color --no-textconv --no-ext-diff --no-relative "
    "--irreversible-delete -D --no-color-moved --no-color-moved-ws --cumulative "
    "--ita-invisible-in-index --ita-visible-in-index --no-abbrev"
)
_DIFF_OPTIONAL = (
    "--stat --dirstat --color --word-diff --color-words --abbrev --relative --find-renames "
    "--find-copies --break-rewrites --color-moved --color-moved-ws --unified "
    "--ignore-submodules -M -C -B -U"
)
_DIFF_VALUES = _text(
    "--diff-filter", "--diff-algorithm", "--word-diff-regex", "-S", "-G", "--src-prefix",
    "--dst-prefix", "--line-prefix", "--inter-hunk-context", "--stat-width",
    "--stat-name-width", "--stat-count", "--stat-graph-width", "-l", "-I",
    "--ignore-matching-lines", "--anchored", "--ws-error-highlight", "--output-indicator-new",
    "--output-indicator-old", "--output-indicator-context",
)  # fmt: skip
_LOG_FLAGS = (
    "--oneline --graph --no-decorate --abbrev-commit --no-abbrev-commit --all --reverse "
    "--first-parent --merges --no-merges --boundary --topo-order --date-order "
    "--author-date-order --full-history --simplify-merges --simplify-by-decoration "
    "--ancestry-path --dense --sparse --left-right --left-only --right-only --cherry "
    "--cherry-pick --cherry-mark --no-walk --do-walk --relative-date --parents --children "
    "--follow --full-diff --log-size --source --use-mailmap --mailmap --no-mailmap "
    "--no-use-mailmap -i --regexp-ignore-case -E --extended-regexp -F --fixed-strings "
    "--perl-regexp --basic-regexp --all-match --invert-grep -m -c --cc --dd --remove-empty "
    "--no-min-parents --no-max-parents --show-pulls --expand-tabs --no-expand-tabs "
    "--no-notes --show-linear-break -g --walk-reflogs --not --reflog --single-worktree "
    "--in-commit-order -t --pickaxe-all --pickaxe-regex"
)
_LOG_OPTIONAL = "--decorate --pretty --branches --tags --remotes --notes --show-notes"
_LOG_VALUES = _text(
    "--format", "--date", "--since", "--after", "--until", "--before", "--author",
    "--committer", "--grep", "--max-count", "--skip", "--min-parents", "--max-parents",
    "--decorate-refs", "--decorate-refs-exclude", "--exclude", "--glob", "--diff-merges",
    "--encoding", "--since-as-filter", "-n",
)  # fmt: skip
_FORMAT_CHECKS = {"--format": _no_signature_placeholder, "--pretty": _no_signature_placeholder}


def _git(flags: str, optional: str, values: Mapping[str, Kind], *, numeric: bool) -> OptionSpec:
    # log/diff/show parse each word whole (revision.c, diff.c): no clusters; long values only
    # as --name=value; short values attached (-U3, -Sfoo), except -n which also takes the next
    # word (revision.c handles "-n" "5" itself).
    return OptionSpec(
        flags=frozenset(flags.split()),
        values=dict(values),
        optional=frozenset(optional.split()),
        operands=Kind.PATH,
        clusters=False,
        separate=frozenset({"-n"}),
        numeric=numeric,
        checks=_FORMAT_CHECKS,
    )


GIT_SUBCOMMANDS: Mapping[str, OptionSpec] = {
    "status": OptionSpec(
        flags=_names(
"-s --short -b --branch --show-stash --long -v --verbose -z --null "
                "--no-column --ahead-behind --no-ahead-behind --renames --no-renames"
),
        optional=_names(
"--porcelain --untracked-files -u --ignored --ignore-submodules --column "
                "--find-renames"
),
        separate=frozenset(),
    ),
    "log": _git(f"{_LOG_FLAGS} {_DIFF_FLAGS}", f"{_LOG_OPTIONAL} {_DIFF_OPTIONAL}",
                {**_LOG_VALUES, **_DIFF_VALUES}, numeric=True),
    "show": _git(f"{_LOG_FLAGS} {_DIFF_FLAGS}", f"{_LOG_OPTIONAL} {_DIFF_OPTIONAL}",
                 {**_LOG_VALUES, **_DIFF_VALUES}, numeric=True),
    "diff": _git(f"{_DIFF_FLAGS} --cached --staged --merge-base --no-index -1 -2 -3 --base "
                 "--ours --theirs", _DIFF_OPTIONAL, _DIFF_VALUES, numeric=False),
    "rev-parse": OptionSpec(
        flags=_names(
"--show-toplevel --show-prefix --show-cdup --git-dir --absolute-git-dir "
                "--git-common-dir --is-inside-work-tree --is-inside-git-dir "
                "--is-bare-repository --is-shallow-repository "
                "--show-superproject-working-tree --verify -q --quiet --symbolic "
                "--symbolic-full-name --all --branches --tags --remotes --revs-only --no-revs "
                "--flags --no-flags --not"
),
        optional=frozenset({"--short", "--abbrev-ref", "--show-object-format"}),
        clusters=False,
        separate=frozenset(),
    ),
    "branch": OptionSpec(
        flags=_names(
"-a --all -r --remotes -v --verbose --list --show-current --no-color -i "
                "--ignore-case --no-abbrev --no-column"
),
        values=_text("--sort", "--points-at"),
        optional=_names("--color --abbrev --merged --no-merged --contains --no-contains"),
        separate=frozenset(),
    ),
}  # fmt: skip
"""Git subcommands that only read, with their option allowlists. ``branch`` takes operands
(patterns) only with ``--list`` (otherwise an operand creates a branch)."""


def _git_plan(args: tuple[str, ...]) -> CommandPlan | None:
    index = 0
    while index < len(args) and args[index] in GIT_GLOBAL_FLAGS:
        index += 1
    if index >= len(args) or args[index] not in GIT_SUBCOMMANDS:
        return None
    subcommand = args[index]
    parsed = parse_options(GIT_SUBCOMMANDS[subcommand], args[index + 1 :])
    if parsed is None:
        return None
    if subcommand == "branch" and parsed.operands and not parsed.has("--list"):
        return None
    no_index = parsed.has("--no-index")
    return CommandPlan(
        paths=parsed.operands,
        no_directories=no_index,  # --no-index compares directories through their symlinks
        git_subcommand=subcommand,
        git_no_index=no_index,
    )


# --- plans ------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class CommandPlan:
    """What ``_readonly`` must still check for one accepted command.

    Attributes:
        paths: Words naming files, each to resolve inside the workspace from the call's cwd.
        no_directories: None of ``paths`` may be a directory.
        environment: Environment variables that refuse the command when set.
        runs: Programs looked up through ``PATH`` (the command itself, plus e.g. ``grep``).
        git_subcommand: For git: the subcommand (the repository check applies).
        git_no_index: ``git diff --no-index``.
    """

    paths: tuple[str, ...] = ()
    no_directories: bool = False
    environment: frozenset[str] = frozenset()
    runs: tuple[str, ...] = ()
    git_subcommand: str | None = None
    git_no_index: bool = False


_SAFE_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


def command_plan(name: str, args: tuple[str, ...]) -> CommandPlan | None:
    """Decide a command by its bare name and words; None when it is not read-only.

    Args:
        name: The command name as written (must be a bare allowlisted name, no ``/``).
        args: The words after the name, after quote removal.

    Returns:
        What remains to check (paths, environment, ``PATH`` lookups, the git repository).
    """
    if not _SAFE_NAME.match(name):
        return None
    if name == "find":
        plan = _find_plan(args)
        return _with(plan, runs=("find",))
    if name == "git":
        return _with(_git_plan(args), runs=("git",))
    spec = COMMANDS.get(name)
    if spec is None:
        return None
    parsed = parse_options(spec.options, args)
    if parsed is None:
        return None
    if spec.operand_prefixes and any(
        operand.startswith(spec.operand_prefixes) for operand in parsed.operands
    ):
        return None
    environment = frozenset(
        variable
        for variable, unless in spec.environment.items()
        if unless is None or not parsed.has(unless)
    )
    runs = () if name in BUILTINS else (name, *spec.also_runs)
    if not spec.reads_files:
        return CommandPlan(environment=environment, runs=runs)
    operands = parsed.operands
    if spec.pattern_operand and operands and not parsed.has(*spec.pattern_options):
        operands = operands[1:]
    values = tuple(
        value
        for option, value in parsed.options
        if value is not None and spec.options.values.get(option) is Kind.PATH
    )
    paths = (*values, *(operands if spec.options.operands is Kind.PATH else ()))
    no_directories = spec.directories_need is not None and not parsed.has(spec.directories_need)
    return CommandPlan(
        paths=paths, no_directories=no_directories, environment=environment, runs=runs
    )


def _with(plan: CommandPlan | None, *, runs: tuple[str, ...]) -> CommandPlan | None:
    if plan is None:
        return None
    return CommandPlan(
        paths=plan.paths,
        no_directories=plan.no_directories,
        environment=plan.environment,
        runs=runs,
        git_subcommand=plan.git_subcommand,
        git_no_index=plan.git_no_index,
    )
