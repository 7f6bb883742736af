"""A space's bearer tokens as rows of ``zpm_tokens`` (``TokenStore`` on PostgreSQL).

Every server of a space finds the same tokens, so a token made (or revoked)
once works (or stops working) on all of them at the next request.  A row
keeps the token's SHA-256 digest, never the token; the digest is unique,
and a lookup by digest checks the row it finds in constant time as well.
"""

from __future__ import annotations

import builtins
import hmac
import json

import psycopg

from zpm_adapters.postgres.database import Database
from zpm_domain.ports.tokens import TokenExists, TokenRecord, TokenStore

_COLUMNS = "name, digest, read_only, memories::text, fork, created, last_used"


class PostgresTokens(TokenStore):
    """The tokens of space ``space`` in ``db`` (the space's row must exist);
    with ``owns``, :meth:`close` closes ``db``."""

    def __init__(self, db: Database, space: str, *, owns: bool = False) -> None:
        self._db = db
        self._space = space
        self._owns = owns

    def close(self) -> None:
        if self._owns:
            self._db.close()

    def add(self, record: TokenRecord) -> None:
        try:
            with self._db.statement() as conn:
                conn.execute(
                    "INSERT INTO zpm_tokens (space, name, digest, read_only, memories, fork, "
                    "created, last_used) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                    (
                        self._space,
                        record.name,
                        record.digest,
                        record.read_only,
                        json.dumps(list(record.memories)),
                        record.fork,
                        record.created,
                        record.last_used,
                    ),
                )
        except psycopg.errors.UniqueViolation:
            raise TokenExists(record.name) from None

    def list(self) -> builtins.list[TokenRecord]:
        with self._db.statement() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM zpm_tokens WHERE space = %s",
                (self._space,),
            ).fetchall()
        return sorted((_record(row) for row in rows), key=lambda r: r.name)

    def revoke(self, name: str) -> bool:
        with self._db.statement() as conn:
            gone = conn.execute(
                "DELETE FROM zpm_tokens WHERE space = %s AND name = %s", (self._space, name)
            ).rowcount
        return gone > 0

    def touch(self, name: str, when: float) -> None:
        with self._db.statement() as conn:
            conn.execute(
                "UPDATE zpm_tokens SET last_used = %s WHERE space = %s AND name = %s",
                (when, self._space, name),
            )

    def find(self, digest: str) -> TokenRecord | None:
        with self._db.statement() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM zpm_tokens WHERE space = %s AND digest = %s",
                (self._space, digest),
            ).fetchone()
        if row is None:
            return None
        record = _record(row)
        return record if hmac.compare_digest(record.digest, digest) else None


def _record(row: tuple[object, ...]) -> TokenRecord:
    name, digest, read_only, memories, fork, created, last_used = row
    return TokenRecord(
        name=str(name),
        digest=str(digest),
        read_only=bool(read_only),
        memories=tuple(json.loads(str(memories))),
        fork=bool(fork),
        created=float(created),  # type: ignore[arg-type]
        last_used=None if last_used is None else float(last_used),  # type: ignore[arg-type]
    )
