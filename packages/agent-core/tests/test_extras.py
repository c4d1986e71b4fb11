"""Optional parts behind extras fail with an error naming the extra (issue 16, "Heavy optional
parts become extras"): ``MissingExtraError`` and ``robota-agent-core[cassettes]`` (PyYAML)."""

from __future__ import annotations

import sys
from importlib.metadata import metadata
from pathlib import Path

import pytest
from robota.core import MissingExtraError, RobotaError
from robota.core.errors import ConfigurationError, ErrorCategory
from robota.core.extras import install_hint, raise_missing_extra, require_extra
from robota.core.testing.extras import run_without


def run_hidden(hidden: set[str], code: str) -> str:
    """Run ``code`` in a fresh interpreter where ``hidden`` packages cannot be imported; return
    its stdout (the test fails on a non-zero exit, showing stderr)."""
    done = run_without(hidden, code)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_missing_extra_error_is_a_robota_configuration_error_and_an_import_error() -> None:
    error = MissingExtraError(
        "no mcp", module="mcp", distribution="robota-agent-tools", extra="mcp"
    )
    assert isinstance(error, RobotaError)
    assert isinstance(error, ConfigurationError)
    assert isinstance(error, ImportError)
    assert error.error_code == "missing_extra"
    assert error.category is ErrorCategory.USER
    assert error.recoverable is False
    assert error.name == "mcp"
    assert (error.module, error.distribution, error.extra) == ("mcp", "robota-agent-tools", "mcp")


def test_install_hint_is_a_quoted_pip_command() -> None:
    assert install_hint("robota-agent-tools", "mcp") == 'pip install "robota-agent-tools[mcp]"'


def test_require_extra_returns_an_installed_module() -> None:
    assert require_extra("json", distribution="robota-agent-core", extra="x").dumps(1) == "1"


def test_require_extra_names_the_extra_for_a_module_that_is_not_installed() -> None:
    with pytest.raises(MissingExtraError) as caught:
        require_extra("robota_no_such_module", distribution="robota-agent-core", extra="demo")
    assert str(caught.value) == (
        "'robota_no_such_module' is not installed; robota-agent-core needs its 'demo' extra "
        'for this: pip install "robota-agent-core[demo]"'
    )
    assert isinstance(caught.value.__cause__, ModuleNotFoundError)


def test_an_import_error_about_another_package_is_not_blamed_on_the_extra() -> None:
    original = ModuleNotFoundError("No module named 'sniffio'", name="sniffio")
    with pytest.raises(ModuleNotFoundError) as caught:
        raise_missing_extra(original, module="mcp", distribution="robota-agent-tools", extra="mcp")
    assert caught.value is original


def test_an_installed_but_too_old_package_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "fakeextra").mkdir()
    (tmp_path / "fakeextra" / "__init__.py").write_text("")
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(MissingExtraError) as caught:
            require_extra("fakeextra.types", distribution="robota-agent-core", extra="demo")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("fakeextra", None)
    assert str(caught.value).startswith("'fakeextra' is too old or incomplete;")
    assert str(caught.value).endswith('pip install "robota-agent-core[demo]"')


def test_the_cassettes_extra_is_declared() -> None:
    assert "cassettes" in (metadata("robota-agent-core").get_all("Provides-Extra") or [])


def test_without_pyyaml_core_works_and_reading_a_cassette_names_the_extra(tmp_path: Path) -> None:
    cassette = tmp_path / "c.yaml"
    cassette.write_text("interactions: []\n")
    out = run_hidden(
        {"yaml"},
        f"""
        from robota.core import Agent
        from robota.core.testing.cassette import load_cassette
        from robota.core.testing.scripted import ScriptedProvider

        print(Agent(ScriptedProvider(["hello"])).run_sync("hi").text)
        try:
            load_cassette({str(cassette)!r})
        except ImportError as error:
            print(type(error).__name__, error.extra, "|", error)
        """,
    )
    assert out.splitlines() == [
        "hello",
        "MissingExtraError cassettes | 'yaml' is not installed; robota-agent-core needs its "
        "'cassettes' extra for this: pip install \"robota-agent-core[cassettes]\"",
    ]


def test_without_keyring_the_keyring_store_names_the_extra() -> None:
    assert "keyring" in (metadata("robota-agent-core").get_all("Provides-Extra") or [])
    out = run_hidden(
        {"keyring"},
        """
        from robota.core.host.credentials import KeyringCredentialStore
        from robota.core.host.errors import CredentialStoreError

        try:
            KeyringCredentialStore().get("robota", "me")
        except CredentialStoreError as error:
            print(error)
        """,
    )
    assert out.splitlines() == [
        "the keyring package is not installed (extra 'keyring'): "
        'pip install "robota-agent-core[keyring]"'
    ]
