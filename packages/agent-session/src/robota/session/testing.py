"""Reusable conformance suite for :class:`~robota.session.store.SessionStore` backends.

Subclass :class:`SessionStoreConformance` in a pytest module and implement
:meth:`SessionStoreConformance.make_store`; pytest then runs every ``test_*`` method against
your backend. The SQLite store runs it in this package's tests; a server-database backend runs
the same class.

Example:
    >>> class TestMyStore(SessionStoreConformance):  # doctest: +SKIP
    ...     async def make_store(self) -> SessionStore:
    ...         return MyStore(dsn)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TypeVar

import anyio
from robota.core.errors import JournalError
from robota.core.journal import Journal
from robota.core.messages import AssistantMessage, TextPart, UserMessage
from robota.core.usage import Usage
from robota.session.record import SessionRecord
from robota.session.store import (
    SessionBusyError,
    SessionConflictError,
    SessionLeaseHeldError,
    SessionLeaseLostError,
    SessionNotFoundError,
    SessionStore,
)

__all__ = ["JournalConformance", "SessionStoreConformance"]


def _record() -> SessionRecord:
    return SessionRecord(
        model="m1",
        provider="p",
        system_prompt="You are terse.",
        messages=(
            UserMessage.of("hi"),
            AssistantMessage(parts=(TextPart(text="hello"),), model="m1"),
        ),
        usage=Usage(input_tokens=3, output_tokens=1, requests=1),
        metadata={"k": "v"},
    )


E = TypeVar("E", bound=BaseException)


async def _raises(kind: type[E], call: Awaitable[object]) -> E:
    """The ``kind`` error ``call`` raised (AssertionError when it raised none)."""
    try:
        await call
    except kind as exc:
        return exc
    raise AssertionError(f"expected {kind.__name__}")


class SessionStoreConformance:
    """The behaviour every session store must have."""

    async def make_store(self) -> SessionStore:
        """Return a fresh, empty store."""
        raise NotImplementedError

    def _run(self, body: Callable[[SessionStore], Awaitable[None]]) -> None:
        async def main() -> None:
            store = await self.make_store()
            async with store:
                await body(store)

        anyio.run(main)

    def test_create_then_get_round_trips(self) -> None:
        async def body(store: SessionStore) -> None:
            created = await store.create(_record())
            assert created.revision == 1
            loaded = await store.get(created.id)
            assert loaded == created

        self._run(body)

    def test_get_missing_raises(self) -> None:
        async def body(store: SessionStore) -> None:
            try:
                await store.get("ses_missing")
            except SessionNotFoundError:
                return
            raise AssertionError("expected SessionNotFoundError")

        self._run(body)

    def test_create_twice_conflicts(self) -> None:
        async def body(store: SessionStore) -> None:
            record = _record()
            await store.create(record)
            try:
                await store.create(record)
            except SessionConflictError:
                return
            raise AssertionError("expected SessionConflictError")

        self._run(body)

    def test_save_bumps_revision(self) -> None:
        async def body(store: SessionStore) -> None:
            created = await store.create(_record())
            saved = await store.save(replace(created, title="named"))
            assert saved.revision == 2
            assert (await store.get(created.id)).title == "named"

        self._run(body)

    def test_stale_writer_is_refused_and_loses_nothing(self) -> None:
        async def body(store: SessionStore) -> None:
            created = await store.create(_record())
            first = await store.save(
                created.with_messages((*created.messages, UserMessage.of("from A")))
            )
            try:
                await store.save(
                    created.with_messages((*created.messages, UserMessage.of("from B")))
                )
            except SessionConflictError:
                pass
            else:
                raise AssertionError("a stale writer overwrote the session")
            assert await store.get(created.id) == first

        self._run(body)

    def test_list_newest_first_and_delete(self) -> None:
        async def body(store: SessionStore) -> None:
            a = await store.create(_record())
            b = await store.create(_record())
            await store.save(replace(a, title="touched"))
            ids = [s.id for s in await store.list()]
            assert ids[:2] == [a.id, b.id]
            assert (await store.list(limit=1))[0].message_count == 2
            assert await store.delete(a.id) is True
            assert await store.delete(a.id) is False
            assert [s.id for s in await store.list()] == [b.id]

        self._run(body)

    def test_fork_leaves_parent_identical(self) -> None:
        async def body(store: SessionStore) -> None:
            parent = await store.create(_record())
            before = (await store.get(parent.id)).to_json()
            child = await store.create(parent.fork())
            await store.save(child.with_messages((*child.messages, UserMessage.of("child"))))
            assert (await store.get(parent.id)).to_json() == before
            loaded = await store.get(child.id)
            assert loaded.parent_id == parent.id
            assert loaded.system_prompt == parent.system_prompt

        self._run(body)

    def test_lease_refuses_a_second_runner(self) -> None:
        async def body(store: SessionStore) -> None:
            created = await store.create(_record())
            await store.acquire_lease(created.id, "run-1")
            try:
                await store.acquire_lease(created.id, "run-2")
            except SessionBusyError:
                pass
            else:
                raise AssertionError("two runs held one session")
            await store.release_lease(created.id, "run-1")
            await store.acquire_lease(created.id, "run-2")

        self._run(body)

    def test_a_refusal_names_the_session_the_holder_and_the_expiry(self) -> None:
        async def body(store: SessionStore) -> None:
            before = datetime.now(UTC)
            lease = await store.acquire_lease("ses_leased", "host-a:1:x", ttl=60.0)
            assert lease.owner == "host-a:1:x"
            assert before + timedelta(seconds=59) <= lease.expires_at
            assert lease.expires_at <= datetime.now(UTC) + timedelta(seconds=61)
            refusal = await _raises(
                SessionLeaseHeldError, store.acquire_lease("ses_leased", "host-b:2:y", ttl=60.0)
            )
            assert isinstance(refusal, SessionBusyError)
            assert refusal.session_id == "ses_leased"
            assert refusal.holder == "host-a:1:x"
            assert abs((refusal.expires_at - lease.expires_at).total_seconds()) < 1

        self._run(body)

    def test_the_holder_reacquires_and_renews_its_own_lease(self) -> None:
        async def body(store: SessionStore) -> None:
            first = await store.acquire_lease("ses_renew", "a", ttl=10.0)
            again = await store.acquire_lease("ses_renew", "a", ttl=100.0)
            assert again.expires_at > first.expires_at
            renewed = await store.renew_lease("ses_renew", "a", ttl=1000.0)
            assert renewed.expires_at > again.expires_at
            lost = await _raises(
                SessionLeaseLostError, store.renew_lease("ses_renew", "b", ttl=10.0)
            )
            assert lost.holder == "a"

        self._run(body)

    def test_an_expired_lease_can_be_taken_and_its_old_holder_cannot_renew(self) -> None:
        async def body(store: SessionStore) -> None:
            await store.acquire_lease("ses_dead", "dead-holder", ttl=0.05)
            await anyio.sleep(0.15)  # the holder died: nobody renewed it
            await store.acquire_lease("ses_dead", "new-holder", ttl=60.0)
            lost = await _raises(
                SessionLeaseLostError, store.renew_lease("ses_dead", "dead-holder", ttl=60.0)
            )
            assert lost.owner == "dead-holder"
            assert lost.holder == "new-holder"

        self._run(body)

    def test_an_expired_lease_nobody_took_is_renewed(self) -> None:
        async def body(store: SessionStore) -> None:
            await store.acquire_lease("ses_idle", "a", ttl=0.05)
            await anyio.sleep(0.15)
            lease = await store.renew_lease("ses_idle", "a", ttl=60.0)
            assert lease.expires_at > datetime.now(UTC) + timedelta(seconds=50)

        self._run(body)

    def test_release_frees_only_the_holders_lease(self) -> None:
        async def body(store: SessionStore) -> None:
            await store.acquire_lease("ses_rel", "a", ttl=60.0)
            await store.release_lease("ses_rel", "b")  # not the holder: no-op
            await _raises(SessionLeaseHeldError, store.acquire_lease("ses_rel", "b", ttl=60.0))
            await store.release_lease("ses_rel", "a")
            lost = await _raises(SessionLeaseLostError, store.renew_lease("ses_rel", "a", ttl=60.0))
            assert lost.holder is None
            await store.acquire_lease("ses_rel", "b", ttl=60.0)

        self._run(body)

    def test_overwrite_replaces_whatever_is_stored_and_bumps_the_revision(self) -> None:
        async def body(store: SessionStore) -> None:
            fresh = await store.overwrite(_record())
            assert fresh.revision == 1
            created = await store.create(_record())
            await store.save(replace(created, title="two"))
            stale = replace(created, title="rebuilt", revision=0)
            written = await store.overwrite(stale)
            assert written.revision == 3
            loaded = await store.get(created.id)
            assert loaded.title == "rebuilt"
            assert loaded.revision == 3
            await store.save(replace(loaded, title="after"))  # an ordinary writer goes on

        self._run(body)


class JournalConformance:
    """The behaviour every :class:`~robota.core.journal.Journal` backend must have."""

    async def make_journal(self) -> Journal:
        """Return a fresh, empty journal."""
        raise NotImplementedError

    def _run_journal(self, body: Callable[[Journal], Awaitable[None]]) -> None:
        async def main() -> None:
            journal = await self.make_journal()
            try:
                await body(journal)
            finally:
                await journal.aclose()

        anyio.run(main)

    def test_records_round_trip(self) -> None:
        async def body(journal: Journal) -> None:
            await journal.start_run("r1", {"prompt": "hi", "history": []})
            await journal.record_response("r1", 0, {"text": "a"})
            await journal.record_tool_start("r1", "1:0", "append", {"line": "x"})
            await journal.record_tool_start("r1", "1:1", "append", {"line": "y"})
            await journal.record_tool_result("r1", "1:0", {"ok": True})
            run = await journal.load_run("r1")
            assert run is not None
            assert run.checkpoint == {"prompt": "hi", "history": []}
            assert run.responses == {0: {"text": "a"}}
            assert run.tools["1:0"].result == {"ok": True}
            assert run.tools["1:1"].result is None
            assert run.tools["1:1"].arguments == {"line": "y"}
            assert run.outcome is None
            await journal.finish_run("r1", "completed")
            finished = await journal.load_run("r1")
            assert finished is not None
            assert finished.outcome == "completed"
            assert await journal.load_run("other") is None

        self._run_journal(body)

    def test_a_run_id_is_started_once(self) -> None:
        async def body(journal: Journal) -> None:
            await journal.start_run("r1", {})
            try:
                await journal.start_run("r1", {})
            except JournalError:
                return
            raise AssertionError("expected JournalError")

        self._run_journal(body)
