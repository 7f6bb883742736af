"""A memory's history: the events of its journal, kept across generations,
their cursors, and the reads over them (``history``, the changes feed)."""
