"""Importing robota.core loads no other robota package and does no I/O (issue: agent-core)."""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = r"""
import json, sys
events = []
def audit(event, args):
    if event in ("open",):
        path = str(args[0])
        if not path.endswith((".py", ".pyc", ".so", ".pth")) and args[1] not in (None,):
            events.append(f"open {path} {args[1]}")
    elif event.startswith(("socket.", "subprocess.", "sqlite3.", "os.system", "os.exec", "os.fork",
                           "os.posix_spawn", "os.mkdir", "os.remove", "os.rename", "shutil.")):
        events.append(event)
sys.addaudithook(audit)
import robota.core
print(json.dumps({"events": events,
                  "modules": sorted(m for m in sys.modules if m.startswith("robota"))}))
"""


def _probe() -> dict[str, list[str]]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_import_loads_only_core_modules() -> None:
    modules = _probe()["modules"]
    others = [m for m in modules if m != "robota" and not m.startswith("robota.core")]
    assert others == []


def test_import_does_no_io() -> None:
    assert _probe()["events"] == []


def test_import_does_not_load_host_guards() -> None:
    # OS-touching guards live in robota.core.host and are imported only on demand.
    assert "robota.core.host" not in _probe()["modules"]
