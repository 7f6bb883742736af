"""Memories in files: a project's folders, each memory's journal (the
write-ahead log), snapshots, locks and manifest, tokens, and copying a
memory's files."""
