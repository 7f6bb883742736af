"""Engine checks a plugin author runs without the contract suite's servers.

``python -m zpm_contract.engine_checks NAME`` loads engine ``NAME`` by name
(``zpm_app.engines.registry.create_engine``, so a plugin's engine as zpm would load
it) and runs, in one process, on it and on the reference python engine:

* ``copies``: ``copy_clauses`` gives exactly what ``add_clauses`` gives, and
  the two namespaces change apart afterwards;
* ``reach``: within ``reaching``, a goal that names a namespace out of
  reach (written, computed, in a stored rule, under a meta-call, in
  reflection) answers ``Memory not mounted``; the reach is put back after;
* ``probes``: every predicate SWI-Prolog 9 defines, in every goal position,
  answers as the python engine answers it (``probes.run_probes``).

It exits 0 with a one-line summary when the engine agrees, 1 with every
difference (the call, both answers) when it does not (``check.main``).
"""
