"""Persistence adapters: the write-ahead journal on disk and in memory."""

from zpm_adapters.persistence.file_journal import FileJournal
from zpm_adapters.persistence.memory_journal import MemoryJournal, MemoryJournalStore

__all__ = ["FileJournal", "MemoryJournal", "MemoryJournalStore"]
