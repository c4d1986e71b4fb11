"""Behaviour of edit checkpoints over real files (issue: "every file a tool writes can be
restored to its state before the turn")."""

from __future__ import annotations

import doctest
import importlib
import json
import os
import stat
import time
from pathlib import Path

import pytest
from robota.core.agent import Agent
from robota.core.host.errors import PathOutsideRootError
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.core.tools.base import ArgumentKind, PermissionArgument, RiskClass
from robota.core.tools.function import FunctionTool
from robota.framework.checkpoints import (
    CheckpointGate,
    CheckpointNotFoundError,
    CheckpointStore,
    CheckpointStoreError,
)
from robota.tools import EditFileTool, ReadFileTool, Workspace, WriteFileTool


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def canonical(path: Path) -> Path:
    return path.resolve()


def make_agent(root: Path, provider: ScriptedProvider, store: CheckpointStore) -> Agent:
    workspace = Workspace.at(root)
    return Agent(
        provider,
        tools=[WriteFileTool(workspace), EditFileTool(workspace), ReadFileTool(workspace)],
        gates=[CheckpointGate(store, root=workspace.root)],
    )


@pytest.mark.anyio
async def test_restore_puts_edited_files_back_and_deletes_created_ones(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("print('v1')\n")
    (tmp_path / "app.py").chmod(0o640)
    provider = ScriptedProvider(
        [
            [
                tool_call(
                    "c1", "edit_file", {"path": "app.py", "old_string": "v1", "new_string": "v2"}
                ),
                tool_call("c2", "write_file", {"path": "new/notes.md", "content": "hello"}),
                tool_call("c3", "read_file", {"path": "app.py"}),
            ],
            [
                tool_call(
                    "c4", "edit_file", {"path": "app.py", "old_string": "v2", "new_string": "v3"}
                )
            ],
            "done",
        ]
    )
    store = CheckpointStore()
    agent = make_agent(tmp_path, provider, store)

    store.begin_turn("turn-1")
    await agent.run("change things")
    assert (tmp_path / "app.py").read_text() == "print('v3')\n"
    assert (tmp_path / "new" / "notes.md").read_text() == "hello"

    listed = store.list()
    root = canonical(tmp_path)
    # c1 and c2 run in parallel, so which one is recorded first is not fixed: compare the
    # recorded paths as a sorted list (a duplicate or a missing path still fails).
    assert [(c.turn_id, sorted(c.paths)) for c in listed] == [
        ("turn-1", [root / "app.py", root / "new" / "notes.md"])
    ]

    report = store.restore("turn-1")

    assert (tmp_path / "app.py").read_text() == "print('v1')\n"
    assert stat.S_IMODE((tmp_path / "app.py").stat().st_mode) == 0o640
    assert not (tmp_path / "new" / "notes.md").exists()
    assert report.restored == (root / "app.py",)
    assert report.deleted == (root / "new" / "notes.md",)
    assert store.list() == ()


@pytest.mark.anyio
async def test_restoring_an_earlier_turn_rewinds_later_turns_too(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a0")
    provider = ScriptedProvider(
        [
            [tool_call("c1", "write_file", {"path": "a.txt", "content": "a1"})],
            "turn one done",
            [
                tool_call("c2", "write_file", {"path": "a.txt", "content": "a2"}),
                tool_call("c3", "write_file", {"path": "b.txt", "content": "b2"}),
            ],
            "turn two done",
        ]
    )
    store = CheckpointStore()
    agent = make_agent(tmp_path, provider, store)
    store.begin_turn("t1")
    await agent.run("one")
    store.begin_turn("t2")
    await agent.run("two")

    report = store.restore("t1")

    assert (tmp_path / "a.txt").read_text() == "a0"
    assert not (tmp_path / "b.txt").exists()
    assert report.undone_turns == ("t1", "t2")
    with pytest.raises(CheckpointNotFoundError):
        store.restore("t2")


@pytest.mark.anyio
async def test_restoring_the_later_turn_keeps_the_earlier_turns_changes(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a0")
    provider = ScriptedProvider(
        [
            [tool_call("c1", "write_file", {"path": "a.txt", "content": "a1"})],
            "one",
            [tool_call("c2", "write_file", {"path": "a.txt", "content": "a2"})],
            "two",
        ]
    )
    store = CheckpointStore()
    agent = make_agent(tmp_path, provider, store)
    store.begin_turn("t1")
    await agent.run("one")
    store.begin_turn("t2")
    await agent.run("two")

    store.restore("t2")

    assert (tmp_path / "a.txt").read_text() == "a1"
    assert [c.turn_id for c in store.list()] == ["t1"]


@pytest.mark.anyio
async def test_a_contributed_modify_tool_is_checkpointed_and_an_inspect_tool_is_not(
    tmp_path: Path,
) -> None:
    target = tmp_path / "data.json"
    target.write_text("{}")

    def save(path: str, text: str) -> str:
        (tmp_path / path).write_text(text)
        return "saved"

    def peek(path: str) -> str:
        return (tmp_path / path).read_text()

    contributed = FunctionTool(
        save,
        risk=RiskClass.MODIFY,
        permission_argument=PermissionArgument(key="path", kind=ArgumentKind.PATH),
    )
    inspector = FunctionTool(peek, risk=RiskClass.INSPECT, permission_argument=("path", "path"))
    provider = ScriptedProvider(
        [
            [
                tool_call("c1", "peek", {"path": "data.json"}),
                tool_call("c2", "save", {"path": "data.json", "text": '{"x": 1}'}),
            ],
            "ok",
        ]
    )
    store = CheckpointStore()
    agent = Agent(
        provider, tools=[inspector, contributed], gates=[CheckpointGate(store, root=tmp_path)]
    )

    await agent.run("save it")  # no begin_turn: the run id names the turn

    [checkpoint] = store.list()
    assert checkpoint.turn_id.startswith("run_")
    assert checkpoint.paths == (canonical(target),)
    store.restore(checkpoint.turn_id)
    assert target.read_text() == "{}"


def test_a_file_is_snapshotted_once_per_turn(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("first")
    store = CheckpointStore()
    store.begin_turn("t")

    assert store.snapshot(target) is True
    target.write_text("second")
    assert store.snapshot(target) is False
    target.write_text("third")

    store.restore("t")
    assert target.read_text() == "first"


def test_persisted_checkpoints_are_owner_only_and_survive_a_new_store(tmp_path: Path) -> None:
    folder = tmp_path / "state" / "checkpoints"
    target = tmp_path / "doc.txt"
    target.write_bytes(b"\x00binary before\xff")
    store = CheckpointStore(folder)
    store.begin_turn("turn-a")
    store.snapshot(target)
    store.snapshot(tmp_path / "created.txt")
    target.write_bytes(b"after")
    (tmp_path / "created.txt").write_text("created later")

    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert sorted(p.name for p in files) == ["0.bin", "manifest.json"]
    assert {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o600}

    reopened = CheckpointStore(folder)
    assert [c.turn_id for c in reopened.list()] == ["turn-a"]
    reopened.restore("turn-a")

    assert target.read_bytes() == b"\x00binary before\xff"
    assert not (tmp_path / "created.txt").exists()
    assert list(folder.iterdir()) == []


def test_a_corrupt_manifest_is_an_error_not_an_empty_store(tmp_path: Path) -> None:
    folder = tmp_path / "checkpoints"
    store = CheckpointStore(folder)
    store.begin_turn("t")
    (folder / "000001" / "manifest.json").write_text("{not json")

    with pytest.raises(CheckpointStoreError, match="manifest"):
        CheckpointStore(folder)


def test_snapshot_without_a_turn_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="begin_turn"):
        CheckpointStore().snapshot(tmp_path / "x")


def test_restore_never_writes_through_a_hard_link(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("outside")
    (root / "a.txt").write_text("before")
    store = CheckpointStore(workspace=Workspace.at(root))
    store.begin_turn("t")
    assert store.snapshot(canonical(root / "a.txt")) is True
    (root / "a.txt").unlink()
    os.link(victim, root / "a.txt")  # the path now shares the outside file's inode

    report = store.restore("t")

    assert report.restored == (canonical(root / "a.txt"),)
    assert (root / "a.txt").read_text() == "before"
    assert victim.read_text() == "outside"


def test_a_workspace_store_neither_records_nor_restores_outside_paths(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_text("outside")
    (root / "sub" / "a.txt").write_text("before")
    folder = tmp_path / "state"
    workspace = Workspace.at(root)
    store = CheckpointStore(folder, workspace=workspace)
    store.begin_turn("t")

    assert store.snapshot(canonical(outside / "a.txt")) is False
    assert store.snapshot(canonical(root / "sub" / "a.txt")) is True
    # Another process swaps the folder for a symlink leading outside before the restore.
    (root / "sub").rename(root / "real-sub")
    os.symlink(outside, root / "sub")
    with pytest.raises(PathOutsideRootError):
        CheckpointStore(folder, workspace=workspace).restore("t")
    assert (outside / "a.txt").read_text() == "outside"

    # A manifest edited on disk to name an outside file is refused the same way.
    manifest = next(folder.glob("*/manifest.json"))
    data = json.loads(manifest.read_text())
    data["files"][0]["path"] = str(canonical(outside / "a.txt"))
    manifest.write_text(json.dumps(data))
    with pytest.raises(PathOutsideRootError):
        CheckpointStore(folder, workspace=workspace).restore("t")
    assert (outside / "a.txt").read_text() == "outside"


def test_a_fifo_is_not_recorded_and_does_not_block(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    store = CheckpointStore(workspace=Workspace.at(tmp_path))
    store.begin_turn("t")
    started = time.monotonic()
    assert store.snapshot(canonical(tmp_path / "pipe")) is False
    assert CheckpointStore().snapshot(canonical(tmp_path / "pipe"), "t") is False
    assert time.monotonic() - started < 2


@pytest.mark.parametrize("module", ["robota.framework.checkpoints.store"])
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0
    assert result.failed == 0


# --- outsider red team: hard-linked blob, folder swapped after the check ----------------------


@pytest.mark.skipif(os.name == "nt", reason="POSIX links")
def test_restore_refuses_a_hard_linked_blob(tmp_path: Path) -> None:
    from robota.core.host.errors import UnsafeStoreEntryError

    tmp_path.chmod(0o700)
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "note.txt").write_text("note\n")
    victim = tmp_path / "victim.txt"
    victim.write_text("SECRET\n")
    victim.chmod(0o600)
    workspace = Workspace.at(tmp_path / "ws")
    try:
        store = CheckpointStore(tmp_path / "cp", workspace=workspace)
        store.begin_turn("t1")
        store.snapshot(workspace.root / "note.txt")
        blob = tmp_path / "cp" / "000001" / "0.bin"
        blob.unlink()
        os.link(victim, blob)
        with pytest.raises(UnsafeStoreEntryError) as caught:
            CheckpointStore(tmp_path / "cp", workspace=workspace).restore("t1")
        assert caught.value.problem == "hard_link"
        assert (tmp_path / "ws" / "note.txt").read_text() == "note\n"
    finally:
        workspace.close()


@pytest.mark.skipif(os.name == "nt", reason="POSIX links")
def test_checkpoint_folder_swapped_for_a_link_is_refused(tmp_path: Path) -> None:
    from robota.core.host.errors import UnsafeStoreEntryError

    tmp_path.chmod(0o700)
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "note.txt").write_text("note\n")
    victims = tmp_path / "victims"
    (victims / "000001").mkdir(parents=True, mode=0o700)
    (victims / "000001" / "keep.txt").write_text("keep\n")
    workspace = Workspace.at(tmp_path / "ws")
    try:
        store = CheckpointStore(tmp_path / "cp", workspace=workspace)
        store.begin_turn("t1")
        os.rename(tmp_path / "cp", tmp_path / "moved")
        os.symlink(victims, tmp_path / "cp")
        with pytest.raises(UnsafeStoreEntryError):
            store.discard("t1")
        with pytest.raises(UnsafeStoreEntryError):
            store.begin_turn("t2")
    finally:
        workspace.close()
    assert sorted(os.listdir(victims)) == ["000001"]
    assert (victims / "000001" / "keep.txt").read_text() == "keep\n"
