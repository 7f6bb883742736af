"""A stored clause and what identifies and describes it: clauses, handles,
provenance, the calls a clause makes, predicate descriptions.  Imports ``prolog``."""
