"""One mounted memory and its durable state: the memory (unit of work and reads),
recovery, snapshots and their sections, knowledge files, journal health and the
mount table.  Imports ``changes`` and every layer below it."""
