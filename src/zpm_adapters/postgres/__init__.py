"""Memories in a PostgreSQL database: the storage ports over one *space*.

A space is a project's share of the database (architecture §11.1): its
memories, their journals, snapshots, fork points, ids and knowledge texts,
and its manifest of mounts.  Global memories are those of the space that
holds them (``global`` unless configured).  Needs psycopg 3 and its pool
(the ``postgres`` extra).
"""
