"""Smoke program of robota-agent-executor: an installed copy runs background tasks.

Two tasks run under a concurrency limit of one; one completes, one fails, and the owner's exit
notifications name both.
"""

import anyio
import anyio.lowlevel
from robota.executor import ExecutionContext, TaskHandle, TaskState


async def main() -> None:
    async with ExecutionContext(max_concurrent=1) as ctx:

        async def index(handle: TaskHandle) -> str:
            await anyio.lowlevel.checkpoint()
            return "indexed 3 files"

        async def broken(handle: TaskHandle) -> str:
            raise RuntimeError("disk on fire")

        good = ctx.submit(index, owner="run_1", description="index the repository")
        bad = ctx.submit(broken, owner="run_1", description="a task that fails")
        assert (await ctx.wait(good)).result == "indexed 3 files"
        assert (await ctx.wait(bad)).state is TaskState.FAILED
        exits = ctx.drain_exits("run_1")
        assert sorted(e.task.id for e in exits) == sorted([good, bad]), exits
        assert ctx.drain_exits("run_1") == []  # drained once


anyio.run(main)
print("smoke ok robota-agent-executor")
