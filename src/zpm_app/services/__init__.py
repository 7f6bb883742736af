"""What the command line does beside the tools, over ports and the domain.

Forks listed and pruned, files imported, history pruned, a project copied
between storages and compared, knowledge files pushed to a shared space, the
bearer tokens of the HTTP server made and read. No service imports an
adapter: the composition root (``zpm_app.bootstrap``) hands them theirs.
"""
