"""An outsider's attack on the install promise (issue 16): a downstream team pins Robota
distributions from an index and gets exactly what it asked for.

Every attempt runs against the wheels and sdists built once per module from this checkout, each in
a fresh virtual environment outside the workspace (robota-* from the built files, third-party from
the usual registry). Classes: every module of a minimal install imports (or raises
``MissingExtraError`` naming a real extra); every import is declared by the distribution that makes
it; the installed set is the declared closure; floors at ``lowest-direct``; sibling version skew;
the distribution files themselves; extras without and with; the Python matrix.

A test that fails here is a hole in the promise, kept failing on purpose.
"""

from __future__ import annotations

import email
import email.message
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import threading
import zipfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from tools.release.workspace import load_packages

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
REPO_URL = "https://github.com/robota-ai/robota-python"
DOCS_URL = "https://robota-ai.github.io/robota-python/"
CASSETTES = ROOT / "tests-integration" / "cassettes"

# distribution -> (package folder, import portion under `robota`)
PACKAGES: dict[str, tuple[str, str]] = {
    "robota-agent-core": ("agent-core", "core"),
    "robota-agent-session": ("agent-session", "session"),
    "robota-agent-tools": ("agent-tools", "tools"),
    "robota-agent-executor": ("agent-executor", "executor"),
    "robota-agent-plugin": ("agent-plugin", "plugins"),
    "robota-agent-provider-anthropic": ("agent-provider-anthropic", "providers.anthropic"),
    "robota-agent-provider-openai": ("agent-provider-openai", "providers.openai"),
    "robota-agent-provider-google": ("agent-provider-google", "providers.google"),
    "robota-agent-durable-dbos": ("agent-durable-dbos", "durable.dbos"),
    "robota-agent-framework": ("agent-framework", "framework"),
    "robota-agent-cli": ("agent-cli", "cli"),
    "robota-agent-evals": ("agent-evals", "evals"),
}
DISTS = sorted(PACKAGES)

# The versions in this checkout's pyprojects: every expectation below follows them.
WORKSPACE = load_packages(ROOT)
assert set(WORKSPACE) == set(PACKAGES), sorted(set(WORKSPACE) ^ set(PACKAGES))
VERSIONS: dict[str, Version] = {name: package.version for name, package in WORKSPACE.items()}
CORE = VERSIONS["robota-agent-core"]
# The next minor of core: while 0.x, a release allowed to break its siblings.
NEXT_CORE_MINOR = Version(f"{CORE.major}.{CORE.minor + 1}.0")


def series(version: Version) -> str:
    """The pin on ``version``'s release series: ``0.3.0`` -> ``==0.3.*``."""
    return f"=={version.major}.{version.minor}.*"


# Heavyweight third-party distributions nobody should get without asking.
HEAVY = frozenset(
    {
        "mcp",
        "starlette",
        "uvicorn",
        "cryptography",
        "opentelemetry-api",
        "opentelemetry-sdk",
        "dbos",
        "sqlalchemy",
        "google-genai",
        "anthropic",
        "openai",
    }
)
# What each distribution's own users expect (directly, or through the SDK they chose).
EXPECTED_HEAVY: dict[str, frozenset[str]] = {
    "robota-agent-provider-openai": frozenset({"openai"}),
    # the Anthropic SDK itself depends on opentelemetry-api
    "robota-agent-provider-anthropic": frozenset({"anthropic", "opentelemetry-api"}),
    # google-genai -> google-auth -> cryptography
    "robota-agent-provider-google": frozenset({"google-genai", "cryptography"}),
    "robota-agent-durable-dbos": frozenset({"dbos", "sqlalchemy"}),
    # the CLI speaks to all three providers and connects MCP servers from settings
    "robota-agent-cli": frozenset(
        {
            "openai",
            "anthropic",
            "google-genai",
            "cryptography",
            "opentelemetry-api",
            "mcp",
            "starlette",
            "uvicorn",
        }
    ),
    # evaluations read the agent's OpenTelemetry spans through the SDK
    "robota-agent-evals": frozenset({"opentelemetry-api", "opentelemetry-sdk"}),
}

_CLEAN_ENV_KEEP = ("PATH", "HOME", "SSL_CERT_FILE", "UV_CACHE_DIR", "XDG_CACHE_HOME", "LANG")


def norm(name: str) -> str:
    return str(canonicalize_name(name))


def clean_env(**extra: str) -> dict[str, str]:
    """An environment with no provider keys, no PIP_* / UV_* configuration of this machine."""
    env = {k: v for k, v in os.environ.items() if k in _CLEAN_ENV_KEEP}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env


