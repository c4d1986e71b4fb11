"""Background output files against the outsider red team: a hard-linked output file and an
output folder swapped for a link after the task started are refused on read, and the output
folder's ancestors must not be writable by others."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from robota.core.host.errors import InsecurePermissionsError, UnsafeStoreEntryError
from robota.tools.builtin.background import BackgroundShells

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(os.name == "nt", reason="POSIX links"),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _finished(shells: BackgroundShells, task_id: str) -> None:
    with anyio.fail_after(5):
        while shells.status(task_id).state == "running":  # noqa: ASYNC110 - polls a process
            await anyio.sleep(0.02)


def _victims(base: Path) -> tuple[Path, Path]:
    base.chmod(0o700)
    victims = base / "victims"
    victims.mkdir(mode=0o700)
    victim = victims / "victim.txt"
    victim.write_text("SECRET\n")
    victim.chmod(0o600)
    return victims, victim


def _shared(base: Path) -> Path:
    base.chmod(0o700)
    shared = base / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    return shared


@pytest.mark.parametrize("attack", ["hard_link", "folder_swap"])
async def test_read_refuses_a_replaced_output(tmp_path: Path, attack: str) -> None:
    victims, victim = _victims(tmp_path)
    folder = tmp_path / "out"
    async with BackgroundShells(folder) as shells:
        status = shells.start("echo output", cwd=tmp_path)
        await _finished(shells, status.task_id)
        if attack == "hard_link":
            os.unlink(status.output_path)
            os.link(victim, status.output_path)
        else:
            os.link(victim, victims / status.output_path.name)
            os.rename(folder, tmp_path / "moved")
            os.symlink(victims, folder)
        with pytest.raises(UnsafeStoreEntryError) as caught:
            shells.read(status.task_id, from_start=True)
        assert caught.value.problem == ("hard_link" if attack == "hard_link" else "symlink")
        if attack == "folder_swap":  # a new output file is not created in the victim folder
            with pytest.raises(UnsafeStoreEntryError):
                shells.start("echo again", cwd=tmp_path)
            assert sorted(os.listdir(victims)) == sorted(["victim.txt", status.output_path.name])


async def test_output_folder_under_a_writable_parent_is_refused(tmp_path: Path) -> None:
    shared = _shared(tmp_path)
    async with BackgroundShells(shared / "out") as shells:
        with pytest.raises(InsecurePermissionsError) as caught:
            shells.start("echo output", cwd=tmp_path)
    assert caught.value.path == str(shared)
