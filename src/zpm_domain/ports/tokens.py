"""The TokenStore port: the bearer tokens that open zpm's HTTP server.

A token is shown once, when it is made; a store keeps only its SHA-256
digest (lowercase hex), its name and its scope, with when it was made and
last used.  Names are unique in a store.  Backends (a file in ``.zpm/``, a
database table) keep records as they are given; deciding what a scope means
is the server's business (``zpm_domain.memory.access``).
"""

from __future__ import annotations

import hmac
from abc import ABC, abstractmethod
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """One token: ``digest`` is the SHA-256 hex of the token; ``read_only``,
    ``memories`` (empty: every memory) and ``fork`` (its calls work in a fork
    of their own) are its scope; ``created`` and ``last_used`` are seconds
    since the epoch (``None``: never used)."""

    name: str
    digest: str
    read_only: bool = False
    memories: tuple[str, ...] = ()
    fork: bool = False
    created: float = 0.0
    last_used: float | None = None


class TokenExists(Exception):
    """A token of that name is in the store already."""

    def __init__(self, name: str) -> None:
        super().__init__(f"a token named {name} exists already")
        self.name = name


class TokenStore(ABC):
    """The tokens of one project (or space).

    Every method may raise ``OSError`` (or the backend's own storage error)
    when the store cannot be read or written; a change that fails leaves the
    store as it was.
    """

    @abstractmethod
    def add(self, record: TokenRecord) -> None:
        """Keep ``record``; ``TokenExists`` when its name is taken."""

    @abstractmethod
    def list(self) -> list[TokenRecord]:
        """Every token, by name."""

    @abstractmethod
    def revoke(self, name: str) -> bool:
        """Forget token ``name``; whether there was one."""

    @abstractmethod
    def touch(self, name: str, when: float) -> None:
        """Record that token ``name`` was used at ``when`` (nothing if it is gone)."""

    def close(self) -> None:  # noqa: B027 (optional hook)
        """Release what the store holds open (a database connection)."""

    def find(self, digest: str) -> TokenRecord | None:
        """The token whose digest is ``digest``, compared in constant time."""
        found = None
        for record in self.list():
            if hmac.compare_digest(record.digest, digest):
                found = record
        return found