def run(
    args: Sequence[str | Path], *, cwd: Path | None = None, timeout: float = 300, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, f"{proc.args}\nrc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def uv() -> str:
    found = shutil.which("uv")
    assert found, "uv is required"
    return found


def interpreter(minor: int) -> Path | None:
    """A CPython 3.<minor> on this machine: pyenv's, else one on PATH."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if pyenv.is_dir():
        for version in sorted(pyenv.iterdir(), reverse=True):
            if version.name.startswith(f"3.{minor}.") and (version / "bin" / "python").exists():
                return version / "bin" / "python"
    found = shutil.which(f"python3.{minor}")
    return Path(found) if found else None


def py311() -> Path:
    found = interpreter(11) or Path(sys.executable)
    return found


# --- the built files --------------------------------------------------------------------------


@dataclass(frozen=True)
class Built:
    dist: Path
    work: Path

    def wheel(self, name: str) -> Path:
        return next(self.dist.glob(f"{name.replace('-', '_')}-*.whl"))

    def sdist(self, name: str) -> Path:
        return next(self.dist.glob(f"{name.replace('-', '_')}-*.tar.gz"))

    def metadata(self, name: str) -> email.message.Message:
        with zipfile.ZipFile(self.wheel(name)) as wheel:
            member = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
            return email.message_from_bytes(wheel.read(member))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    work = tmp_path_factory.mktemp("install-outsider")
    dist = work / "dist"
    ok(run([uv(), "build", "--all-packages", "-o", dist, "--quiet"], cwd=ROOT))
    assert len(list(dist.glob("*.whl"))) == len(PACKAGES)
    return Built(dist=dist, work=work)


class Venvs:
    """Fresh venvs, one per named subset, created once (thread-safe, so several build at once)."""

    def __init__(self, built: Built) -> None:
        self.built = built
        self._made: dict[str, Path] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def get(
        self,
        key: str,
        requirements: Sequence[str | Path],
        *,
        python: Path | None = None,
        resolution: str | None = None,
        seed: bool = False,
        overrides: Sequence[str] = (),
    ) -> Path:
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key in self._made:
                return self._made[key]
            venv = self.built.work / "venvs" / key
            shutil.rmtree(venv, ignore_errors=True)
            args: list[str | Path] = [uv(), "venv", "-q", "-p", python or py311(), venv]
            if seed:
                args.append("--seed")
            ok(run(args))
            python_exe = venv / "bin" / "python"
            if requirements:
                args = [uv(), "pip", "install", "-q", "-p", python_exe]
                args += ["--find-links", self.built.dist, *requirements]
                if resolution:
                    args += ["--resolution", resolution]
                if overrides:
                    override = venv.parent / f"{key}.overrides.txt"
                    override.write_text("\n".join(overrides) + "\n", encoding="utf-8")
                    args += ["--override", override]
                ok(run(args, timeout=600))
            self._made[key] = python_exe
            return python_exe

    def minimal(self, name: str) -> Path:
        return self.get(f"min-{name}", [self.built.wheel(name)])


@pytest.fixture(scope="module")
def venvs(built: Built) -> Venvs:
    made = Venvs(built)
    # Warm the minimal installs in parallel: they are independent.
    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(made.minimal, DISTS))
    return made


# --- scripts run inside a venv ----------------------------------------------------------------

_WALK = r"""
import importlib, json, pkgutil, sys
from importlib import metadata
portion, dist = sys.argv[1], sys.argv[2]
package = importlib.import_module(f"robota.{portion}")
extras = set(metadata.metadata(dist).get_all("Provides-Extra") or [])
names = [f"robota.{portion}"] + [
    m.name for m in pkgutil.walk_packages(package.__path__, f"robota.{portion}.")
    if not m.name.endswith(".__main__")
]
result = {}
for name in names:
    try:
        importlib.import_module(name)
        result[name] = "ok"
    except Exception as error:
        if type(error).__name__ == "MissingExtraError":
            good = getattr(error, "distribution", None) == dist and getattr(error, "extra", None) in extras
            hint = f'pip install "{dist}[{getattr(error, "extra", None)}]"'
            result[name] = "extra" if good and hint in str(error) else f"bad extra: {error}"
        else:
            result[name] = f"{type(error).__name__}: {error}"
print(json.dumps(result))
"""

_ENV_DUMP = r"""
import json, os, platform, sys
from importlib import metadata
env = {
    "implementation_name": sys.implementation.name,
    "implementation_version": platform.python_version(),
    "os_name": os.name,
    "platform_machine": platform.machine(),
    "platform_python_implementation": platform.python_implementation(),
    "platform_release": platform.release(),
    "platform_system": platform.system(),
    "platform_version": platform.version(),
    "python_full_version": platform.python_version(),
    "python_version": ".".join(platform.python_version_tuple()[:2]),
    "sys_platform": sys.platform,
}
dists = {d.metadata["Name"]: d.requires or [] for d in metadata.distributions()}
print(json.dumps({"env": env, "dists": dists}))
"""

# Which distribution provides each module a package imports (by the file the module resolves to,
# so namespace packages such as `google` split into google-genai and google-auth).
_OWNERS = r"""
import ast, importlib.util, json, os, pathlib, sys
from importlib import metadata
import robota
owner = {}
for d in metadata.distributions():
    for f in d.files or []:
        owner[os.path.realpath(d.locate_file(f))] = d.metadata["Name"]
def resolve(name):
    try:
        spec = importlib.util.find_spec(name)
    except Exception:
        return None
    if spec is None:
        return None
    if spec.origin and spec.origin not in ("namespace", "built-in", "frozen"):
        return owner.get(os.path.realpath(spec.origin), "?unowned:" + name)
    return None
result = {}
for portion in sys.argv[1:]:
  root = next(pathlib.Path(p, *portion.split(".")) for p in robota.__path__
              if pathlib.Path(p, *portion.split(".")).is_dir())
  found = result[portion] = {}
  for path in root.rglob("*.py"):
      for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
          candidates = []
          if isinstance(node, ast.Import):
              candidates = [[a.name] for a in node.names]
          elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
              candidates = [[f"{node.module}.{a.name}", node.module] for a in node.names]
          for names in candidates:
              top = names[-1].split(".")[0]
              if top in sys.stdlib_module_names or top == "__future__":
                  continue
              dist = None
              for name in names:
                  dist = resolve(name)
                  if dist:
                      break
              where = f"{path.relative_to(root)}:{node.lineno} {names[-1]}"
              found.setdefault(dist or "?unresolved:" + names[-1], []).append(where)
print(json.dumps(result))
"""


def script(built: Built, name: str, body: str) -> Path:
    path = built.work / "scripts" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(body, encoding="utf-8")
    return path


def run_json(python: Path, path: Path, *args: str) -> dict[str, object]:
    return cast("dict[str, object]", json.loads(ok(run([python, path, *args]))))


def requires(meta: email.message.Message) -> list[Requirement]:
    return [Requirement(r) for r in meta.get_all("Requires-Dist") or []]


_ALL_WITH_EXTRAS = (
    "robota-agent-cli",
    "robota-agent-core[cassettes,keyring]",
    "robota-agent-tools[mcp]",
    "robota-agent-plugin[otel,prices]",
    "robota-agent-durable-dbos",
    "robota-agent-executor",
    "robota-agent-evals[record,prices]",
)


# --- class 1: every module of a minimal install -----------------------------------------------


@pytest.mark.parametrize("name", DISTS)
def test_every_module_imports_in_minimal_install(name: str, built: Built, venvs: Venvs) -> None:
    """Each module imports, or raises MissingExtraError naming an extra this distribution has."""
    python = venvs.minimal(name)
    result = run_json(python, script(built, "walk.py", _WALK), PACKAGES[name][1], name)
    assert len(result) > 1
    bad = {module: outcome for module, outcome in result.items() if outcome not in ("ok", "extra")}
    assert not bad, f"{name}: modules that neither import nor name a real extra: {bad}"


@pytest.fixture(scope="module")
def import_owners(built: Built, venvs: Venvs) -> dict[str, object]:
    """portion -> {providing distribution: [where imported]}, in one venv holding everything."""
    python = venvs.get("all-extras", [*_ALL_WITH_EXTRAS])
    portions = [portion for _, portion in PACKAGES.values()]
    return run_json(python, script(built, "owners.py", _OWNERS), *portions)


@pytest.mark.parametrize("name", DISTS)
def test_every_import_is_declared_by_the_distribution(
    name: str, built: Built, import_owners: dict[str, object]
) -> None:
    """Every third-party or sibling module the package imports (at any depth, including lazy
    imports inside functions) is provided by a distribution it declares, not one that arrives
    transitively."""
    found = cast("dict[str, list[str]]", import_owners[PACKAGES[name][1]])
    declared = {norm(r.name) for r in requires(built.metadata(name))}
    undeclared = {
        dist: where
        for dist, where in found.items()
        if norm(dist) != name and norm(dist) not in declared
    }
    assert not undeclared, f"{name} imports from undeclared distributions: {undeclared}"


# --- class 2: exactly what you asked for ------------------------------------------------------


def installed_closure(
    python: Path, built: Built, roots: Sequence[str]
) -> tuple[set[str], set[str]]:
    """(installed distributions, closure of ``roots`` over the installed Requires-Dist)."""
    data = run_json(python, script(built, "env_dump.py", _ENV_DUMP))
    env = cast("dict[str, str]", data["env"])
    dists = {norm(k): v for k, v in cast("dict[str, list[str]]", data["dists"]).items()}
    closure: set[str] = set()
    seen: set[tuple[str, frozenset[str]]] = set()
    todo: list[tuple[str, frozenset[str]]] = []
    for root in roots:
        req = Requirement(root)
        todo.append((norm(req.name), frozenset(req.extras)))
    while todo:
        current, extras = todo.pop()
        if (current, extras) in seen:
            continue
        seen.add((current, extras))
        closure.add(current)
        for raw in dists.get(current, []):
            req = Requirement(raw)
            marker: Marker | None = req.marker
            if marker is not None and not any(
                marker.evaluate({**env, "extra": e}) for e in (extras or {""})
            ):
                continue
            todo.append((norm(req.name), frozenset(req.extras)))
    return set(dists), closure


@pytest.mark.parametrize("name", DISTS)
def test_minimal_install_is_exactly_the_declared_closure(
    name: str, built: Built, venvs: Venvs
) -> None:
    python = venvs.minimal(name)
    installed, closure = installed_closure(python, built, [name])
    assert installed == closure, f"extra: {installed - closure}, missing: {closure - installed}"
    heavy = installed & HEAVY
    assert heavy <= EXPECTED_HEAVY.get(name, frozenset()), f"{name} drags in {heavy}"
    robota = {d for d in installed if d.startswith("robota-")}
    declared = {norm(r.name) for r in requires(built.metadata(name)) if not r.marker}
    assert robota - {name} <= _sibling_closure(built, declared)


def _sibling_closure(built: Built, start: set[str]) -> set[str]:
    seen: set[str] = set()
    todo = [d for d in start if d.startswith("robota-")]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        todo += [
            norm(r.name)
            for r in requires(built.metadata(current))
            if r.name.startswith("robota-") and not r.marker
        ]
    return seen


def test_core_plus_openai_pin_brings_nothing_unasked(built: Built, venvs: Venvs) -> None:
    """The issue's own promise: pin core + the OpenAI provider, get nothing else from Robota and
    no heavyweight besides the OpenAI SDK; the environment is consistent."""
    python = venvs.get(
        "core-openai",
        [
            f"robota-agent-core{series(CORE)}",
            f"robota-agent-provider-openai{series(VERSIONS['robota-agent-provider-openai'])}",
        ],
    )
    installed, closure = installed_closure(
        python, built, ["robota-agent-core", "robota-agent-provider-openai"]
    )
    assert installed == closure
    assert {d for d in installed if d.startswith("robota-")} == {
        "robota-agent-core",
        "robota-agent-provider-openai",
    }
    assert installed & HEAVY == {"openai"}
    ok(run([uv(), "pip", "check", "-p", python]))
    smoke = ROOT / "packages" / "agent-provider-openai" / "smoke.py"
    assert "smoke ok" in ok(run([python, smoke], cwd=built.work))


# --- class 3: floors --------------------------------------------------------------------------

_REPLAY = r"""
import sys, tempfile, anyio
from pathlib import Path
from robota.core import Agent
from robota.core.testing.cassette import load_cassette
from robota.tools import Workspace, builtin_toolset
which, cassettes = sys.argv[1], Path(sys.argv[2])
if which == "openai_chat":
    from robota.providers.openai.replay import replay_provider
    provider = replay_provider(load_cassette(cassettes / "openai_chat_read_file.yaml"))
    model = "gpt-4o-mini"
elif which == "openai_responses":
    from robota.providers.openai.replay import replay_provider
    provider = replay_provider(load_cassette(cassettes / "openai_responses_read_file.yaml"))
    model = "gpt-4o"
elif which == "anthropic":
    from robota.providers.anthropic.replay import replay_provider
    provider = replay_provider(load_cassette(cassettes / "anthropic_read_file.yaml"))
    model = "claude-sonnet-4-5"
else:
    from robota.providers.google.replay import provider_for_cassette
    provider = provider_for_cassette(load_cassette(cassettes / "google_read_file.yaml"))
    model = "gemini-3-pro-preview"
project = Path(tempfile.mkdtemp())
(project / "notes.txt").write_text("ship on Tuesday\n")
async def main():
    toolset = builtin_toolset(Workspace.at(project), background_dir=project / ".bg")
    try:
        result = await Agent(provider, model=model, tools=toolset.tools).run("read notes.txt")
    finally:
        await toolset.aclose()
    assert "Tuesday" in result.new_messages[2].results[0].text, result.new_messages
    assert result.rounds == 2 and result.text, result
    print("replay ok", which)
anyio.run(main)
"""

_MCP_SERVER = r"""
from mcp.server.mcpserver import MCPServer
server = MCPServer("outsider")
@server.tool()
def echo(text: str) -> str:
    '''Echo text back.'''
    return "echo:" + text
server.run("stdio")
"""

_EXTRAS_WITH = r"""
import sys, anyio
which = sys.argv[1]
if which == "mcp":
    from robota.core import Agent
    from robota.core.testing.scripted import ScriptedProvider, text, tool_call
    from robota.tools.mcp import McpToolset, StdioServerConfig
    async def main():
        config = StdioServerConfig(name="outsider", command=sys.executable, args=(sys.argv[2],))
        async with McpToolset([config]) as toolset:
            tools = await toolset.tools()
            assert [t.name for t in tools] == ["mcp__outsider__echo"], tools
            provider = ScriptedProvider([[tool_call("c1", tools[0].name, {"text": "hi"})], [text("done")]])
            result = await Agent(provider, tools=tools).run("go")
            assert "echo:hi" in result.new_messages[2].results[0].text, result.new_messages
    anyio.run(main)
elif which == "plugin":
    from opentelemetry.trace import NoOpTracerProvider
    from robota.core import Agent
    from robota.core.testing.scripted import ScriptedProvider, text, usage
    from robota.plugins import OpenTelemetrySink, genai_price
    sink = OpenTelemetrySink(NoOpTracerProvider(), request_model="gpt-4o")
    provider = ScriptedProvider([[text("x"), usage(input_tokens=1000, output_tokens=100)]])
    result = Agent(provider, sinks=[sink]).run_sync("q")
    price = genai_price("openai")("gpt-4o", result.usage)
    assert price is not None and price > 0, price
elif which == "core":
    from keyring.backend import KeyringBackend
    from robota.core.host.credentials import KeyringCredentialStore
    from robota.core.testing.cassette import load_cassette
    assert load_cassette(sys.argv[2]).interactions
    class Memory(KeyringBackend):
        priority = 1
        def __init__(self):
            self.data = {}
        def get_password(self, service, username):
            return self.data.get((service, username))
        def set_password(self, service, username, password):
            self.data[(service, username)] = password
        def delete_password(self, service, username):
            del self.data[(service, username)]
    store = KeyringCredentialStore(Memory())
    store.set("svc", "acct", "secret")
    assert store.get("svc", "acct") == "secret"
print("extra ok", which)
"""


def floor_requirements(built: Built, name: str, extras: Sequence[str] = ()) -> list[str]:
    """The distribution's own third-party requirements (with the chosen extras' ones), as direct
    requirements so that ``--resolution lowest-direct`` takes each at its floor."""
    out: list[str] = []
    for req in requires(built.metadata(name)):
        if req.name.startswith("robota-"):
            continue
        if req.marker is not None:
            if not any(req.marker.evaluate({"extra": e}) for e in extras):
                continue
            req.marker = None
        out.append(str(req))
    return out


def floor_of(req: str) -> str | None:
    match = re.search(r">=\s*([0-9][^,;\s]*)", req)
    return match.group(1) if match else None


@dataclass(frozen=True)
class FloorCase:
    name: str
    extras: tuple[str, ...]
    also: tuple[str, ...]
    check: tuple[str, ...]  # "smoke", "replay:<which>", "extra:<which>"


FLOOR_CASES = [
    FloorCase("robota-agent-core", ("cassettes", "keyring"), (), ("smoke", "extra:core")),
    FloorCase(
        "robota-agent-provider-openai",
        (),
        ("robota-agent-core[cassettes]", "robota-agent-tools"),
        ("smoke", "replay:openai_chat", "replay:openai_responses"),
    ),
    FloorCase(
        "robota-agent-provider-anthropic",
        (),
        ("robota-agent-core[cassettes]", "robota-agent-tools"),
        ("smoke", "replay:anthropic"),
    ),
    FloorCase(
        "robota-agent-provider-google",
        (),
        ("robota-agent-core[cassettes]", "robota-agent-tools"),
        ("smoke", "replay:google"),
    ),
    FloorCase("robota-agent-tools", ("mcp",), (), ("smoke", "extra:mcp")),
    FloorCase("robota-agent-plugin", ("otel", "prices"), (), ("smoke", "extra:plugin")),
    FloorCase("robota-agent-evals", ("record", "prices"), (), ("smoke",)),
]


def exercise(python: Path, built: Built, name: str, check: str) -> None:
    cwd = built.work
    if check == "smoke":
        out = ok(run([python, ROOT / "packages" / PACKAGES[name][0] / "smoke.py"], cwd=cwd))
        assert "smoke ok" in out
        return
    kind, _, which = check.partition(":")
    if kind == "replay":
        ok(run([python, script(built, "replay.py", _REPLAY), which, CASSETTES], cwd=cwd))
        return
    arg = {
        "mcp": str(script(built, "mcp_server.py", _MCP_SERVER)),
        "core": str(CASSETTES / "openai_chat_read_file.yaml"),
        "plugin": "",
    }[which]
    out = ok(run([python, script(built, "extras_with.py", _EXTRAS_WITH), which, arg], cwd=cwd))
    assert f"extra ok {which}" in out


@pytest.mark.parametrize("case", FLOOR_CASES, ids=lambda c: c.name.removeprefix("robota-agent-"))
def test_declared_floors_work(case: FloorCase, built: Built, venvs: Venvs) -> None:
    """Every declared third-party floor (the package's and its extras') taken at lowest-direct:
    its smoke program and the real paths of its extras / recorded cassettes run."""
    reqs = floor_requirements(built, case.name, case.extras)
    target = f"{case.name}[{','.join(case.extras)}]" if case.extras else case.name
    python = venvs.get(
        f"floor-{case.name}", [target, *case.also, *reqs], resolution="lowest-direct"
    )
    frozen = ok(run([uv(), "pip", "freeze", "-p", python]))
    versions = dict(
        (norm(a), b) for a, _, b in (line.partition("==") for line in frozen.splitlines()) if b
    )
    above = {}
    for r in reqs:
        floor = floor_of(r)
        got = versions.get(norm(Requirement(r).name))
        if floor is not None and (got is None or Version(got) != Version(floor)):
            above[r] = got
    # A floor another declared floor makes unreachable is recorded, not failed: at most one.
    assert len(above) <= 1, f"lowest-direct did not take these floors: {above}"
    for check in case.check:
        exercise(python, built, case.name, check)


def test_below_floor_mcp_names_the_extra(built: Built, venvs: Venvs) -> None:
    """One below the ``mcp>=2.0`` floor: the toolset says the extra is too old, clearly."""
    python = venvs.get("below-mcp", [built.wheel("robota-agent-tools"), "mcp==1.27.0"])
    proc = run([python, "-c", "import robota.tools.mcp"])
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("robota.core.errors.MissingExtraError:"), proc.stderr
    assert 'pip install "robota-agent-tools[mcp]"' in last


def test_below_floor_anyio_breaks_core(built: Built, venvs: Venvs) -> None:
    """One below the ``anyio>=4.11`` floor breaks core's own smoke program: the floor is real."""
    python = venvs.get(
        "below-anyio", [built.wheel("robota-agent-core")], overrides=["anyio==4.10.0"]
    )
    proc = run([python, ROOT / "packages" / "agent-core" / "smoke.py"], cwd=built.work)
    assert proc.returncode != 0


