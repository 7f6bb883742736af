"""Waking a server when another one changed its space (architecture §11.4).

The database announces on channel ``zpm_changes`` every committed batch
(``space writer``) and every change of a space's mounts or knowledge files
(``space``): triggers of schema version 2 (``zpm_adapters.postgres.schema``).
A :class:`ChangeListener` keeps one connection of its own listening there,
on a thread of its own, and calls ``changed`` for the announcements of its
spaces made by other writers.  An announcement only wakes the server: it
has no replay, and what changed is read from the journal as by any call.
``changed`` is also called once the listener listens, and again after a
lost connection was made again (after a pause), since what happened before
is unknown.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection

import psycopg

from zpm_adapters.postgres.database import describe
from zpm_domain.ports.storage import Change

log = logging.getLogger("zpm")

CHANNEL = "zpm_changes"

PAUSE_S = 1.0
"""How long the listener waits before it connects again, and how often it
looks whether it should stop."""


class ChangeListener:
    """Calls ``changed`` (on its own thread) when a writer other than
    ``writer`` changes one of ``spaces`` in the database at ``url``: with
    ``"batches"`` for journal batches, ``"memories"`` for mounts or
    knowledge files, and once it listens (again, after a lost connection)."""

    def __init__(
        self, url: str, spaces: Collection[str], writer: str, changed: Callable[[Change], None]
    ) -> None:
        self._url = url
        self._spaces = frozenset(spaces)
        self._writer = writer
        self._changed = changed
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._listen, name="zpm-changes", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop listening: nothing is called back from now on, and the thread
        ends (closing its connection) within about :data:`PAUSE_S`, without
        being waited for."""
        self._stop.set()

    def _listen(self) -> None:
        lost = False
        while not self._stop.is_set():
            try:
                with psycopg.connect(
                    self._url, autocommit=True, connect_timeout=max(1, int(PAUSE_S * 5))
                ) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    if lost:
                        log.info("%s: listening for changes again", describe(self._url))
                        lost = False
                    self._tell("memories")  # what changed before it listened is unknown
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=PAUSE_S):
                            change = self._change(note.payload)
                            if change is not None:
                                self._tell(change)
            except psycopg.Error as error:
                if not lost:
                    log.warning(
                        "%s: not listening for changes (%s); trying again",
                        describe(self._url),
                        " ".join(str(error).split()),
                    )
                lost = True
                self._stop.wait(PAUSE_S)

    def _change(self, payload: str) -> Change | None:
        """What ``payload`` announces to this listener (``None``: nothing)."""
        space, _, writer = payload.partition(" ")
        if space not in self._spaces or writer == self._writer:
            return None
        return "batches" if writer else "memories"

    def _tell(self, change: Change) -> None:
        if self._stop.is_set():
            return
        try:
            self._changed(change)
        except Exception:  # the listener must outlive a failing callback
            log.exception("a change notification could not be handled")
