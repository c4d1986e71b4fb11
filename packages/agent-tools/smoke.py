"""Smoke program of robota-agent-tools: an installed copy's built-in tools, driven by an Agent.

A scripted model reads a file and greps a temporary workspace through ``default_tools``; the
real tools answer from the disk.
"""

import tempfile
from pathlib import Path

from robota.core import Agent, ToolResultMessage
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.tools import Workspace, default_tools

root = Path(tempfile.mkdtemp())
(root / "notes.txt").write_text("alpha\nlaunch code 7319\n")
(root / "src").mkdir()
(root / "src" / "app.py").write_text("LAUNCH = 'later'\n")

provider = ScriptedProvider(
    [
        [
            tool_call("c1", "read_file", {"path": "notes.txt"}),
            tool_call("c2", "grep", {"pattern": "(?i)launch"}),
        ],
        "The code is 7319.",
    ]
)
tools = default_tools(Workspace.at(root))
result = Agent(provider, tools=tools).run_sync("What is the launch code?")
assert result.text == "The code is 7319.", result
batch = result.new_messages[2]
assert isinstance(batch, ToolResultMessage), batch
read, grep = batch.results
assert not read.is_error, read
assert "launch code 7319" in read.text, read
assert "notes.txt" in grep.text, grep
assert "app.py" in grep.text, grep
print("smoke ok robota-agent-tools")
