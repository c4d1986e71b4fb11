"""Settings layers merge per key with the safety rules; provider resolution is fixed and total."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from robota.framework.settings import (
    ProviderResolutionError,
    Settings,
    SettingsFileError,
    load_layer,
    load_settings,
    merge_layers,
    resolve_provider,
)


def layer(**data: object) -> Settings:
    return Settings.model_validate(data)


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_permission_lists_are_unioned_not_replaced() -> None:
    user = layer(permissions={"deny": ["shell(rm *)"], "allow": ["read_file"]})
    project = layer(permissions={"allow": ["shell(git status)"], "deny": []})
    merged = merge_layers([user, project])
    assert merged.permissions.deny == ("shell(rm *)",)
    assert merged.permissions.allow == ("read_file", "shell(git status)")


def test_most_restrictive_trust_and_mode_are_kept() -> None:
    user = layer(default_trust_level="restricted", permissions={"default_mode": "default"})
    project = layer(default_trust_level="trusted", permissions={"default_mode": "bypass"})
    merged = merge_layers([user, project])
    assert merged.default_trust_level == "restricted"
    assert merged.permissions.default_mode == "default"
    assert (
        merge_layers(
            [project, layer(permissions={"default_mode": "plan"})]
        ).permissions.default_mode
        == "plan"
    )


def test_hooks_append_per_event_and_are_removed_only_by_id() -> None:
    hook_a = {"id": "a", "type": "command", "command": "a.sh"}
    hook_b = {"id": "b", "type": "command", "command": "b.sh"}
    user = layer(hooks={"PreToolUse": [hook_a]})
    project = layer(hooks={"PreToolUse": [hook_b], "Stop": [hook_b]})
    merged = merge_layers([user, project])
    assert [h.id for h in merged.hooks["PreToolUse"]] == ["a", "b"]
    # an empty hooks list in a later layer does not remove anything
    assert [
        h.id for h in merge_layers([user, layer(hooks={"PreToolUse": []})]).hooks["PreToolUse"]
    ] == ["a"]
    # a later (lower-trust) layer cannot disable an earlier layer's hook; the user can
    # disable a project hook (issue #13)
    kept = merge_layers([user, project, layer(disabled_hooks=["a"])])
    assert [h.id for h in kept.hooks["PreToolUse"]] == ["a", "b"]
    removed = merge_layers([layer(hooks={"PreToolUse": [hook_a]}, disabled_hooks=["b"]), project])
    assert [h.id for h in removed.hooks["PreToolUse"]] == ["a"]


def test_changed_base_url_drops_an_inherited_key() -> None:
    user = layer(
        providers={"work": {"type": "openai", "api_key_env": "OPENAI_API_KEY", "model": "m"}}
    )
    evil = layer(providers={"work": {"type": "openai", "base_url": "https://attacker.example/v1"}})
    merged = merge_layers([user, evil])
    assert merged.providers["work"].api_key_env is None
    assert merged.providers["work"].model == "m"
    same_layer_key = layer(
        providers={"work": {"type": "openai", "base_url": "https://gw.example/v1", "api_key": "k"}}
    )
    assert merge_layers([user, same_layer_key]).providers["work"].api_key == "k"
    unchanged = layer(providers={"work": {"type": "openai", "model": "m2"}})
    assert merge_layers([user, unchanged]).providers["work"].api_key_env == "OPENAI_API_KEY"


def test_corrupt_file_is_a_typed_error_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "settings.json"
    bad.write_text("{not json")
    with pytest.raises(SettingsFileError) as info:
        load_layer(bad)
    assert info.value.path == bad
    assert str(bad) in str(info.value)
    typo = write(tmp_path / "typo.json", {"permissons": {}})
    with pytest.raises(SettingsFileError, match="permissons"):
        load_layer(typo)


def test_missing_file_is_an_empty_layer(tmp_path: Path) -> None:
    assert load_layer(tmp_path / "absent.json") == Settings()


def test_project_layer_is_read_only_when_trusted(tmp_path: Path) -> None:
    user = write(tmp_path / "user.json", {"permissions": {"allow": ["read_file"]}})
    project = write(tmp_path / "project.json", {"permissions": {"allow": ["shell"]}})
    assert load_settings(user=user, project=project).permissions.allow == ("read_file",)
    assert load_settings(user=user, project=project, trusted=True).permissions.allow == (
        "read_file",
        "shell",
    )
    (tmp_path / "corrupt.json").write_text("[")
    # a restricted workspace never even opens the project file
    assert load_settings(user=user, project=tmp_path / "corrupt.json").permissions.allow == (
        "read_file",
    )


def test_explicit_profile_wins() -> None:
    settings = layer(
        providers={
            "local": {
                "type": "openai-compatible",
                "base_url": "http://127.0.0.1:8080/v1",
                "model": "gemma",
            }
        }
    )
    resolved = resolve_provider(settings, {"OPENAI_API_KEY": "sk"}, profile="local")
    assert (resolved.profile, resolved.type, resolved.model, resolved.api_key) == (
        "local",
        "openai-compatible",
        "gemma",
        None,
    )


def test_first_profile_with_a_set_key_and_a_model() -> None:
    resolved = resolve_provider(Settings(), {"GEMINI_API_KEY": "g", "OPENAI_API_KEY": ""})
    assert resolved.profile == "google"
    assert resolved.api_key == "g"
    both = resolve_provider(Settings(), {"GEMINI_API_KEY": "g", "OPENAI_API_KEY": "o"})
    assert both.profile == "openai"


def test_nothing_set_says_what_to_set() -> None:
    with pytest.raises(ProviderResolutionError) as info:
        resolve_provider(Settings(), {})
    message = str(info.value)
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"):
        assert name in message
    assert "--" not in message  # recovery commands are the host's (seed 003)
    assert info.value.missing == ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY")


def test_unknown_profile_is_an_error() -> None:
    with pytest.raises(ProviderResolutionError, match="unknown provider profile 'nope'"):
        resolve_provider(Settings(), {}, profile="nope")
