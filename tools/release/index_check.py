"""Install the packages piecemeal from a real local index, as a downstream product would.

Usage (CI calls it through ``.ci/index-check``, after the tests)::

    python tools/release/index_check.py [--work DIR] [--jobs N] [--installer auto|pip|uv]

1. Builds every sdist and wheel (``uv build --all-packages``; each wheel is built from its sdist).
2. Starts ``pypiserver`` on 127.0.0.1 (a free port, its own throwaway venv) that falls back to
   PyPI only for names it does not hold, and uploads every file with ``twine upload``. So a
   ``robota-agent-*`` name is served from the local files only, never from PyPI; every installed
   robota distribution is also checked against the built wheel (same METADATA bytes).
3. For every interpreter found (this one, and pyenv's 3.11+ when present; uv never downloads
   one) and every subset of :data:`SUBSETS`, creates a fresh venv outside the workspace and
   installs the subset by distribution name from that index: real ``pip`` (seeded by
   ``uv venv --seed``, cache in ``.cache/pip``) on the row of the running interpreter, ``uv pip``
   on the others unless ``--installer pip``. Every installed robota distribution must be the
   wheel built here; for the subsets marked exact, the installed robota distributions must be
   exactly the ones asked for and none of :data:`FORBIDDEN` may come along. Then, from a
   directory outside the checkout: each installed robota package's ``smoke.py``, ``pip check``;
   then the asked packages are installed again with all their extras (plus what their READMEs
   tell the reader to add), ``pip check`` again, and the Python blocks of their READMEs as
   shipped in the wheel run (``tools/docs/codeblocks.py run``). A subset that cannot work on an
   interpreter for a reason outside the project (:func:`not_supported`) is listed, not run.
4. Prints one line per run, the failing runs' output, then ``index: packages=P subsets=N ok=M``
   and ``python matrix: ...``; exits 1 when any run failed, 2 when the set-up failed.

Standard library only; ``uv`` must be on PATH. The server is stopped on every exit path.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import email.parser
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import urllib.error
import urllib.request
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CODEBLOCKS = REPO / "tools" / "docs" / "codeblocks.py"
PYPI_SIMPLE = "https://pypi.org/simple/"
SERVER_REQUIREMENTS = ("pypiserver>=2.3,<3", "twine>=6")


@dataclass(frozen=True, slots=True)
class Subset:
    """What a downstream product asks for; ``exact``: nothing else of ours may come along;
    ``readme_needs``: what the asked packages' READMEs tell the reader to install besides them
    and their extras (installed before the README examples run)."""

    name: str
    asks: tuple[str, ...]
    exact: bool = False
    readme_needs: tuple[str, ...] = ()


SUBSETS = (
    Subset("core", ("robota-agent-core",), exact=True),
    Subset("core+openai", ("robota-agent-core", "robota-agent-provider-openai"), exact=True),
    Subset("core+anthropic", ("robota-agent-core", "robota-agent-provider-anthropic")),
    Subset("core+google", ("robota-agent-core", "robota-agent-provider-google")),
    Subset("core+tools", ("robota-agent-core", "robota-agent-tools")),
    Subset("core+session", ("robota-agent-core", "robota-agent-session")),
    Subset(
        "core+plugin",
        ("robota-agent-core", "robota-agent-plugin"),
        readme_needs=("opentelemetry-sdk",),  # the host picks the SDK; the example uses it
    ),
    Subset("executor", ("robota-agent-executor",)),
    Subset("durable-dbos", ("robota-agent-durable-dbos",)),
    Subset("framework+cli", ("robota-agent-framework", "robota-agent-cli")),
    # evaluations alone: core, the plugin's telemetry and the OpenTelemetry SDK come along
    Subset("evals", ("robota-agent-evals",)),
)

FORBIDDEN = (
    "mcp",
    "opentelemetry-api",
    "dbos",
    "anthropic",
    "google-genai",
    "starlette",
    "uvicorn",
)
"""Heavy third-party distributions an exact subset must not pull in."""

# Variables that would point an installer at another index, add packages or leak into a venv.
_DROPPED_ENV = re.compile(
    r"^(PIP_|UV_|TWINE_|PYTHONPATH$|PYTHONHOME$|PYTHONSTARTUP$|PYTHONUSERBASE$|VIRTUAL_ENV$"
    r"|CONDA_PREFIX$|ANTHROPIC_|OPENAI_|GEMINI_|GOOGLE_API_KEY$|ROBOTA_)"
)
_KEPT_ENV = {"PIP_CERT", "PIP_DEFAULT_TIMEOUT", "PIP_CACHE_DIR", "UV_CACHE_DIR"}

_INVENTORY = """
import hashlib, json, re
from importlib.metadata import distributions
found = {}
for dist in distributions():
    name = re.sub(r"[-_.]+", "-", dist.metadata["Name"]).lower()
    meta = [f for f in dist.files or () if f.name == "METADATA" and f.parent.name.endswith(".dist-info")]
    digest = hashlib.sha256(meta[0].locate().read_bytes()).hexdigest() if meta else None
    found[name] = {"version": dist.version, "metadata_sha256": digest}
