"""``/resume [ID]`` in ``robota chat``: continue a stored session in the running chat.

Without an id, a numbered list of the most recent sessions (title, age, message count) is shown
and a number is read from the prompt (empty line or Ctrl-C: nothing changes). With an id, or a
prefix only one recent session's id starts with, that session is resumed
(:meth:`~robota.framework.interactive.InteractiveSession.resume`, the same as ``robota chat
--resume ID``: its messages, under its id, with the chat's current model, permission mode and
hosted tools) and the following turns continue it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from robota.cli.line_input import InputInterrupted
from robota.cli.slash import Chat, show
from robota.cli.terminal_text import shown
from robota.cli.turn import say
from robota.core.errors import RobotaError
from robota.framework.interactive import InteractiveSession
from robota.session import SessionSummary

__all__ = ["PICKER_SIZE", "age", "match_session", "picker_lines", "resume_command"]

PICKER_SIZE = 10
"""How many recent sessions the picker lists."""
_SEARCHED = 1000  # recent sessions an id prefix is matched against


def age(when: datetime, now: datetime | None = None) -> str:
    """How long ago ``when`` was, in the largest whole unit.

    Example:
        >>> now = datetime(2025, 1, 2, 12, 0, tzinfo=UTC)
        >>> [age(datetime(2025, 1, 2, 11, 59, 40, tzinfo=UTC), now),
        ...  age(datetime(2025, 1, 2, 11, 15, tzinfo=UTC), now),
        ...  age(datetime(2025, 1, 2, 9, 0, tzinfo=UTC), now),
        ...  age(datetime(2024, 12, 30, 12, 0, tzinfo=UTC), now)]
        ['just now', '45 min ago', '3 h ago', '3 days ago']
    """
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = ((now or datetime.now(UTC)) - when).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    days = int(seconds // 86400)
    return "1 day ago" if days == 1 else f"{days} days ago"


def picker_lines(rows: Sequence[SessionSummary], now: datetime | None = None) -> list[str]:
    """The numbered list: ``  1. title — age, N messages  (id)``; the title (a model wrote it)
    and the id through :func:`~robota.cli.terminal_text.shown`."""
    return [
        f"  {number:>2}. {shown(row.title or '(untitled)')} — {age(row.updated_at, now)}, "
        f"{row.message_count} message{'s' if row.message_count != 1 else ''}  ({shown(row.id)})"
        for number, row in enumerate(rows, start=1)
    ]


def match_session(rows: Sequence[SessionSummary], wanted: str) -> SessionSummary | str:
    """The row whose id is ``wanted`` or the only one starting with it, else what went wrong
    (one line).

    Example:
        >>> from robota.session import SessionSummary
        >>> t = datetime(2025, 1, 1, tzinfo=UTC)
        >>> rows = [SessionSummary(id=i, title=None, model="m", updated_at=t, message_count=2,
        ...                        parent_id=None) for i in ("ses_ab1", "ses_ab2", "ses_c")]
        >>> match_session(rows, "ses_c").id, match_session(rows, "ses_ab")
        ('ses_c', "'ses_ab' matches 2 sessions (ses_ab1, ses_ab2); give more of the id")
    """
    exact = [row for row in rows if row.id == wanted]
    found = exact or [row for row in rows if row.id.startswith(wanted)]
    if len(found) == 1:
        return found[0]
    if not found:
        return f"no session {wanted!r} (robota sessions list shows them)"
    ids = ", ".join(row.id for row in found[:5])
    return f"{wanted!r} matches {len(found)} sessions ({ids}); give more of the id"


async def _pick(chat: Chat, rows: Sequence[SessionSummary]) -> SessionSummary | None:
    show(["recent sessions:", *picker_lines(rows)])
    question = ""
    if chat.ctx.interactive:
        choices = "1" if len(rows) == 1 else f"1-{len(rows)}"
        question = f"resume which? [{choices}, Enter: none] "
    try:
        answer = await chat.lines.read_line(question)  # the line editor draws it
    except InputInterrupted:
        answer = None
    text = (answer or "").strip()
    if not text:
        say("nothing resumed")
        return None
    if not text.isdigit() or not 1 <= int(text) <= len(rows):
        say(f"not a number from 1 to {len(rows)}: {text!r}; nothing resumed")
        return None
    return rows[int(text) - 1]


async def resume_command(chat: Chat, args: Sequence[str]) -> None:
    """``/resume [ID]``: the picker, or the session ``ID`` names; see the module docstring."""
    store = chat.ctx.store
    current = chat.session.id
    if args:
        rows = list(await store.list(limit=_SEARCHED))
        found = match_session(rows, args[0])
        if isinstance(found, str):
            say(found)
            return
        target = found
    else:
        rows = [row for row in await store.list(limit=PICKER_SIZE + 1) if row.id != current]
        rows = rows[:PICKER_SIZE]
        if not rows:
            say("no other stored session to resume")
            return
        picked = await _pick(chat, rows)
        if picked is None:
            return
        target = picked
    if target.id == current:
        say(f"already in session {current}")
        return
    try:
        session = await InteractiveSession.resume(chat.session.config, target.id)
    except RobotaError as exc:
        say(f"{type(exc).__name__}: {exc}")
        return
    await chat.switch_to(session)
    messages = len(session.messages)
    say(
        f"resumed session {session.id} ({target.title or 'untitled'}, {messages} "
        f"message{'s' if messages != 1 else ''}); the next turns continue it"
    )
