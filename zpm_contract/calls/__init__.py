"""Hypothesis strategies for the lockstep machine's tool calls (Prolog text the reader accepts).

One module per kind: ``arguments`` (how a call's optional arguments and
memory are given), ``pools`` (the small pools names and other plain values
are drawn from), ``clauses`` (facts and rules), ``goals`` (query shapes,
cyclic terms, goals at the limits), ``bad_calls``, ``reasoning``,
``recall`` and ``history``.
"""
