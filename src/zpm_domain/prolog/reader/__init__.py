"""The Prolog term reader: text to domain terms (SWI-Prolog 9 syntax).

``read_term`` reads one term (every tool argument goes through it);
``read_clauses`` reads a file of clauses.  The operator table in
:mod:`zpm_domain.prolog.reader.operators` is shared with the writer.
"""

from zpm_domain.prolog.reader.api import ReadItem, read_clauses, read_term

__all__ = ["ReadItem", "read_clauses", "read_term"]
