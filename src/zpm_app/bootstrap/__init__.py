"""The composition root: settings in, storages, engines and memories out.

The only part of the app that imports adapters. ``config`` reads a project's
settings, ``storages`` opens the storage they name (the project's files or a
space of a PostgreSQL database), ``startup`` opens a project's memories for
the tools, ``builtin_engines`` and ``builtin_plugin`` are the engines zpm
ships, ``journal_files`` checks and salvages the journal files of a project
that does not open.
"""
