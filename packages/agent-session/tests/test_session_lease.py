"""Leases on the SQLite store across store objects on one file (as separate processes have),
with an injected clock for expiry (issue #15)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import anyio
import pytest
from robota.session import (
    SessionBusyError,
    SessionLeaseHeldError,
    SessionLeaseLostError,
    SessionRecord,
    SQLiteSessionStore,
)


def test_a_lease_holds_across_store_objects_until_it_expires(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    now = [1_000_000.0]

    async def main() -> None:
        async with (
            SQLiteSessionStore(db, clock=lambda: now[0]) as a,
            SQLiteSessionStore(db, clock=lambda: now[0]) as b,
        ):
            lease = await a.acquire_lease("ses_x", "host-a:11:aa", ttl=30.0)
            assert lease.expires_at == datetime.fromtimestamp(1_000_030.0, UTC)
            with pytest.raises(SessionLeaseHeldError) as refused:
                await b.acquire_lease("ses_x", "host-b:22:bb", ttl=30.0)
            assert isinstance(refused.value, SessionBusyError)  # older callers still catch it
            assert refused.value.holder == "host-a:11:aa"
            assert refused.value.expires_at == lease.expires_at
            assert "host-a:11:aa" in str(refused.value)
            now[0] += 20.0
            renewed = await a.renew_lease("ses_x", "host-a:11:aa", ttl=30.0)
            assert renewed.expires_at == datetime.fromtimestamp(1_000_050.0, UTC)
            now[0] += 29.0  # still inside the renewed lease
            with pytest.raises(SessionLeaseHeldError):
                await b.acquire_lease("ses_x", "host-b:22:bb", ttl=30.0)
            now[0] += 2.0  # host a died: its lease ran out
            await b.acquire_lease("ses_x", "host-b:22:bb", ttl=30.0)
            with pytest.raises(SessionLeaseLostError) as lost:
                await a.renew_lease("ses_x", "host-a:11:aa", ttl=30.0)
            assert lost.value.holder == "host-b:22:bb"

    anyio.run(main)


def test_deleting_a_session_drops_its_lease(tmp_path: Path) -> None:
    async def main() -> None:
        async with SQLiteSessionStore(tmp_path / "s.db") as store:
            record = await store.create(SessionRecord())
            await store.acquire_lease(record.id, "a", ttl=60.0)
            assert await store.delete(record.id)
            await store.acquire_lease(record.id, "b", ttl=60.0)

    anyio.run(main)
