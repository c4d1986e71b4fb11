"""Loading the organization policy (seed 003, "Organization policy is host-located and
fail-closed").

The policy file is located by the host, never inferred by the framework:
:func:`load_policy` reads exactly the path it is given. A host that wants the conventional
location uses :func:`policy_path`: ``$ROBOTA_POLICY`` when that variable is set, else
:data:`DEFAULT_POLICY_PATH` (``/etc/robota/policy.json``).

Fail-closed:

- an empty path (``""``, or ``ROBOTA_POLICY=""``) is :class:`PolicyPathError` — an empty
  value is a mistake, not "no policy";
- a missing file at a valid path means no deployed policy (None);
- a file that exists but cannot be read, is not UTF-8 JSON, or is not a valid policy is
  :class:`PolicyFileError` — never a silently disabled policy.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from robota.core.errors import ConfigurationError
from robota.framework.policy.model import OrganizationPolicy

__all__ = [
    "DEFAULT_POLICY_PATH",
    "POLICY_ENV_VAR",
    "PolicyError",
    "PolicyFileError",
    "PolicyPathError",
    "load_policy",
    "policy_path",
]

DEFAULT_POLICY_PATH = Path("/etc/robota/policy.json")
"""The conventional system location, used by :func:`policy_path` when ``$ROBOTA_POLICY`` is
not set."""

POLICY_ENV_VAR = "ROBOTA_POLICY"
"""The variable :func:`policy_path` reads."""


class PolicyError(ConfigurationError):
    """The organization policy cannot be located or read; enforcement never degrades to
    "no policy" because of it."""

    code = "org_policy"


class PolicyPathError(PolicyError):
    """The host gave an empty policy path (seed 003: "An absent or empty path is an error")."""

    code = "org_policy_path"


class PolicyFileError(PolicyError):
    """The policy file exists but is unreadable or malformed.

    Attributes:
        path: The file.
        detail: The read or parse message.
    """

    code = "org_policy_file"

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(f"organization policy {path}: {detail}")
        self.path = path
        self.detail = detail


def policy_path(env: Mapping[str, str]) -> Path:
    """``$ROBOTA_POLICY`` if set, else :data:`DEFAULT_POLICY_PATH`.

    Args:
        env: The environment the host chooses to read (e.g. ``os.environ``).

    Raises:
        PolicyPathError: ``ROBOTA_POLICY`` is set but empty.
    """
    if POLICY_ENV_VAR not in env:
        return DEFAULT_POLICY_PATH
    value = env[POLICY_ENV_VAR]
    if not value.strip():
        raise PolicyPathError(f"{POLICY_ENV_VAR} is set but empty; name the policy file")
    return Path(value)


def load_policy(path: str | os.PathLike[str]) -> OrganizationPolicy | None:
    """Read the policy at ``path``; None when no file exists there.

    Raises:
        PolicyPathError: ``path`` is empty.
        PolicyFileError: the file exists but cannot be read or is not a valid policy.
    """
    from pydantic import ValidationError

    raw_path = os.fspath(path)
    if not raw_path.strip():
        raise PolicyPathError("the organization policy path is empty")
    file = Path(raw_path)
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise PolicyFileError(file, f"cannot read: {exc.strerror or exc}") from exc
    try:
        raw = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PolicyFileError(file, f"not UTF-8 text: {exc.reason}") from exc
    except json.JSONDecodeError as exc:
        raise PolicyFileError(file, f"invalid JSON: {exc}") from exc
    try:
        return OrganizationPolicy.model_validate(raw)
    except ValidationError as exc:
        issues = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in exc.errors()
        )
        raise PolicyFileError(file, f"invalid policy: {issues}") from exc
