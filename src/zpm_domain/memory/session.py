"""A session that works on a fork of its own (``zpm serve --fork``): a fresh
fork of ``default``, every other memory mounted read-only, and the tools that
change which memories there are refused (:class:`Session`)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

from zpm_domain.memory.mount_errors import MemoryAlreadyExists, SessionForkOnly

NAME_TRIES = 16
"""How many names a session tries for its fork before it gives up."""


class Session:
    """Whether this process works on a fork of its own (``active``), and
    which, once started (:attr:`fork`); ``clock`` stamps the fork's name."""

    def __init__(self, *, active: bool, clock: Callable[[], float]) -> None:
        self.active = active
        self._clock = clock
        self.fork: str | None = None
        """The fork this session works on, once started: the memory an
        omitted name means; every other memory is read-only for the session."""

    def start(self, make_fork: Callable[[str], object]) -> None:
        """Make the session's fresh fork with ``make_fork`` (which makes and
        mounts a fork of ``default`` under the name it is given, or raises
        ``MemoryAlreadyExists``), named ``session_YYYYMMDD_HHMMSS_<4 hex>``;
        the next name is tried when another server took one first."""
        for _ in range(NAME_TRIES):
            stamp = time.strftime("%Y%m%d_%H%M%S", time.gmtime(self._clock()))
            name = f"session_{stamp}_{secrets.token_hex(2)}"
            try:
                make_fork(name)
            except MemoryAlreadyExists:
                continue  # another server took the name first: the next is another
            self.fork = name
            return
        raise MemoryAlreadyExists(name)

    def refuse(self, tool: str) -> None:
        """Raise ``SessionForkOnly`` when this session works on its own fork."""
        if self.active and self.fork is not None:
            raise SessionForkOnly(tool, self.fork)
