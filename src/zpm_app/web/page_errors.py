"""How the review page shows an error that stopped a page: the text a person
reads, and the page's status."""

from __future__ import annotations

from zpm_domain.errors import StorageUnavailable, ZpmError


def error_status(error: ZpmError, otherwise: int = 404) -> int:
    """The status of a page that ``error`` stopped: 503 while the storage is
    away (a person may try again soon), else ``otherwise``."""
    return 503 if isinstance(error, StorageUnavailable) else otherwise


def said(error: ZpmError) -> str:
    """An error as a person reads it: the tool's text, then its hint."""
    return error.message if error.hint is None else f"{error.message}: {error.hint}"
