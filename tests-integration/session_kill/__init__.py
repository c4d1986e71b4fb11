"""Worker script of ``test_session_kill.py``: an interactive session a test SIGKILLs."""
