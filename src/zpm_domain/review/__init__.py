"""What the people behind the agents read on the review page: the memories,
their predicates and clauses, histories, forks; plain data for a page."""
