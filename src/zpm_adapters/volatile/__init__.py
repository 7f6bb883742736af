"""Memories in this process alone: the journal, snapshots and storage the
tests use in place of files (nothing reaches a disk)."""