# --- class 4: version skew --------------------------------------------------------------------


@pytest.fixture(scope="module")
def fake_next_core_minor(built: Built) -> Path:
    """Core's next minor (``NEXT_CORE_MINOR``) built from a temporary copy, with
    ``robota.core.schema.json_schema_of`` (imported by robota-agent-tools) renamed: a breaking
    release, outside the range robota-agent-tools declares on core."""
    tools_range = SpecifierSet(WORKSPACE["robota-agent-tools"].requires["robota-agent-core"])
    assert CORE in tools_range, (CORE, tools_range)
    assert NEXT_CORE_MINOR not in tools_range, (NEXT_CORE_MINOR, tools_range)
    source = built.work / "fake" / "agent-core"
    shutil.copytree(
        ROOT / "packages" / "agent-core",
        source,
        ignore=shutil.ignore_patterns("__pycache__", "tests", ".venv", "*.pyc"),
    )
    pyproject = source / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    current = f'version = "{CORE}"'
    assert current in text
    pyproject.write_text(
        text.replace(current, f'version = "{NEXT_CORE_MINOR}"', 1), encoding="utf-8"
    )
    renamed = 0
    for path in (source / "src").rglob("*.py"):
        body = path.read_text(encoding="utf-8")
        if "json_schema_of" in body:
            path.write_text(
                re.sub(r"\bjson_schema_of\b", "json_schema_for", body), encoding="utf-8"
            )
            renamed += 1
    assert renamed
    out = built.work / "fake" / "dist"
    ok(run([uv(), "build", "--wheel", "-q", "-o", out], cwd=source))
    return next(out.glob(f"robota_agent_core-{NEXT_CORE_MINOR}-*.whl"))


