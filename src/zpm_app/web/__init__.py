"""The review page: server-rendered HTML for the people behind the agents."""
