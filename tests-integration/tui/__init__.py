"""Driving ``robota chat`` in a terminal as a person would, for the tests in this folder and
``tools/capture_screens.py``: a private tmux server per program (:class:`TmuxPane`), a scripted
Chat Completions server on 127.0.0.1 (:class:`ScriptedModel`), a throwaway robota home and
workspace (:class:`Desk`) and the chat's input line on the screen (:func:`prompt_back`).
"""

from .desk import ROBOTA, Desk
from .model import MODEL, Reply, ScriptedModel, hang, text, tool_calls
from .prompt import PROMPT, prompt_back, prompt_rows, wait_prompt
from .tmux import TmuxMissingError, TmuxPane, require_tmux

__all__ = [
    "MODEL",
    "PROMPT",
    "ROBOTA",
    "Desk",
    "Reply",
    "ScriptedModel",
    "TmuxMissingError",
    "TmuxPane",
    "hang",
    "prompt_back",
    "prompt_rows",
    "require_tmux",
    "text",
    "tool_calls",
    "wait_prompt",
]
