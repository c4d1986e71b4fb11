"""Session titles: after the first successful turn, named once with tools disabled (seed 003,
"The session names itself once, and only with text")."""

from robota.framework.title.generate import (
    MAX_TITLE_CHARS,
    TITLE_INSTRUCTION,
    TitleError,
    clean_title,
    generate_title,
)
from robota.framework.title.policy import TitlePolicy

__all__ = [
    "MAX_TITLE_CHARS",
    "TITLE_INSTRUCTION",
    "TitleError",
    "TitlePolicy",
    "clean_title",
    "generate_title",
]