def test_resolver_refuses_next_core_minor_under_current_tools(
    built: Built, venvs: Venvs, fake_next_core_minor: Path
) -> None:
    python = venvs.get("skew", [], seed=True)
    proc = run(
        [
            *(uv(), "pip", "install", "-p", python),
            *(built.wheel("robota-agent-tools"), fake_next_core_minor),
        ]
    )
    assert proc.returncode != 0
    assert "unsatisfiable" in proc.stderr, proc.stderr
    # Both cores offered, nothing pinned: the sibling range picks the current core.
    ok(
        run(
            [
                *(uv(), "pip", "install", "-q", "-p", python, "--find-links", built.dist),
                *("--find-links", fake_next_core_minor.parent),
                *("robota-agent-tools", "robota-agent-core"),
            ]
        )
    )
    assert f"robota-agent-core=={CORE}" in ok(run([uv(), "pip", "freeze", "-p", python]))
    ok(run([python, "-c", "import robota.tools"]))


def test_forced_next_core_minor_is_flagged_by_pip_check(
    built: Built, venvs: Venvs, fake_next_core_minor: Path
) -> None:
    """Forcing the breaking core in (pip --no-deps) is what the ranges are there to catch:
    ``pip check`` fails naming the sibling (and the import really breaks)."""
    python = venvs.get("skew-forced", [built.wheel("robota-agent-tools")], seed=True)
    ok(run([python, "-m", "pip", "install", "-q", "--no-deps", fake_next_core_minor]))
    check = run([python, "-m", "pip", "check"])
    assert check.returncode != 0
    tools = WORKSPACE["robota-agent-tools"]
    # pip prints the specifier as packaging writes it: sorted (`<0.4,>=0.3`).
    tools_range = SpecifierSet(tools.requires["robota-agent-core"])
    expected = (
        f"robota-agent-tools {tools.version} has requirement robota-agent-core{tools_range}, "
        f"but you have robota-agent-core {NEXT_CORE_MINOR}"
    )
    assert expected in check.stdout, check.stdout
    assert run([uv(), "pip", "check", "-p", python]).returncode != 0
    assert "json_schema_of" in run([python, "-c", "import robota.tools"]).stderr


