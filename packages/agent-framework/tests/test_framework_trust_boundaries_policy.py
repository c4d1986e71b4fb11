"""Issue #13 row 6: the organization policy is host-located, fail-closed, and outranks every
settings layer, the host's included."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from robota.framework.policy import (
    DEFAULT_POLICY_PATH,
    OrganizationPolicy,
    PolicyFileError,
    PolicyPathError,
    load_policy,
    policy_path,
)
from robota.framework.settings import Settings, load_settings


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_empty_path_is_an_error_and_a_missing_file_is_no_policy(tmp_path: Path) -> None:
    with pytest.raises(PolicyPathError):
        load_policy("")
    with pytest.raises(PolicyPathError):
        policy_path({"ROBOTA_POLICY": ""})
    assert policy_path({}) == DEFAULT_POLICY_PATH == Path("/etc/robota/policy.json")
    assert policy_path({"ROBOTA_POLICY": str(tmp_path / "p.json")}) == tmp_path / "p.json"
    assert load_policy(tmp_path / "absent.json") is None


def test_malformed_or_unreadable_policy_is_a_typed_error(tmp_path: Path) -> None:
    bad = tmp_path / "policy.json"
    bad.write_text("{")
    with pytest.raises(PolicyFileError) as info:
        load_policy(bad)
    assert info.value.path == bad
    typo = write(tmp_path / "typo.json", {"permissions": {"deny_rules": ["shell"]}})
    with pytest.raises(PolicyFileError, match="deny_rules"):
        load_policy(typo)
    widen = write(tmp_path / "widen.json", {"permissions": {"allow": ["shell"]}})
    with pytest.raises(PolicyFileError, match="allow"):
        load_policy(widen)
    if os.geteuid() != 0:  # root reads anything
        locked = write(tmp_path / "locked.json", {})
        locked.chmod(0)
        with pytest.raises(PolicyFileError, match="cannot read"):
            load_policy(locked)


def test_policy_outranks_every_layer(tmp_path: Path) -> None:
    policy = load_policy(
        write(
            tmp_path / "policy.json",
            {
                "permissions": {"deny": ["shell(curl *)"], "max_mode": "accept_edits"},
                "hooks": {"PreToolUse": [{"id": "org", "type": "command", "command": "org"}]},
                "disabled_hooks": ["user-hook"],
                "sandbox": {"network": False},
            },
        )
    )
    assert isinstance(policy, OrganizationPolicy)
    user = write(
        tmp_path / "user.json",
        {
            "permissions": {"allow": ["shell(curl *)"], "default_mode": "bypass"},
            "hooks": {"PreToolUse": [{"id": "user-hook", "type": "command", "command": "u"}]},
            "disabled_hooks": ["org"],
            "sandbox": {"network": True},
        },
    )
    host = Settings.model_validate(
        {"permissions": {"default_mode": "bypass"}, "disabled_hooks": ["org"]}
    )
    merged = load_settings(user=user, host=host, policy=policy)
    assert "shell(curl *)" in merged.permissions.deny
    assert merged.permissions.default_mode == "accept_edits"
    assert merged.permissions.max_mode == "accept_edits"
    assert [h.id for h in merged.hooks["PreToolUse"]] == ["org"]
    assert merged.sandbox.network is False


def test_policy_can_turn_project_settings_off(tmp_path: Path) -> None:
    policy = OrganizationPolicy(project_settings=False)
    project = write(tmp_path / "project.json", {"permissions": {"allow": ["shell"]}})
    assert load_settings(project=project, trusted=True, policy=policy).permissions.allow == ()
