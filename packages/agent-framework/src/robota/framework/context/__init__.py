"""Context loading: instruction files and system-prompt assembly."""

from robota.framework.context.instructions import (
    DEFAULT_NAMES,
    InstructionFile,
    assemble_system_prompt,
    discover_instructions,
)

__all__ = ["DEFAULT_NAMES", "InstructionFile", "assemble_system_prompt", "discover_instructions"]
