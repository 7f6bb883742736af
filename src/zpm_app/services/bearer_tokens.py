"""Making and reading the bearer tokens of zpm's HTTP server.

A token is ``zpm_`` followed by 32 random bytes in URL-safe base64; the
store keeps its SHA-256 hex digest only (``zpm_domain.ports.tokens``).
:func:`access_of` says what a token's calls reach
(``zpm_domain.memory.access``): a ``--read-only`` token changes nothing, a
token limited to memories sees only those, a ``--fork`` token works in a
fork of its own (:func:`fork_name`) and changes nothing else.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Sequence

from zpm_domain.errors import InvalidArguments
from zpm_domain.memory.access import Access
from zpm_domain.memory.names import check_name
from zpm_domain.ports.tokens import TokenRecord

PREFIX = "zpm_"
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")


class BadTokenRequest(ValueError):
    """A token that cannot be made as asked; the text says why."""


def new_token() -> str:
    return PREFIX + secrets.token_urlsafe(32)


def digest(token: str) -> str:
    """The SHA-256 hex digest the store keeps of ``token``."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def make(
    name: str, token: str, *, read_only: bool, memories: Sequence[str], fork: bool, now: float
) -> TokenRecord:
    """The record of a new token ``name``; ``BadTokenRequest`` for a name that
    is not 1-64 letters, digits, ``_ . -`` (starting with a letter or digit),
    a memory name that is not one, or ``fork`` with ``read_only``."""
    if not NAME_PATTERN.match(name):
        raise BadTokenRequest(
            f"token name {name!r}: use 1-64 letters, digits, _ . - (first a letter or digit)"
        )
    if fork and read_only:
        raise BadTokenRequest("a --fork token works in a fork of its own: it cannot be read-only")
    for memory in memories:
        if memory != "default":
            try:
                check_name(memory)
            except InvalidArguments as error:
                raise BadTokenRequest(error.hint or error.message) from None
    return TokenRecord(
        name=name,
        digest=digest(token),
        read_only=read_only,
        memories=tuple(dict.fromkeys(memories)),
        fork=fork,
        created=now,
    )


def fork_name(record: TokenRecord) -> str:
    """The fork a ``--fork`` token works in: ``token_<name>``, its name's
    characters other than letters, digits and ``_`` as ``_``."""
    return "token_" + re.sub(r"[^A-Za-z0-9_]", "_", record.name)


def access_of(record: TokenRecord) -> Access:
    """What the calls of ``record``'s token reach."""
    return Access(
        memories=frozenset(record.memories) if record.memories else None,
        read_only=record.read_only,
        home=fork_name(record) if record.fork else None,
    )


def scope_text(record: TokenRecord) -> str:
    """``read-write``/``read-only``, the memories it is limited to, ``fork``."""
    parts = ["read-only" if record.read_only else "read-write"]
    parts.append("memories " + ",".join(record.memories) if record.memories else "every memory")
    if record.fork:
        parts.append(f"in fork {fork_name(record)}")
    return "; ".join(parts)