# --- class 5: the distribution files ----------------------------------------------------------


@pytest.mark.parametrize("name", DISTS)
def test_wheel_contents(name: str, built: Built) -> None:
    portion = "robota/" + PACKAGES[name][1].replace(".", "/") + "/"
    with zipfile.ZipFile(built.wheel(name)) as wheel:
        names = wheel.namelist()
    assert "robota/__init__.py" not in names, "a robota/__init__.py breaks the namespace"
    assert f"{portion}py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    dist_info = f"{name.replace('-', '_')}-{VERSIONS[name]}.dist-info/"
    stray = [
        n for n in names if not n.startswith((portion, dist_info)) and not portion.startswith(n)
    ]
    assert not stray, stray
    junk = [n for n in names if re.search(r"(^|/)(tests?|__pycache__|conftest\.py)(/|$)|\.pyc$", n)]
    assert not junk, junk
    assert not [
        n for n in names if n.startswith(portion) and not n.endswith((".py", "py.typed", "/"))
    ]


def _content(wheel_path: Path) -> dict[str, str]:
    with zipfile.ZipFile(wheel_path) as wheel:
        out: dict[str, str] = {}
        for n in wheel.namelist():
            if n.endswith(("/RECORD", "/")):
                continue
            data = wheel.read(n)
            if n.endswith("/WHEEL"):  # the Generator line names the backend version
                data = re.sub(rb"Generator: [^\n]*\n", b"", data)
            out[n] = hashlib.sha256(data).hexdigest()
        return out


