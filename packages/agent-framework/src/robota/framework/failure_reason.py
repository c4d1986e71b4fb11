"""Why something failed, in the words a user reads: the operating system's reason buried in an
exception's chain (``connection refused``, ``name or service not known``), found through
causes, contexts and exception groups (issue #18: a failed MCP server, a failed login and a
failed model call say it the same way).

Libraries wrap the reason several times (``httpx.ConnectError`` over ``httpcore.ConnectError``
over ``OSError('All connection attempts failed')`` over ``ConnectionRefusedError``), and
anyio's task groups wrap it once more in an ``ExceptionGroup`` whose context is the
cancellation that ended the group. The walk here visits an exception, then the members of a
group, then its ``__cause__``, then its ``__context__`` (depth first), and skips what is not an
:class:`Exception` (cancellations, ``GeneratorExit``): they say how a task ended, not why.

Example:
    >>> try:
    ...     try:
    ...         raise ConnectionRefusedError(111, "Connect call failed")
    ...     except OSError as inner:
    ...         raise ExceptionGroup("unhandled errors in a TaskGroup", [RuntimeError("x")]) from inner
    ... except ExceptionGroup as error:
    ...     failure_reason(error)
    'connection refused'
"""

from __future__ import annotations

import os
from collections.abc import Iterator

__all__ = ["failure_reason", "innermost_error", "os_failure"]


def _walk(error: BaseException) -> Iterator[BaseException]:
    """``error`` and everything linked to it, depth first: group members, then the cause,
    then the context; each once; non-:class:`Exception` ones (cancellations) left out with
    what hangs off them, except exception groups."""
    seen: set[int] = set()
    stack: list[BaseException] = [error]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if not isinstance(current, (Exception, BaseExceptionGroup)):
            continue
        yield current
        linked: list[BaseException] = []
        if isinstance(current, BaseExceptionGroup):
            linked.extend(current.exceptions)
        linked.extend(e for e in (current.__cause__, current.__context__) if e is not None)
        stack.extend(reversed(linked))


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def os_failure(error: BaseException) -> OSError | None:
    """The first operating-system failure in ``error``'s chain: an :class:`OSError` that
    carries an ``errno`` (a refused or reset connection, an unknown host name — whose
    ``socket.gaierror`` numbers are negative —, a missing file), else None. An ``OSError``
    raised by a library with only a message (``All connection attempts failed``) or a bare
    :class:`TimeoutError` does not count."""
    for current in _walk(error):
        if isinstance(current, OSError) and current.errno is not None:
            return current
    return None


def failure_reason(error: BaseException) -> str:
    """The innermost operating-system reason in ``error``'s chain, else its innermost non-empty
    message ('' when there is none).

    ``ConnectionRefusedError`` says ``connection refused``; an ``OSError`` with a positive
    ``errno`` says :func:`os.strerror` of it; one with only a ``strerror`` (``socket.gaierror``)
    says that — each with a lower-case first letter (``name or service not known``).

    Args:
        error: The failure (any exception, groups included).

    Returns:
        One line of text, e.g. ``connection refused``.
    """
    found = ""
    for current in _walk(error):
        if isinstance(current, ConnectionRefusedError):
            return "connection refused"
        if isinstance(current, OSError) and current.errno and current.errno > 0:
            return _lower_first(os.strerror(current.errno))
        if isinstance(current, OSError) and current.strerror:
            found = _lower_first(current.strerror)
        elif not isinstance(current, BaseExceptionGroup) and str(current).strip():
            found = str(current).strip()
    return found


def innermost_error(error: BaseException) -> BaseException:
    """``error`` with exception groups unwrapped: while it is a group, its first member that
    is an :class:`Exception` (cancellations skipped); causes and contexts are not followed.

    Example:
        >>> innermost_error(ExceptionGroup("in a TaskGroup", [KeyError("x")]))
        KeyError('x')
    """
    while isinstance(error, BaseExceptionGroup):
        members = [e for e in error.exceptions if isinstance(e, (Exception, BaseExceptionGroup))]
        if not members:
            break
        error = members[0]
    return error
