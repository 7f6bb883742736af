"""Per-call resource limits, identical for every engine.

Two kinds of limit, and why their errors read as they do:

* The *budget* of a call — ``time_s``, ``max_inferences``, ``max_memory_mb``
  (and the python engine's ``max_depth``) — bounds the work a goal may do.
  Which part of it runs out first depends on the engine: SWI-Prolog runs
  100,000,000 inferences in a few seconds and the python engine in minutes,
  and an inference or a megabyte is not the same unit on both.  So a goal
  that does not finish within its budget gets ONE text on every engine,
  naming the whole budget (``BudgetExceeded``: "Limit exceeded: the goal did
  not finish within 5 s, 100000000 inferences and 128 MB of memory").  A
  limit set in ``.zpm/config.toml`` keeps its meaning: a small
  ``max_inferences`` stops a goal after that many inferences (as the engine
  counts them), and the text shows the configured numbers.
* The *size* limits — ``MAX_INTEGER_BITS``, ``max_answer_cells`` and
  ``max_answer_chars`` — depend on the goal's results only, so every engine
  refuses the same goals with the same ``ResourceLimitExceeded`` text.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_INTEGER_BITS = 1_000_000
"""The integer limit, in bits (about 301,000 decimal digits).  SWI-Prolog
refuses a computation for which GMP would allocate more than
``MAX_INTEGER_BITS / 8`` bytes at once (flag ``max_integer_size``), result
or scratch space, before it runs (``Resource limit exceeded: an integer of
more than 1000000 bits``); so ``2 ** N`` stops at N = 999743, ``3 ** N``
near 950,000 bits, a factorial at 68401.  The python engine models those
allocations for ``+``, ``-``, ``*``, ``<<``, ``**`` and ``^`` and refuses the
same computations; other functions refuse results beyond this many bits.
A power or a shift whose estimated size exceeds the call's memory
(``max_memory_mb``) runs out of the memory budget instead, on every
engine."""

MEGABYTE = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one tool call.

    * ``time_s`` — wall-clock seconds for the whole call (default 5 s).
    * ``max_inferences`` — predicate calls (user and built-in) per solve, as
      the engine counts them.
    * ``max_memory_mb`` — memory for the terms and stacks of one solve, in
      MB (default 128, about 5,000,000 list cells).  SWI-Prolog applies it
      as the solving thread's ``stack_limit`` (set around the call and
      restored after it); the python engine counts the terms its built-ins
      build as SWI-Prolog stores them (8-byte words, 3 per list cell) and
      refuses one that would not fit, and ends a solve under which the
      process grew by more than eight times the budget (what its terms take
      there, all of them together).  The text a solve makes counts too,
      on every engine, before it is made: the atoms (and, on the python
      engine, the strings) its built-ins build and the numeric arguments of
      ``format/3``'s directives (``~Nc``, ``~N|``, ``~*c`` ...), one byte per
      character, all of them together, never given back within the solve.
    * ``max_depth`` — frames on the python engine's goal and choice stacks
      (its guard against deep recursion; SWI-Prolog's is ``max_memory_mb``).
    * ``max_solutions`` — answers query_logic returns; enumeration stops there.
    * ``max_answer_cells`` — the size of all the answers of one solve
      together: one per compound term (list cells included) and one per 64
      bits of an integer larger than that, counted over the bindings that
      leave the engine (not those of ``_``-named variables, and not the
      terms the goal builds on the way).  Beyond it the solve stops with
      ``ResourceLimitExceeded`` ("the answers are too large to return").
    * ``max_answer_chars`` — the characters of all the answers of one solve
      together: those of every atom, string and functor name (not the list
      cell's), each time it appears.  Beyond it: the same error.  A ball the
      goal throws and does not catch is held to both answer limits on its
      own; beyond them its error names only its functor (``ThrownTooLarge``).
    * ``max_input_bytes`` — size of one string argument of a tool.

    Running out of time, inferences, memory or depth raises
    ``BudgetExceeded`` (one text for all four, see the module doc).
    """

    time_s: float = 5.0
    max_inferences: int = 100_000_000
    max_memory_mb: int = 128
    max_depth: int = 2_000_000
    max_solutions: int = 100
    max_answer_cells: int = 200_000
    max_answer_chars: int = 8_000_000
    max_input_bytes: int = 64 * 1024

    @property
    def max_memory_bytes(self) -> int:
        return self.max_memory_mb * MEGABYTE


DEFAULT_LIMITS = Limits()