@pytest.mark.parametrize("name", DISTS)
def test_sdist_stands_alone_and_rebuilds_the_same_wheel(name: str, built: Built) -> None:
    sdist = built.sdist(name)
    with tarfile.open(sdist) as archive:
        members = archive.getnames()
    base = members[0].split("/")[0]
    for required in ("LICENSE", "README.md", "PKG-INFO", "pyproject.toml"):
        assert f"{base}/{required}" in members
    empty = built.work / "rebuild" / name
    empty.mkdir(parents=True)
    copy = shutil.copy(sdist, empty)
    ok(run([uv(), "build", "--wheel", "-q", "-o", empty / "out", copy], cwd=empty))
    rebuilt = next((empty / "out").glob("*.whl"))
    assert _content(rebuilt) == _content(built.wheel(name))


@pytest.fixture(scope="module")
def tools_python(venvs: Venvs) -> Path:
    return venvs.get("tools", ["twine", "trove-classifiers"])


def test_twine_check_strict(built: Built, tools_python: Path) -> None:
    files = sorted([*built.dist.glob("*.whl"), *built.dist.glob("*.tar.gz")])
    out = ok(run([tools_python, "-m", "twine", "check", "--strict", *files]))
    assert out.count("PASSED") == len(files), out


def test_classifiers_are_valid(built: Built, tools_python: Path) -> None:
    valid = set(
        ok(
            run(
                [
                    tools_python,
                    "-c",
                    "import trove_classifiers as t; print(*t.classifiers, sep='\\n')",
                ]
            )
        ).splitlines()
    )
    for name in DISTS:
        classifiers = built.metadata(name).get_all("Classifier") or []
        assert classifiers
        assert set(classifiers) <= valid, (name, set(classifiers) - valid)
        assert "Typing :: Typed" in classifiers


