"""Per-call resource limits, identical for every engine."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one tool call.

    * ``time_s`` — wall-clock seconds for the whole call (default 5 s).
    * ``max_inferences`` — predicate calls (user and built-in) per solve.
    * ``max_depth`` — frames on the engine's goal/choice stacks.
    * ``max_solutions`` — answers query_logic returns; enumeration stops there.
    * ``max_term_cells`` — cap on the size of a term a built-in may build.
    * ``max_answer_cells`` — compound terms (list cells included) in all the
      answers of one solve together; beyond it the solve stops with
      ``ResourceLimitExceeded`` (answers are rendered as text, and a tool
      result of megabytes helps no one).
    * ``max_input_bytes`` — size of one string argument of a tool.
    """

    time_s: float = 5.0
    max_inferences: int = 100_000_000
    max_depth: int = 2_000_000
    max_solutions: int = 100
    max_term_cells: int = 2_000_000
    max_answer_cells: int = 200_000
    max_input_bytes: int = 64 * 1024

    def with_time(self, seconds: float) -> Limits:
        from dataclasses import replace

        return replace(self, time_s=seconds)


DEFAULT_LIMITS = Limits()
