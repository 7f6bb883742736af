"""Who a command of the shell writes as: the ``client`` of the provenance
of what it stores, as a token's name is over HTTP.

``--as NAME`` names it; else it is ``cli:USER@HOST``, the account running
the command and its machine.  Nothing checks the name: whoever may run
``zpm`` on a project (or holds the database URL of its space) may write as
anyone, as with ``psql``; the tokens of ``zpm serve --http`` are what
tells apart the clients of a server.
"""

from __future__ import annotations

import getpass
import os
import socket

MAX_NAME = 128


class BadIdentity(ValueError):
    """``--as`` was given a name zpm does not record."""


def cli_client(chosen: str | None) -> str:
    """``chosen`` (``--as``, checked: 1 to :data:`MAX_NAME` printable
    characters), else ``cli:USER@HOST`` (the user id when the account has no
    name)."""
    if chosen is not None:
        if not chosen or len(chosen) > MAX_NAME or not chosen.isprintable():
            raise BadIdentity(
                f"--as {chosen!r}: give 1 to {MAX_NAME} printable characters, such as a name"
            )
        return chosen
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name in the environment nor in the account database
        user = f"uid{os.getuid()}"
    return f"cli:{user}@{socket.gethostname()}"