print(json.dumps(found))
"""


def normalize(name: str) -> str:
    """PEP 503 name normalization."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True, slots=True)
class Built:
    """One package as built: its distribution name, version, folder, files and METADATA."""

    name: str
    version: str
    folder: str
    wheel: Path
    sdist: Path
    metadata: bytes
    extras: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Interpreter:
    """A Python found on this machine; ``pip``: its row installs with real pip."""

    path: str
    version: str
    pip: bool
    sqlite: tuple[int, ...] = (0,)


@dataclass
class Outcome:
    """The result of one subset on one interpreter."""

    subset: Subset
    python: Interpreter
    ok: bool = False
    seconds: float = 0.0
    installed: int = 0
    failed_step: str = ""
    log: list[str] = field(default_factory=list[str])


class SetupError(Exception):
    """The check could not be set up (build, server, upload)."""


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for every child: no index, config or key of the caller's leaks in."""
    env = {k: v for k, v in os.environ.items() if k in _KEPT_ENV or not _DROPPED_ENV.match(k)}
    env.update(
        PIP_CONFIG_FILE=os.devnull,
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_INPUT="1",
        PIP_CACHE_DIR=os.environ.get("PIP_CACHE_DIR") or str(REPO / ".cache" / "pip"),
        UV_NO_CONFIG="1",
        UV_PYTHON_DOWNLOADS="never",
        PYTHONNOUSERSITE="1",
    )
    env.update(extra)
    return env


