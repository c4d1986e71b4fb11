"""Word certainty: a word is certain only when bash passes it on exactly as written (seed 000,
"Permission Argument Registry": what cannot be judged must not be matched as if known)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from robota.core.permissions._shell import parse_line
from robota.core.permissions._words import scan_word


@pytest.mark.parametrize(
    "word",
    ["plain", "'*'", '"*"', "\\*", "'a b'", '"rm"', "r\\m", "'r'm", "[", "]", "{}", "{a}",
     '"{a,b}"', "a~", "\\$x", "'$(rm x)'", "--flag=value", "a\\\nb", '"a\\"b"'],
)  # fmt: skip
def test_literal_words_are_certain(word: str) -> None:
    assert scan_word(word).certain


@pytest.mark.parametrize(
    ("word", "kind"),
    [
        ("*", "pattern"), ("a?b", "pattern"), ("[ab]", "pattern"), ("a[1]", "pattern"),
        ("{a,b}", "pattern"), ("{1..3}", "pattern"), ("x{a,b}y", "pattern"),
        ("@(a|b)", "pattern"), ("+(a)", "pattern"), ("!(a)", "pattern"), ("~", "pattern"),
        ("~/x", "pattern"), ("a=~/x", "pattern"), ("$x", "runtime"), ('"$x"', "runtime"),
        ("${x}", "runtime"), ("$(ls)", "runtime"), ("`ls`", "runtime"), ("<(ls)", "runtime"),
        ("$'rm'", "runtime"), ('$"rm"', "runtime"), ("~root", "runtime"), ("~+", "runtime"),
        ("$1", "runtime"), ("$@", "runtime"),
    ],
)  # fmt: skip
def test_words_bash_changes_are_not_certain(word: str, kind: str) -> None:
    facts = scan_word(word)
    assert not facts.certain
    assert getattr(facts, kind)


@pytest.mark.parametrize(
    "word",
    ["${x@P}", "${!x}", "${a[i]}", "${a[$i]}", "${#a[i]}", "${x:i}", "${x:1:n}", "${@:x}",
     "${x:-${y@P}}", "${x:-$(ls)}", "${x:-`ls`}", "$((1))", "$[1]", "${PATH:=/x}", "${IFS=,}",
     "${x@Z}", "${(e)x}"],
)  # fmt: skip
def test_expansions_that_evaluate_are_dangerous(word: str) -> None:
    assert scan_word(word).danger is not None


@pytest.mark.parametrize(
    "word",
    ["${x}", "${x:-a}", "${x#*/}", "${x%.*}", "${x/a/b}", "${x^^}", "${#x}", "${a[0]}",
     "${a[@]}", "${#a[@]}", "${!x*}", "${!a[@]}", "${x:1:2}", "${x: -1}", "${x@Q}", "${x=1}"],
)  # fmt: skip
def test_expansions_that_only_read_are_not_dangerous(word: str) -> None:
    facts = scan_word(word)
    assert facts.danger is None
    assert facts.runtime


def test_bashlex_disagreement_makes_a_word_uncertain() -> None:
    # bashlex decodes $'\x72m' as "$x72m" and drops quotes inside a=… words
    line = parse_line("$'\\x72m' --x='b \"c\"'")
    assert line is not None
    assert line.commands[0].certain == (False, False)


def test_unquoted_expansion_splits_and_quoted_does_not() -> None:
    assert scan_word("$x").splits
    assert not scan_word('"$x"').splits


_QUOTED = st.text(alphabet="abc*?[]{},.~ $", min_size=1, max_size=10).map(
    lambda text: "'" + text.replace("'", "") + "'"
)


@settings(max_examples=300, deadline=None)
@given(_QUOTED)
def test_single_quoted_text_is_always_certain(word: str) -> None:
    facts = scan_word(word)
    assert facts.certain
    assert facts.literal == word[1:-1]


@settings(max_examples=300, deadline=None)
@given(
    prefix=st.text(alphabet="abc", max_size=3),
    magic=st.sampled_from(["*", "?", "[a]", "{a,b}", "{1..2}", "$x", "$(x)", "`x`"]),
    suffix=st.text(alphabet="abc", max_size=3),
)
def test_unquoted_magic_is_never_certain(prefix: str, magic: str, suffix: str) -> None:
    assert not scan_word(prefix + magic + suffix).certain