def _slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _repo_path(url: str) -> Path | None:
    match = re.match(rf"{re.escape(REPO_URL)}/(?:blob|tree)/main/([^#?]*)", url)
    if match:
        return ROOT / match.group(1)
    match = re.match(rf"{re.escape(DOCS_URL)}([^#?]*)", url)
    if match:
        page = match.group(1).rstrip("/")
        return ROOT / "docs" / (f"{page}.md" if page else "index.md")
    return None


@pytest.mark.parametrize("name", DISTS)
def test_long_description_and_urls_stand_alone(name: str, built: Built) -> None:
    meta = built.metadata(name)
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta["License-Expression"] == "MIT"
    body = str(meta.get_payload())
    prose = re.sub(r"^```.*?^```", "", body, flags=re.S | re.M)  # links in code are not links
    links = re.findall(r"\]\(([^)\s]+)\)", prose) + re.findall(r'(?:href|src)="([^"]+)"', prose)
    links += re.findall(r"^\[[^\]]+\]:\s*(\S+)", prose, flags=re.M)
    slugs = {_slug(h) for h in re.findall(r"^#+\s+(.*)$", body, flags=re.M)}
    for link in links:
        if link.startswith("#"):
            assert link[1:] in slugs, f"{name}: anchor {link} names no heading"
            continue
        assert re.match(r"https?://", link), f"{name}: relative link {link} breaks on the index"
        path = _repo_path(link)
        if path is not None:
            assert path.exists(), f"{name}: {link} -> {path} does not exist"
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert {"Homepage", "Repository", "Documentation", "Changelog", "Issues"} <= set(urls)
    for label in ("Documentation", "Changelog"):
        path = _repo_path(urls[label])
        assert path is not None, f"{name}: {label} {urls[label]}"
        assert path.exists(), f"{name}: {label} {urls[label]}"


@pytest.mark.parametrize("name", DISTS)
def test_version_attribute_matches_metadata(name: str, venvs: Venvs) -> None:
    python = venvs.minimal(name)
    code = (
        "import importlib, importlib.metadata as m, robota; "
        f"v = importlib.import_module('robota.{PACKAGES[name][1]}').__version__; "
        f"assert v == m.version('{name}'), v; "
        "assert getattr(robota, '__file__', None) is None, robota.__file__; print(v)"
    )
    assert ok(run([python, "-c", code])).strip() == str(VERSIONS[name])


def test_namespace_survives_many_portions_and_an_uninstall(built: Built, venvs: Venvs) -> None:
    python = venvs.get(
        "namespace", [built.wheel("robota-agent-cli"), "robota-agent-plugin", "robota-agent-evals"]
    )
    portions = [p for n, (_, p) in PACKAGES.items() if n != "robota-agent-durable-dbos"]
    ok(run([python, "-c", "; ".join(f"import robota.{p}" for p in portions)]))
    ok(run([uv(), "pip", "uninstall", "-q", "-p", python, "robota-agent-provider-google"]))
    rest = [p for p in portions if p != "providers.google"]
    ok(run([python, "-c", "; ".join(f"import robota.{p}" for p in rest)]))


