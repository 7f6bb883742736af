"""Persistence adapters: the write-ahead journal on disk and in memory."""

from zpm_adapters.persistence.file_journal import FileJournal
from zpm_adapters.persistence.volatile_journal import VolatileJournal, VolatileJournalStore

__all__ = ["FileJournal", "VolatileJournal", "VolatileJournalStore"]
