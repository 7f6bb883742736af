"""The project's bearer tokens in ``.zpm/tokens.json`` (``TokenStore`` on files).

The file is one JSON object ``{"version": 1, "tokens": [record, ...]}``,
rewritten whole for every change: written to a temporary file created with
mode 0600, fsynced, renamed over the old one, folder fsynced.  Changes hold
``.zpm/tokens.lock`` (across processes: ``zpm tokens create`` while a
server records uses).  A missing file is an empty store.
"""

from __future__ import annotations

import builtins
import json
import os
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from zpm_adapters.files.durable import write_atomically
from zpm_adapters.files.file_lock import FileLock
from zpm_domain.ports.tokens import TokenExists, TokenRecord, TokenStore

FILE_NAME = "tokens.json"
_VERSION = 1


class TokenFileDamaged(ValueError):
    """``tokens.json`` does not read as a token file; the text says where."""


class FileTokens(TokenStore):
    """The tokens in ``folder/tokens.json``."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / FILE_NAME
        self._lock = FileLock(folder / "tokens.lock")

    def add(self, record: TokenRecord) -> None:
        with self._lock:
            records = self._read()
            if any(r.name == record.name for r in records):
                raise TokenExists(record.name)
            self._write([*records, record])

    def list(self) -> builtins.list[TokenRecord]:
        return sorted(self._read(), key=lambda r: r.name)

    def revoke(self, name: str) -> bool:
        with self._lock:
            records = self._read()
            kept = [r for r in records if r.name != name]
            if len(kept) == len(records):
                return False
            self._write(kept)
            return True

    def touch(self, name: str, when: float) -> None:
        with self._lock:
            records = self._read()
            if all(r.name != name for r in records):
                return
            self._write([replace(r, last_used=when) if r.name == name else r for r in records])

    def close(self) -> None:
        self._lock.close()

    def _read(self) -> builtins.list[TokenRecord]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        try:
            data = json.loads(text)
            return [_record(item) for item in data["tokens"]]
        except (ValueError, KeyError, TypeError) as error:
            raise TokenFileDamaged(f"{self.path}: not a zpm token file ({error})") from None

    def _write(self, records: builtins.list[TokenRecord]) -> None:
        data = {"version": _VERSION, "tokens": [asdict(r) for r in records]}
        text = json.dumps(data, indent=1, sort_keys=True) + "\n"
        staged = self.path.with_name(f".{FILE_NAME}.tmp-{os.getpid()}")
        write_atomically(staged, self.path, text.encode("utf-8"), mode=0o600)


def _record(item: dict[str, Any]) -> TokenRecord:
    last_used = item.get("last_used")
    return TokenRecord(
        name=str(item["name"]),
        digest=str(item["digest"]),
        read_only=bool(item.get("read_only", False)),
        memories=tuple(str(m) for m in item.get("memories", ())),
        fork=bool(item.get("fork", False)),
        created=float(item.get("created", 0.0)),
        last_used=None if last_used is None else float(last_used),
    )