def test_cli_entry_point_from_a_cli_only_venv(built: Built, venvs: Venvs) -> None:
    python = venvs.minimal("robota-agent-cli")
    robota = python.parent / "robota"
    home = built.work / "cli-home"
    home.mkdir(exist_ok=True)
    assert "usage: robota" in ok(run([robota, "--help"], HOME=str(home)))
    version = ok(run([robota, "--version"], HOME=str(home))).strip()
    assert version == f"robota {VERSIONS['robota-agent-cli']}", version
    proc = run([robota, "run", "hi"], cwd=home, HOME=str(home))
    assert proc.returncode == 3, (proc.returncode, proc.stderr)
    assert "no provider is configured" in proc.stderr
    assert "OPENAI_API_KEY" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_requires_python_refuses_310(built: Built, venvs: Venvs) -> None:
    python310 = interpreter(10)
    if python310 is None:
        pytest.skip("no Python 3.10 here")
    python = venvs.get("py310", [], python=python310)
    proc = run([uv(), "pip", "install", "-p", python, built.wheel("robota-agent-core")])
    assert proc.returncode != 0
    assert "3.11" in proc.stderr


# --- class 6: extras ---------------------------------------------------------------------------

_EXTRAS_WITHOUT = r"""
import sys
which = sys.argv[1]
try:
    if which == "tools-mcp":
        from robota.tools.mcp import McpToolset
    elif which == "plugin-otel":
        from robota.plugins import OpenTelemetrySink
    elif which == "plugin-prices":
        from robota.plugins import genai_price
        genai_price("openai")
    elif which == "core-cassettes":
        from robota.core.testing.cassette import load_cassette
        load_cassette(sys.argv[2])
    elif which == "openai-replay":
        from robota.core.testing.cassette import load_cassette
        from robota.providers.openai.replay import replay_provider
        replay_provider(load_cassette(sys.argv[2]))
    elif which == "core-keyring":
        from robota.core.host.credentials import KeyringCredentialStore
        KeyringCredentialStore().get("svc", "acct")
    elif which == "evals-record":
        import os, tempfile
        from robota.evals.recording import record_cassette
        with record_cassette(os.path.join(tempfile.mkdtemp(), "c.yaml"), mode="overwrite"):
            pass
except Exception as error:
    print(type(error).__name__)
    print(error)
else:
    print("NO ERROR")
"""

EXTRA_CASES = {
    "tools-mcp": ("robota-agent-tools", 'pip install "robota-agent-tools[mcp]"'),
    "plugin-otel": ("robota-agent-plugin", 'pip install "robota-agent-plugin[otel]"'),
    "plugin-prices": ("robota-agent-plugin", 'pip install "robota-agent-plugin[prices]"'),
    "core-cassettes": ("robota-agent-core", 'pip install "robota-agent-core[cassettes]"'),
    "openai-replay": ("robota-agent-provider-openai", 'pip install "robota-agent-core[cassettes]"'),
    "core-keyring": ("robota-agent-core", 'pip install "robota-agent-core[keyring]"'),
    "evals-record": ("robota-agent-evals", 'pip install "robota-agent-evals[record]"'),
}


@pytest.mark.parametrize("case", sorted(EXTRA_CASES))
def test_missing_extra_is_a_clear_error_naming_it(case: str, built: Built, venvs: Venvs) -> None:
    name, hint = EXTRA_CASES[case]
    python = venvs.minimal(name)
    cassette = str(CASSETTES / "openai_chat_read_file.yaml")
    out = ok(run([python, script(built, "extras_without.py", _EXTRAS_WITHOUT), case, cassette]))
    kind, _, message = out.partition("\n")
    assert kind in ("MissingExtraError", "CredentialStoreError"), out
    assert hint in message, out


@pytest.mark.parametrize(
    ("target", "check"),
    [
        ("robota-agent-tools[mcp]", "extra:mcp"),
        ("robota-agent-plugin[otel,prices]", "extra:plugin"),
        ("robota-agent-core[cassettes,keyring]", "extra:core"),
    ],
)
def test_with_the_extra_the_feature_works(
    target: str, check: str, built: Built, venvs: Venvs
) -> None:
    python = venvs.get(f"extra-{target}", [target])
    exercise(python, built, target.partition("[")[0], check)


# --- class 7: the Python matrix ------------------------------------------------------------------


def test_python_matrix_core_openai_tools(built: Built, venvs: Venvs) -> None:
    ran: list[int] = []
    for minor in (11, 12, 13):
        found = interpreter(minor)
        if found is None:
            continue
        python = venvs.get(
            f"matrix-3.{minor}",
            ["robota-agent-core", "robota-agent-provider-openai", "robota-agent-tools"],
            python=found,
        )
        version = ok(run([python, "-c", "import sys; print(sys.version_info[1])"])).strip()
        assert version == str(minor)
        for folder in ("agent-core", "agent-provider-openai", "agent-tools"):
            out = ok(run([python, ROOT / "packages" / folder / "smoke.py"], cwd=built.work))
            assert "smoke ok" in out
        ok(run([uv(), "pip", "check", "-p", python]))
        ran.append(minor)
    assert 11 in ran, f"no Python 3.11 found; ran {ran}"
