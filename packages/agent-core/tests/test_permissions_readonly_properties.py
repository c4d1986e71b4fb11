"""Property tests for the read-only classification (seed 000, "Permission System": the inspect
exception; issue 11).

* A dangerous option (listed here by hand, independently of the allowlists) is never accepted,
  in any spelling: alone, inside a cluster of allowed flags, with an attached or separate
  value, after an operand, or abbreviated.
* A random option word is accepted only when every option it spells is on that command's
  allowlist (getopt reading: flags up to the first option that takes a value).
* Any combination of allowlisted flags is accepted (the tables and the parser agree).
* ``literal_word`` never disagrees with bash: when it returns a word, bash passes exactly that.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from robota.core.permissions._readonly import literal_word
from robota.core.permissions._readonly_options import (
    COMMANDS,
    FIND_PRIMARIES,
    GIT_SUBCOMMANDS,
    OptionSpec,
    command_plan,
)

DANGEROUS: dict[str, list[str]] = {
    "grep": ["-R", "--dereference-recursive"],
    "egrep": ["-R", "--dereference-recursive"],
    "fgrep": ["-R", "--dereference-recursive"],
    "rg": ["--pre", "--pre-glob", "-z", "--search-zip", "-L", "--follow", "--hostname-bin"],
    "tail": ["-f", "-F", "--follow", "--pid", "--retry", "-s"],
    "file": ["-C", "--compile", "-z", "-Z", "--uncompress", "-p", "--preserve-date", "-S",
             "--no-sandbox", "-f", "--files-from"],
    "tree": ["-o", "-R", "-H", "-l", "--fromfile", "-T", "--gitignore"],
    "du": ["-L", "--dereference", "-D", "-H", "--dereference-args", "--files0-from"],
    "ls": ["-L", "--dereference", "-H", "--dereference-command-line",
           "--dereference-command-line-symlink-to-dir", "--hyperlink"],
    "wc": ["--files0-from"],
    "diff": ["-l", "--paginate", "-D", "--ifdef"],
    "stat": [], "cat": [], "head": [], "cmp": [], "realpath": [], "readlink": [],
}  # fmt: skip
GIT_DANGEROUS = ["--output", "--ext-diff", "--textconv", "--show-signature", "-O",
                 "--submodule", "--open-files-in-pager", "--exec", "--upload-pack"]  # fmt: skip
GIT_GLOBAL_DANGEROUS = ["-c", "-C", "--git-dir", "--work-tree", "--exec-path", "-p",
                        "--paginate", "--namespace", "--config-env"]  # fmt: skip
FIND_DANGEROUS = ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0",
                  "-fprintf", "-fls", "-follow", "-L", "-H", "-files0-from"]  # fmt: skip


def _short_flags(spec: OptionSpec) -> list[str]:
    return sorted(flag[1] for flag in spec.flags if len(flag) == 2 and flag[1] != "-")


def _allowlisted(spec: OptionSpec, name: str) -> bool:
    return name in spec.flags or name in spec.values or name in spec.optional


@st.composite
def dangerous_line(draw: st.DrawFn) -> tuple[str, list[str]]:
    name = draw(st.sampled_from(sorted(name for name, bad in DANGEROUS.items() if bad)))
    spec = COMMANDS[name].options
    bad = draw(st.sampled_from(DANGEROUS[name]))
    flags = _short_flags(spec)
    if bad.startswith("--"):
        abbreviation = bad[: draw(st.integers(min_value=4, max_value=len(bad)))]
        assume(not _allowlisted(spec, abbreviation))
        form = draw(st.sampled_from(["plain", "equals", "separate"]))
        words = {"plain": [abbreviation], "equals": [f"{abbreviation}=sh"],
                 "separate": [abbreviation, "sh"]}[form]  # fmt: skip
    else:
        prefix = "".join(draw(st.lists(st.sampled_from(flags), max_size=3))) if flags else ""
        form = draw(st.sampled_from(["plain", "attached", "separate"]))
        words = {"plain": [f"-{prefix}{bad[1]}"], "attached": [f"-{prefix}{bad[1]}sh"],
                 "separate": [f"-{prefix}{bad[1]}", "sh"]}[form]  # fmt: skip
    before = draw(st.lists(st.sampled_from([f"-{flag}" for flag in flags] or ["x"]), max_size=2))
    operand_first = draw(st.booleans())
    args = ["x", *before, *words] if operand_first else [*before, *words, "x"]
    return name, args


@settings(max_examples=600, deadline=None)
@given(case=dangerous_line())
def test_dangerous_options_are_never_accepted(case: tuple[str, list[str]]) -> None:
    name, args = case
    assert command_plan(name, tuple(args)) is None, (name, args)


@settings(max_examples=300, deadline=None)
@given(
    subcommand=st.sampled_from(sorted(GIT_SUBCOMMANDS)),
    bad=st.sampled_from(GIT_DANGEROUS),
    value=st.sampled_from(["", "=x", "x"]),
    safe=st.lists(
        st.sampled_from(["--stat", "-p", "--oneline", "-s", "HEAD", "--", "a"]), max_size=3
    ),
    position=st.integers(min_value=0, max_value=3),
)
def test_git_dangerous_options_are_never_accepted(
    subcommand: str, bad: str, value: str, safe: list[str], position: int
) -> None:
    args = list(safe)
    if "--" in args:
        args = args[: args.index("--")]  # after `--` a word is a path, not an option
    args.insert(min(position, len(args)), bad + value)
    assert command_plan("git", (subcommand, *args)) is None


@settings(max_examples=200, deadline=None)
@given(
    bad=st.sampled_from(GIT_GLOBAL_DANGEROUS),
    subcommand=st.sampled_from(sorted(GIT_SUBCOMMANDS)),
    value=st.sampled_from(["", "=x"]),
)
def test_git_global_options_that_redirect_git_are_never_accepted(
    bad: str, subcommand: str, value: str
) -> None:
    assert command_plan("git", (bad + value, "x", subcommand)) is None
    assert command_plan("git", ("--no-pager", bad + value, subcommand)) is None


@settings(max_examples=300, deadline=None)
@given(
    safe=st.lists(
        st.sampled_from(["-name", "x", "-type", "f", "-print", "-o", "!", "(", ")", "-empty"]),
        max_size=4,
    ),
    bad=st.sampled_from(FIND_DANGEROUS),
    position=st.integers(min_value=0, max_value=4),
)
def test_find_dangerous_primaries_are_never_accepted(
    safe: list[str], bad: str, position: int
) -> None:
    args = [".", *safe]
    args.insert(min(position + 1, len(args)), bad)
    assert command_plan("find", (*args, "x", ";")) is None


def _getopt_allowlisted(spec: OptionSpec, word: str) -> bool:
    """Independent reading of one option word: is every option it spells allowlisted?"""
    if word in spec.flags:
        return True
    if spec.numeric and word[1:].isdigit():
        return True
    if word.startswith("--"):
        name = word.partition("=")[0]
        return name in spec.values or name in spec.optional
    for letter in word[1:]:
        option = f"-{letter}"
        if option in spec.values or option in spec.optional:
            return True  # the rest of the word is its value
        if option not in spec.flags:
            return False
    return True


@settings(max_examples=800, deadline=None)
@given(
    name=st.sampled_from(sorted(COMMANDS)),
    word=st.from_regex(r"\A--?[a-zA-Z0-9.][a-zA-Z0-9=.-]{0,12}\Z"),
)
def test_random_option_words_are_accepted_only_from_the_allowlist(name: str, word: str) -> None:
    spec = COMMANDS[name].options
    if command_plan(name, (word, "x", "y")) is not None:
        assert _getopt_allowlisted(spec, word), (name, word)


@settings(max_examples=400, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(COMMANDS)))
def test_allowlisted_flags_are_accepted_in_any_combination(data: st.DataObject, name: str) -> None:
    spec = COMMANDS[name].options
    flags = sorted(spec.flags)
    assume(flags)
    chosen = data.draw(st.lists(st.sampled_from(flags), max_size=4))
    shorts = [flag[1] for flag in chosen if len(flag) == 2]
    longs = [flag for flag in chosen if len(flag) != 2]
    words = [*longs, *([f"-{''.join(shorts)}"] if shorts and spec.clusters else [])]
    operand = [] if spec.operands is None else ["README.md"]
    if name == "diff" or name == "cmp":
        operand = ["README.md", "other.md"]
    assert command_plan(name, (*words, *operand)) is not None, (name, words)


@settings(max_examples=300, deadline=None)
@given(word=st.sampled_from(sorted(FIND_PRIMARIES)))
def test_every_find_primary_on_the_list_is_accepted(word: str) -> None:
    argument = [] if FIND_PRIMARIES[word] is None else ["1"]
    assert command_plan("find", (".", word, *argument)) is not None


_INNER = "ab -./=*?[]{}~!%^:,@$`\\"
_RAW = st.lists(
    st.one_of(
        st.text(alphabet="ab-./=!%^:,@", min_size=1, max_size=3),
        st.text(alphabet=_INNER + '"', max_size=4).map(lambda text: f"'{text}'"),
        st.text(alphabet=_INNER + "'", max_size=4).map(lambda text: f'"{text}"'),
        st.sampled_from(list(_INNER + "'\"")).map(lambda char: "\\" + char),
        st.sampled_from(list("$*?[]{}~`'\" ")),
    ),
    min_size=1,
    max_size=4,
).map("".join)


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(raw=_RAW)
def test_literal_word_agrees_with_bash(tmp_path: Path, raw: str) -> None:
    value = literal_word(raw)
    assume(value is not None)
    for name in ("a", "ab", "-x", "b.a"):
        (tmp_path / name).touch()
    done = subprocess.run(
        ["bash", "-c", f"printf '%s\\0' {raw}"],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": "/home-of-test", "a": "EXPANDED"},
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.decode().split("\0")[:-1] == [value], raw
