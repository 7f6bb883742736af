"""The one thread that touches the knowledge base, and the queue in front of it.

``KnowledgeWorker`` owns the tool runner: it is opened, called and closed on
one thread (engines such as SWI-Prolog bind state to the OS thread).  Work
runs one piece at a time in the order of its tickets, which the server hands
out as requests arrive (:class:`Ticket`).  A cancelled piece of work leaves
the queue if it has not started, or interrupts the runner and lets it wind
down before the next starts.

Write calls that follow one another in the queue share one commit when the
storage offers a group commit (``zpm_domain.ports.storage.WriteGroup``, a
database): each runs as usual, its change applied and its batch queued, and
the answers of the whole run wait until the group has committed.  The run
ends when the queue behind it is empty, when a call that does not write
(or other work) comes next, or after :data:`MAX_GROUP` calls.  When the
commit fails, none of the run's changes stays applied (the memories read
their journal again) and its calls are made again one at a time, each with
its own commit, so that each gets its own answer; but when the storage
cannot tell whether a commit whose connection was lost was made, each call
answers so (``StorageOutcomeUnknown``) and none is made again, since it may
be stored already.  So nothing is answered
before it is committed, and a busy server commits once per run instead of
once per call.

Each piece of work runs as received when its ticket was taken
(``zpm_domain.memory.freshness``): a look at what other processes changed
that began after that serves it, so calls waiting in the queue share one.

In a server, after each piece of work during which a full garbage
collection ran, what exists is frozen out of the collector's sight
(``zpm_app.worker.collection``), so that no call stalls for a collection over a
large memory.

After each tool call the worker also looks at what clients may watch: the
list of resources, and each subscribed resource (a digest of its text), so
that the server can tell the client what changed, changes made by other
processes included (the memories catch up during the call).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import anyio

from zpm_app.catalogue.tool_catalogue import (
    ResourceInfo,
    ToolDefinition,
    ToolOutcome,
    ToolRunner,
    find_tool,
)
from zpm_app.worker import collection
from zpm_app.worker.toolbox import failure
from zpm_domain.errors import StorageOutcomeUnknown, ZpmError
from zpm_domain.memory.call_context import NO_CALL, CallContext
from zpm_domain.ports.storage import Change, WriteGroup
from zpm_domain.tools.definition import ToolContext

log = logging.getLogger("zpm")

T = TypeVar("T")

MAX_GROUP = 64
"""The most write calls one group commit holds."""


class Ticket:
    """A piece of work's place in the queue, taken when its request arrives.

    ``before`` resolves when the previous piece has ended (or left the
    queue); ``done`` resolves when this one has, after ``before``.
    ``arrived``: when it was taken (``time.monotonic()``, see
    ``zpm_domain.memory.freshness``).
    """

    def __init__(self, before: asyncio.Future[None] | None) -> None:
        self.before = before
        self.arrived = time.monotonic()
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def release(self) -> None:
        """The work ended, or never runs: the next may start once ``before``
        has resolved.  Idempotent."""
        if self.done.done():
            return
        if self.before is None or self.before.done():
            self.done.set_result(None)
        else:
            self.before.add_done_callback(lambda _: self.release())


@dataclass
class _Held:
    """A piece of work done in a group commit, its answer kept until the commit."""

    work: Callable[[ToolRunner, CallContext], Any]
    answer: Future[Any]
    ticket: Ticket
    failed: Callable[[ZpmError], Any] | None = None
    """The answer of the work when its commit failed with an error (``None``:
    the error itself is raised to the request)."""
    result: Any = None
    error: BaseException | None = None

    def run(self, runner: ToolRunner) -> None:
        try:
            context = CallContext(received=self.ticket.arrived)
            self.result, self.error = self.work(runner, context), None
        except BaseException as error:  # delivered to the waiting request
            self.result, self.error = None, error

    def fail(self, error: ZpmError) -> None:
        """Answer ``error`` instead of what the work answered."""
        if self.failed is None:
            self.result, self.error = None, error
        else:
            self.result, self.error = self.failed(error), None

    def deliver(self) -> None:
        if self.error is None:
            self.answer.set_result(self.result)
        else:
            self.answer.set_exception(self.error)


@dataclass
class Watched:
    """What changed for clients during one tool call."""

    resources_changed: bool = False
    updated: list[str] = field(default_factory=list)


class KnowledgeWorker:
    """Owns the tool runner and its thread; see the module docstring.

    A failure to open the runner is raised by the constructor.
    """

    def __init__(self, open_runner: Callable[[], ToolRunner]) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="zpm-kb")
        try:
            self.runner = self._executor.submit(open_runner).result()
            self.resources: list[ResourceInfo] = self._executor.submit(
                self.runner.resources
            ).result()
        except BaseException:
            self._executor.shutdown(wait=True)
            raise
        self._last: Ticket | None = None
        """The newest ticket (set on the event loop; the worker thread only
        compares it with a ticket: one taken a moment later waits for the
        next commit, as when it arrives after it)."""
        self._subscribed: dict[str, str | None] = {}  # uri -> digest of its text
        self._stop_watching: Callable[[], None] | None = None
        self._group: WriteGroup | None = None  # worker thread only, as _held
        self._held: list[_Held] = []

    @property
    def specs(self) -> tuple[ToolDefinition, ...]:
        return self.runner.specs

    @property
    def instructions(self) -> str:
        return self.runner.instructions

    def ticket(self) -> Ticket:
        """The next place in the queue (call on the event loop, in arrival order)."""
        ticket = Ticket(None if self._last is None else self._last.done)
        self._last = ticket
        ticket.done.add_done_callback(lambda _: self._ended(ticket))
        return ticket

    def _ended(self, ticket: Ticket) -> None:
        """On the event loop, when ``ticket``'s work has ended: the last in the
        queue has the answers held by a group commit committed and sent."""
        if ticket is self._last and self._held:
            self._executor.submit(self._commit)

    async def call(
        self,
        ticket: Ticket,
        name: str,
        arguments: Mapping[str, Any] | None,
        caller: CallContext = NO_CALL,
    ) -> tuple[ToolOutcome, Watched]:
        """Run tool ``name`` for ``caller`` (its client, access and progress
        report: ``zpm_domain.memory.call_context``) once the work before it
        has ended, the call's context completed with when it arrived; its
        outcome, and what changed for clients (see :meth:`run`)."""

        def work(runner: ToolRunner, arrived: CallContext) -> tuple[ToolOutcome, Watched]:
            outcome = runner.call(name, arguments, replace(caller, received=arrived.received))
            return outcome, self._look(runner, arrived)

        def failed(error: ZpmError) -> tuple[ToolOutcome, Watched]:
            return failure(error), Watched()

        spec = find_tool(name)
        writes = spec is not None and not spec.read_only
        return await self.run(ticket, work, writes=writes, failed=failed)

    async def read(
        self, ticket: Ticket, uri: str, caller: CallContext = NO_CALL
    ) -> tuple[str, str]:
        """``(mime type, text)`` of resource ``uri`` as ``caller`` reaches it
        (``ZpmError`` if there is none)."""

        def work(runner: ToolRunner, arrived: CallContext) -> tuple[str, str]:
            return runner.read_resource(uri, replace(caller, received=arrived.received))

        return await self.run(ticket, work)

    async def review(
        self, ticket: Ticket, read: Callable[[ToolContext], T], caller: CallContext = NO_CALL
    ) -> T:
        """``read(tools)`` for a person's review page, reaching what
        ``caller`` reaches (``ToolRunner.review``)."""

        def work(runner: ToolRunner, arrived: CallContext) -> T:
            return runner.review(read, replace(caller, received=arrived.received))

        return await self.run(ticket, work)

    async def subscribe(self, ticket: Ticket, *uris: str) -> None:
        """Watch resources ``uris`` from their present state (they may not exist yet)."""

        def work(runner: ToolRunner, arrived: CallContext) -> None:
            for uri in uris:
                self._subscribed[uri] = _digest(runner, uri, arrived)

        await self.run(ticket, work)

    def unsubscribe(self, uri: str) -> None:
        self._subscribed.pop(uri, None)

    async def look(self, ticket: Ticket) -> Watched:
        """What changed for clients since the last look (after a call, or
        before): the memories catch up with other processes first."""
        return await self.run(ticket, self._look)

    def watching(self) -> bool:
        """Whether a client watches some resource (a look after other
        processes' batches can tell someone something)."""
        return bool(self._subscribed)

    def watch(self, changed: Callable[[Change], None]) -> None:
        """Have ``changed`` called, from another thread, when another process
        changes the knowledge base (``ToolRunner.watch``; nothing when the
        storage cannot tell), until :meth:`unwatch` or :meth:`close`.  Called
        on the event loop: it only starts the storage's listener."""
        self.unwatch()
        self._stop_watching = self.runner.watch(changed)

    def unwatch(self) -> None:
        stop, self._stop_watching = self._stop_watching, None
        if stop is not None:
            stop()

    async def run(
        self,
        ticket: Ticket,
        work: Callable[[ToolRunner, CallContext], T],
        *,
        writes: bool = False,
        failed: Callable[[ZpmError], T] | None = None,
    ) -> T:
        """Run ``work(runner, context)`` on the worker thread once the work
        before it has ended (``context``: when it arrived); ``writes``: a
        write call, which may join a group commit (see the module doc),
        answered ``failed(error)`` if that commit may or may not have been
        made (``None``: ``error`` is raised).

        Cancelled while it waits, the work leaves the queue without running.
        Cancelled while it runs, the runner is interrupted and the
        cancellation propagates once the work has wound down, so the next
        piece starts on a settled knowledge base.  Cancelled once it has run,
        its change is committed all the same (its answer is dropped).
        """
        answer: Future[T] = Future()
        try:
            if ticket.before is not None:
                await asyncio.shield(ticket.before)
            job = self._executor.submit(self._step, _Held(work, answer, ticket, failed), writes)
            try:
                await asyncio.shield(asyncio.wrap_future(job))
            except anyio.get_cancelled_exc_class():
                if not job.cancel():
                    self.runner.interrupt()
                    with anyio.CancelScope(shield=True):
                        await asyncio.wait([asyncio.wrap_future(job)])
                raise
        finally:
            ticket.release()
        return await asyncio.wrap_future(answer)

    def _step(self, held: _Held, writes: bool) -> None:
        """On the worker thread: run ``held``'s work, its answer held by the
        group commit when one is open (see the module doc), else delivered;
        then what survived a full collection meanwhile is frozen
        (``zpm_app.worker.collection``)."""
        try:
            self._run_step(held, writes)
        finally:
            collection.after_call()

    def _run_step(self, held: _Held, writes: bool) -> None:
        if not writes:
            self._commit()
            held.run(self.runner)
            held.deliver()
            return
        if self._group is None:
            self._group = self.runner.write_group()
        held.run(self.runner)
        if self._group is None:
            held.deliver()
            return
        self._held.append(held)
        if self._group.failed() or len(self._held) >= MAX_GROUP:
            self._commit()
        elif not self._group.pending() and len(self._held) == 1:
            self._commit()  # nothing to commit: the locks go back, the answer goes out
        elif self._last is held.ticket:
            self._commit()  # nobody queued behind it yet: no call to wait for

    def _commit(self) -> None:
        """On the worker thread: end the group commit and send the answers it
        held; if it fails, make each held piece of work again on its own,
        unless the commit may have been made: then each answers the error."""
        group, self._group = self._group, None
        held, self._held = self._held, []
        if group is not None:
            try:
                group.end()
            except StorageOutcomeUnknown as error:
                log.warning(
                    "%d call(s) may or may not have been stored (%s); each answers so",
                    len(held),
                    error,
                )
                for piece in held:
                    piece.fail(error)
            except Exception as error:
                log.warning(
                    "%d call(s) could not be stored together (%s); each is made again alone",
                    len(held),
                    error,
                )
                for piece in held:
                    piece.run(self.runner)
        for piece in held:
            piece.deliver()

    def _look(self, runner: ToolRunner, arrived: CallContext) -> Watched:
        """On the worker thread, after a call: the resources and the subscriptions."""
        watched = Watched()
        try:
            resources = runner.resources(arrived)
        except ZpmError:  # the storage is unavailable: the call said so; nothing to tell
            return watched
        if resources != self.resources:
            self.resources = resources
            watched.resources_changed = True
        for uri, before in list(self._subscribed.items()):
            after = _digest(runner, uri, arrived)
            if after != before:
                self._subscribed[uri] = after
                watched.updated.append(uri)
        return watched

    def close(self) -> None:
        """Wait for running work, commit what a group commit holds, close the
        runner, stop the thread."""
        try:
            self.unwatch()
            self._executor.submit(self._commit).result()
            self._executor.submit(self.runner.close).result()
        finally:
            self._executor.shutdown(wait=True)


def _digest(runner: ToolRunner, uri: str, arrived: CallContext) -> str | None:
    try:
        mime, text = runner.read_resource(uri, arrived)
    except ZpmError:
        return None
    return hashlib.sha256(f"{mime}\n{text}".encode()).hexdigest()