class _Children:
    """The commands running now, so that an interrupted check stops them and starts no more."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: set[subprocess.Popen[str]] = set()
        self.stopping = False

    def start(
        self, argv: list[str], cwd: Path | None, env: dict[str, str]
    ) -> subprocess.Popen[str]:
        with self.lock:
            if self.stopping:
                raise InterruptedError("the index check is stopping")
            process = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,  # its own process group: killed with its children
            )
            self.running.add(process)
            return process

    def finish(self, process: subprocess.Popen[str], timeout: float) -> tuple[int, str]:
        try:
            output = process.communicate(timeout=timeout)[0]
            status = process.returncode
        except subprocess.TimeoutExpired:
            self.kill(process)
            output = process.communicate()[0] + f"\n[timed out after {timeout} s]"
            status = 124
        finally:
            with self.lock:
                self.running.discard(process)
        return status, output

    @staticmethod
    def kill(process: subprocess.Popen[str]) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)

    def stop_all(self) -> None:
        with self.lock:
            self.stopping = True
            for process in self.running:
                self.kill(process)


CHILDREN = _Children()


def run(
    argv: Sequence[str | os.PathLike[str]],
    *,
    log: list[str] | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    """Run a command; its command line and output go to ``log`` (when given)."""
    command = [str(a) for a in argv]
    began = time.monotonic()
    process = CHILDREN.start(command, cwd, dict(env) if env is not None else clean_env())
    status, output = CHILDREN.finish(process, timeout)
    if log is not None:
        log.append(f"$ {' '.join(command)}  (exit {status}, {time.monotonic() - began:.1f} s)")
        if output.strip():
            log.append(output.rstrip())
    return subprocess.CompletedProcess(command, status, output)


# --- interpreters -------------------------------------------------------------------------


def pyenv_root() -> Path | None:
    if os.environ.get("PYENV_ROOT"):
        return Path(os.environ["PYENV_ROOT"])
    if shutil.which("pyenv"):
        done = run(["pyenv", "root"], env=os.environ, timeout=30)
        if done.returncode == 0 and done.stdout.strip():
            return Path(done.stdout.strip().splitlines()[-1])
    default = Path.home() / ".pyenv"
    return default if default.is_dir() else None


def find_interpreters(installer: str) -> list[Interpreter]:
    """This interpreter, then one per other minor version >= 3.11 under pyenv."""
    candidates = [sys.executable]
    root = pyenv_root()
    if root is not None:
        pattern = str(root / "versions" / "3.*" / "bin" / "python3.*")
        candidates += sorted(p for p in glob.glob(pattern) if re.search(r"python3\.\d+$", p))
    found: dict[tuple[int, int], Interpreter] = {}
    probe = (
        "import platform, sqlite3, sys; "
        "print(platform.python_version(), *sys.version_info[:2], sqlite3.sqlite_version)"
    )
    for path in candidates:
        done = run([path, "-c", probe], timeout=30)
        if done.returncode != 0:
            continue
        version, major, minor, sqlite = done.stdout.split()
        key = (int(major), int(minor))
        if key < (3, 11) or key in found:
            continue
        own = path == sys.executable
        sqlite_version = tuple(int(part) for part in sqlite.split("."))
        pip = (own or installer == "pip") and installer != "uv"
        found[key] = Interpreter(path, version, pip=pip, sqlite=sqlite_version)
    return [i for _, i in sorted(found.items())]


def not_supported(subset: Subset, python: Interpreter) -> str | None:
    """Why a subset cannot run on an interpreter for a reason outside this project, or None."""
    minor = tuple(int(p) for p in python.version.split(".")[:2])
    if "robota-agent-durable-dbos" in subset.asks and minor >= (3, 12) and python.sqlite < (3, 42):
        # dbos (3.4) creates its SQLite tables with DEFAULT (unixepoch('subsec') * 1000) on
        # Python >= 3.12; SQLite < 3.42 evaluates it to NULL, so DBOS.launch() fails with
        # "NOT NULL constraint failed: application_versions.version_timestamp".
        sqlite = ".".join(map(str, python.sqlite))
        return f"dbos needs SQLite >= 3.42 on Python >= 3.12; this Python links SQLite {sqlite}"
    return None


# --- build and index ----------------------------------------------------------------------


def package_folders() -> dict[str, str]:
    """Distribution name -> folder under packages/."""
    folders: dict[str, str] = {}
    for pyproject in sorted(REPO.glob("packages/*/pyproject.toml")):
        name = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["name"]
        folders[normalize(name)] = pyproject.parent.name
    return folders


def build(dist: Path) -> dict[str, Built]:
    done = run(["uv", "build", "--all-packages", "--no-progress", "-o", dist], cwd=REPO)
    if done.returncode != 0:
        raise SetupError(f"uv build failed:\n{done.stdout}")
    folders = package_folders()
    built: dict[str, Built] = {}
    for wheel in sorted(dist.glob("*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            meta_name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
            metadata = archive.read(meta_name)
        headers = email.parser.BytesHeaderParser().parsebytes(metadata)
        name, version = normalize(str(headers["Name"])), str(headers["Version"])
        stem = f"{name.replace('-', '_')}-{version}"
        sdist = dist / f"{stem}.tar.gz"
        if not sdist.is_file() or name not in folders:
            raise SetupError(f"{wheel.name}: no sdist {sdist.name} or no package folder")
        extras = tuple(str(e) for e in headers.get_all("Provides-Extra") or ())
        built[name] = Built(name, version, folders[name], wheel, sdist, metadata, extras)
    if set(built) != set(folders):
        raise SetupError(f"built {sorted(built)}, expected {sorted(folders)}")
    return built


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fetch(url: str) -> tuple[int, str]:
    """GET without following redirects: (status, body)."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(url, timeout=10) as response:
            return int(response.status), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""


