"""One session, one writer: the store lease an interactive session holds (issue #15).

:class:`SessionLease` takes the session's lease in the store when the session starts, resumes
or forks — before anything is loaded or run — and checks it again at the start of every turn,
compaction and fork; while a turn runs it renews the lease in the background every third of
the TTL (:meth:`SessionLease.renewing`). A second host is refused with
:class:`~robota.session.SessionLeaseHeldError` (naming the holder and when its lease runs out)
before its turn does anything. A holder that died stops blocking others when its lease runs
out: nothing renews it. An idle session renews nothing, so after ``lease_ttl`` seconds without a
turn another host may take the session over; the idle host's next turn then either takes the
lease back (and reloads what the other host saved) or is refused.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import AsyncGenerator, Callable
from secrets import token_hex

import anyio
from robota.core.errors import RobotaError
from robota.session import Lease, SessionLeaseLostError, SessionStore

__all__ = [
    "RENEW_FRACTION",
    "SessionLease",
    "default_lease_owner",
    "released_on_error",
    "take_lease",
]

RENEW_FRACTION = 1 / 3
"""A running turn renews its lease every ``ttl * RENEW_FRACTION`` seconds."""


def default_lease_owner() -> str:
    """An owner id naming this host and process, unique per call: ``host:pid:nonce``."""
    return f"{socket.gethostname()}:{os.getpid()}:{token_hex(4)}"


class SessionLease:
    """The lease of one session in one store, held by one owner.

    Args:
        store: The session store (its lease methods are used).
        session_id: The session.
        ttl: Seconds a lease lasts without renewal (``SessionConfig.lease_ttl``).
        owner: Owner id (default: :func:`default_lease_owner`).

    Attributes:
        lease: The lease as last granted or renewed (None before :meth:`acquire`, after
            :meth:`release`, and once it was found lost).
    """

    def __init__(
        self, store: SessionStore, session_id: str, *, ttl: float, owner: str | None = None
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.ttl = ttl
        self.owner = owner or default_lease_owner()
        self.lease: Lease | None = None

    async def acquire(self) -> Lease:
        """Take the lease (or extend it when this owner holds it).

        Raises:
            SessionLeaseHeldError: another owner holds a lease that has not run out.
        """
        self.lease = await self.store.acquire_lease(self.session_id, self.owner, ttl=self.ttl)
        return self.lease

    async def ensure(self) -> bool:
        """Make sure this owner holds the lease before a turn writes anything.

        Renews a held lease; when it was lost (or never taken) takes it again.

        Returns:
            True when the lease had to be taken again — another host may have saved the session
            meanwhile, so the caller reloads it; False when it was renewed.

        Raises:
            SessionLeaseHeldError: another owner holds it now.
        """
        if self.lease is not None:
            try:
                self.lease = await self.store.renew_lease(self.session_id, self.owner, ttl=self.ttl)
                return False
            except SessionLeaseLostError:
                self.lease = None
        await self.acquire()
        return True

    @contextlib.asynccontextmanager
    async def renewing(
        self, on_lost: Callable[[SessionLeaseLostError], None]
    ) -> AsyncGenerator[None]:
        """Renew the lease every ``ttl * RENEW_FRACTION`` seconds while the block runs.

        ``on_lost`` is called once if a renewal finds the lease taken by another owner (this
        process was stalled past the TTL); renewal then stops. A store failure during a renewal
        is retried at the next interval, never raised into the block. What the block raises
        comes out as it is (not wrapped in an exception group by the renewal's task group).
        """
        failure: Exception | None = None
        async with anyio.create_task_group() as group:
            group.start_soon(self._renew_loop, on_lost)
            try:
                yield
            except Exception as exc:  # re-raised below, outside the task group
                failure = exc
            finally:
                group.cancel_scope.cancel()
        if failure is not None:
            raise failure

    async def _renew_loop(self, on_lost: Callable[[SessionLeaseLostError], None]) -> None:
        while True:
            await anyio.sleep(self.ttl * RENEW_FRACTION)
            try:
                self.lease = await self.store.renew_lease(self.session_id, self.owner, ttl=self.ttl)
            except SessionLeaseLostError as lost:
                self.lease = None
                on_lost(lost)
                return
            except (RobotaError, OSError):
                continue  # a transient store failure: the next interval tries again

    async def release(self) -> None:
        """Release the lease if this owner holds it (no-op otherwise); never raises a store
        failure (the lease then runs out by itself)."""
        self.lease = None
        with contextlib.suppress(RobotaError, OSError):
            await self.store.release_lease(self.session_id, self.owner)


async def take_lease(
    store: SessionStore | None, session_id: str, *, ttl: float
) -> SessionLease | None:
    """Take ``session_id``'s lease in ``store`` (None without a store: nothing to lease).

    Raises:
        SessionLeaseHeldError: another owner holds it.
    """
    if store is None:
        return None
    lease = SessionLease(store, session_id, ttl=ttl)
    await lease.acquire()
    return lease


@contextlib.asynccontextmanager
async def released_on_error(lease: SessionLease | None) -> AsyncGenerator[None]:
    """Release ``lease`` (shielded) when the block raises; the error propagates."""
    try:
        yield
    except BaseException:
        if lease is not None:
            with anyio.CancelScope(shield=True):
                await lease.release()
        raise
