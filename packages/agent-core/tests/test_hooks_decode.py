"""Property tests of the hook answer decoder: a verdict counts only when it is exactly JSON true
or false, and an explicit block directive always wins (seed 000, "Outcome contract")."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from robota.core.hooks import HookAllow, HookDeny, HookError
from robota.core.hooks._decode import decode_answer, decode_json_text

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
NOT_BOOL = JSON.filter(lambda v: not isinstance(v, bool))
EXTRA = st.dictionaries(
    st.text(max_size=6).filter(
        lambda k: k not in {"allow", "decision", "reason", "hookSpecificOutput"}
    ),
    JSON,
    max_size=3,
)


@given(NOT_BOOL, EXTRA)
def test_a_non_boolean_allow_is_never_a_verdict(allow: Any, extra: dict[str, Any]) -> None:
    result = decode_answer({**extra, "allow": allow}, require_verdict=True)
    assert isinstance(result, HookError)


@given(EXTRA)
def test_a_missing_allow_is_no_verdict_for_http(extra: dict[str, Any]) -> None:
    assert isinstance(decode_answer(extra, require_verdict=True), HookError)


@given(EXTRA)
def test_exactly_true_allows_and_exactly_false_denies(extra: dict[str, Any]) -> None:
    assert isinstance(decode_answer({**extra, "allow": True}, require_verdict=True), HookAllow)
    assert isinstance(decode_answer({**extra, "allow": False}, require_verdict=True), HookDeny)


@given(JSON, st.text(min_size=1, max_size=10))
def test_a_block_directive_wins_beside_any_allow_value(allow: Any, reason: str) -> None:
    body = {"decision": "block", "reason": reason, "allow": allow}
    assert decode_answer(body, require_verdict=True) == HookDeny(reason=reason)
    assert decode_json_text(json.dumps(body), require_verdict=False) == HookDeny(reason=reason)


@given(st.text(max_size=30))
def test_text_that_does_not_parse_is_an_error(text: str) -> None:
    try:
        json.loads(text)
    except ValueError:
        assert isinstance(decode_json_text(text, require_verdict=False), HookError)
