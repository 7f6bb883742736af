"""Example calls with their exact answers, shared by every engine: one module per feature.

A scenario is a list of steps (``steps.Step``) that runs in order in one
fresh server; its texts come from the tool reference (the spec's examples)
and from the architecture's decisions.  ``spec_walk`` gathers the walks of
the spec's examples, which the contract tests run on every engine and
``docs/tools.md`` shows.
"""