class IndexServer:
    """pypiserver on 127.0.0.1 in its own venv; ``stop()`` kills its process group."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.venv = work / "index-venv"
        self.packages = work / "index-packages"
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def install(self) -> None:
        steps = [
            ["uv", "venv", "-q", "--python", sys.executable, self.venv],
            [
                "uv",
                "pip",
                "install",
                "-q",
                "--python",
                self.venv / "bin" / "python",
                "--index-url",
                PYPI_SIMPLE,
                *SERVER_REQUIREMENTS,
            ],
        ]
        for argv in steps:
            done = run(argv)
            if done.returncode != 0:
                raise SetupError(f"index server venv: {done.stdout}")

    def start(self) -> None:
        self.packages.mkdir(parents=True, exist_ok=True)
        for _attempt in range(3):
            port = free_port()
            log = (self.work / "index-server.log").open("wb")
            self.process = subprocess.Popen(
                [
                    self.venv / "bin" / "pypi-server",
                    "run",
                    "-i",
                    "127.0.0.1",
                    "-p",
                    str(port),
                    "-a",
                    ".",
                    "-P",
                    ".",
                    "--fallback-url",
                    PYPI_SIMPLE,
                    "--health-endpoint",
                    "/health",
                    self.packages,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=clean_env(),
                start_new_session=True,
            )
            (self.work / "index-server.pid").write_text(str(self.process.pid))
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and self.process.poll() is None:
                try:
                    if fetch(f"http://127.0.0.1:{port}/health")[0] == 200:
                        self.url = f"http://127.0.0.1:{port}/"
                        return
                except OSError:
                    pass
                time.sleep(0.2)
            self.stop()
        log_text = (self.work / "index-server.log").read_text(errors="replace")
        raise SetupError(f"pypiserver did not start:\n{log_text}")

    def upload(self, built: Mapping[str, Built]) -> None:
        files = [p for b in built.values() for p in (b.sdist, b.wheel)]
        twine = self.venv / "bin" / "twine"
        done = run(
            [
                twine,
                "upload",
                "--repository-url",
                self.url,
                "-u",
                "robota",
                "-p",
                "-",
                "--non-interactive",
                "--disable-progress-bar",
                *files,
            ]
        )
        if done.returncode != 0:
            raise SetupError(f"twine upload failed:\n{done.stdout}")
        for b in built.values():  # the index now serves exactly our files, by their hashes
            status, page = fetch(f"{self.url}simple/{b.name}/")
            for path in (b.sdist, b.wheel):
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                if status != 200 or f"{path.name}#sha256={digest}" not in page:
                    raise SetupError(f"index does not serve {path.name} (status {status})")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None


# --- one subset on one interpreter --------------------------------------------------------


def check_subset(
    subset: Subset, python: Interpreter, built: Mapping[str, Built], index: str, work: Path
) -> Outcome:
    outcome = Outcome(subset, python)
    started = time.monotonic()
    try:
        outcome.failed_step = _check_subset(outcome, built, index, work)
    except Exception as exc:  # a bug here is a failed run, reported with the others
        outcome.failed_step = f"error: {exc!r}"
    outcome.ok = outcome.failed_step == ""
    outcome.seconds = time.monotonic() - started
    log_file = work / "runs" / f"py{python.version}-{subset.name}.log"
    log_file.parent.mkdir(parents=True, exist_ok=True)
    log_file.write_text("\n".join(outcome.log) + "\n", encoding="utf-8")
    return outcome


def _check_subset(outcome: Outcome, built: Mapping[str, Built], index: str, work: Path) -> str:
    subset, python, log = outcome.subset, outcome.python, outcome.log
    root = work / "runs" / f"py{python.version}-{subset.name}"
    venv, home, cwd = root / "venv", root / "home", root / "cwd"
    home.mkdir(parents=True, mode=0o700)
    cwd.mkdir()
    vpython = venv / "bin" / "python"
    simple = f"{index}simple/"
    if python.pip:
        # uv makes the venv and seeds the real pip into it: ~0.2 s instead of ensurepip's ~8 s,
        # and it works on a Debian python3 without python3-venv.
        create = ["uv", "venv", "-q", "--seed", "--python", python.path, venv]
        install = [vpython, "-m", "pip", "install", "-q", "--no-compile", "--index-url", simple]
        check = [vpython, "-m", "pip", "check"]
    else:
        create = ["uv", "venv", "-q", "--python", python.path, venv]
        install = ["uv", "pip", "install", "-q", "--python", vpython, "--index-url", simple]
        install += [a for name in built for a in ("--refresh-package", name)]
        check = ["uv", "pip", "check", "--python", vpython]
    if run(create, log=log, cwd=cwd).returncode != 0:
        return "venv"
    if run([*install, *subset.asks], log=log, cwd=cwd).returncode != 0:
        return "install"

    done = run([vpython, "-c", _INVENTORY], cwd=cwd)
    if done.returncode != 0:
        log.append(done.stdout)
        return "inventory"
    installed: dict[str, dict[str, str | None]] = json.loads(done.stdout)
    outcome.installed = len(installed)
    ours = sorted(n for n in installed if n.startswith("robota-"))
    log.append(f"installed {len(installed)} distributions; robota: {' '.join(ours)}")
    for name in ours:  # every robota distribution is the one built here, not an impostor
        b = built.get(name)
        digest = installed[name]["metadata_sha256"]
        if b is None or digest != hashlib.sha256(b.metadata).hexdigest():
            log.append(f"{name} {installed[name]['version']} is not the wheel built here")
            return "provenance"
    if not set(subset.asks) <= set(ours):
        return "install"
    if subset.exact:
        extra = sorted(set(ours) - set(subset.asks))
        heavy = sorted(n for n in FORBIDDEN if n in installed)
        if extra or heavy:
            log.append(f"came along unasked: robota {extra}, heavy {heavy}")
            return "nothing-unasked"

    run_env = clean_env(HOME=str(home))
    for name in ours:
        smoke = REPO / "packages" / built[name].folder / "smoke.py"
        done = run([vpython, smoke], log=log, cwd=cwd, env=run_env, timeout=300)
        if done.returncode != 0 or f"smoke ok {name}" not in done.stdout:
            return f"smoke {name}"
    if run(check, log=log, cwd=cwd).returncode != 0:
        return "pip check"

    # The READMEs of the packages asked for, with all their extras (a README documents them).
    with_extras = [f"{n}[{','.join(built[n].extras)}]" for n in subset.asks if built[n].extras]
    if with_extras or subset.readme_needs:
        if run([*install, *with_extras, *subset.readme_needs], log=log, cwd=cwd).returncode != 0:
            return "install extras"
        if run(check, log=log, cwd=cwd).returncode != 0:
            return "pip check (extras)"
    if not CODEBLOCKS.is_file():
        log.append(f"{CODEBLOCKS} is missing")
        return "readmes"
    readmes = [work / "readmes" / built[name].folder / "README.md" for name in subset.asks]
    done = run([vpython, CODEBLOCKS, "run", *readmes], log=log, cwd=cwd, env=run_env, timeout=600)
    return "readmes" if done.returncode != 0 else ""


def write_readmes(built: Mapping[str, Built], work: Path) -> None:
    """Each README as shipped: the body of the wheel's METADATA (same lines as the source)."""
    for b in built.values():
        body = email.parser.BytesParser().parsebytes(b.metadata).get_payload(decode=True)
        if not isinstance(body, bytes) or not body.strip():
            raise SetupError(f"{b.wheel.name} ships no README in its METADATA")
        target = work / "readmes" / b.folder / "README.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)


