"""Helpers of the outsider durability attacks (``tests-integration/test_durability_outsider.py``).

* :mod:`.journal_worker` — a journaled agent over SQLite run as a real process that SIGKILLs
  itself at a chosen journal boundary (``OUTSIDER_KILL_AT``), with approvers and tool hooks that
  answer differently in the continuing process, and a two-run residency scenario.
* :mod:`.session_worker` — an ``InteractiveSession`` host run as a real process: holds a
  session's lease, races another process for it, or dies mid-turn.
* :mod:`.kit` — what the tests share: running the workers, reading marker files, the verdict
  of one attempt and the figures line.

Every tool effect, approver question, hook call and model call a worker makes appends one line
to a marker file in its work folder (fsynced), so a test counts them after a SIGKILL.
"""