# --- main ---------------------------------------------------------------------------------


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM: stop the running commands, start no more, leave through ``finally``."""
    del frame
    CHILDREN.stop_all()
    sys.exit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--work", type=Path, help="scratch folder (default: a new temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--jobs", type=int, default=3, help="runs in parallel (default: 3)")
    parser.add_argument(
        "--installer",
        choices=("auto", "pip", "uv"),
        default="auto",
        help="auto: pip on this interpreter's row, uv pip on the others",
    )
    parser.add_argument("--subset", action="append", help="only these subsets (repeatable)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    started = time.monotonic()
    work: Path = args.work or Path(tempfile.mkdtemp(prefix="robota-index-"))
    work.mkdir(parents=True, exist_ok=True)
    server = IndexServer(work)
    subsets = [s for s in SUBSETS if not args.subset or s.name in args.subset]
    try:
        pythons = find_interpreters(args.installer)
        print(
            "interpreters: "
            + ", ".join(f"{p.version} {p.path} ({'pip' if p.pip else 'uv pip'})" for p in pythons)
        )
        mark = time.monotonic()
        built = build(work / "dist")
        write_readmes(built, work)
        print(
            f"built {len(built)} wheels and {len(built)} sdists in {time.monotonic() - mark:.1f} s"
        )
        mark = time.monotonic()
        server.install()
        server.start()
        server.upload(built)
        print(
            f"index {server.url} serves {2 * len(built)} files "
            f"(fallback {PYPI_SIMPLE}) in {time.monotonic() - mark:.1f} s"
        )
        runs: list[tuple[Subset, Interpreter]] = []
        for p in pythons:
            for s in subsets:
                reason = not_supported(s, p)
                if reason is None:
                    runs.append((s, p))
                else:
                    print(f"not run: {s.name} on Python {p.version}: {reason}")
        runs.sort(key=lambda r: (not r[1].pip, -len(r[0].asks), r[0].name != "framework+cli"))
        outcomes: list[Outcome] = []
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs))
        try:
            futures = [pool.submit(check_subset, s, p, built, server.url, work) for s, p in runs]
            for future in concurrent.futures.as_completed(futures):
                o = future.result()
                outcomes.append(o)
                status = "ok  " if o.ok else "FAIL"
                tool = "pip" if o.python.pip else "uv"
                detail = f"  [{o.failed_step}]" if not o.ok else ""
                print(
                    f"{status} py{o.python.version:<7} {o.subset.name:<15} {tool:<3} "
                    f"{o.installed:>3} dists {o.seconds:5.1f} s{detail}",
                    flush=True,
                )
        except BaseException:
            CHILDREN.stop_all()  # Ctrl-C or SIGTERM: no run goes on behind our back
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    except SetupError as exc:
        print(f"index check: set-up failed: {exc}", file=sys.stderr)
        return 2
    finally:
        server.stop()
        if not args.keep and args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    failed = [o for o in outcomes if not o.ok]
    for o in failed:
        print(
            f"\n===== FAILED: {o.subset.name} on Python {o.python.version} "
            f"(step: {o.failed_step}) ====="
        )
        lines = (line for entry in o.log for line in entry.splitlines())
        print("\n".join(line for line in lines if not line.startswith("ok ")))
    print(f"index check took {time.monotonic() - started:.0f} s")
    print(f"index: packages={len(built)} subsets={len(outcomes)} ok={len(outcomes) - len(failed)}")
    print("python matrix: " + " ".join(p.version for p in pythons))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
