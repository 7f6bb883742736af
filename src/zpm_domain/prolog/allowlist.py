"""What a query or rule body may call: the one allow-list of zpm.

Every predicate name falls in exactly one of three classes, the same on
every engine (:func:`classify`):

* ``allowed`` (:data:`ALLOWED`): pure built-ins, callable from queries and
  rule bodies; every engine implements them with SWI-Prolog 9 semantics
  (except where ``zpm`` documents its own, such as the reflection
  predicates, which see only the memory's own predicates).
* ``refused`` (:data:`DENIED`): SWI-Prolog predicates that reach outside the
  knowledge base (I/O, the OS, the database, flags, halting): refused before a
  goal reaches any engine, and by the engines at run time when a meta-call
  reaches them.
* ``user``: every other name, SWI-Prolog library names included.  Clients may
  define them; calling one that has no clauses fails.  No engine ever
  resolves such a name to a predicate of its own Prolog system, wherever the
  call appears (top of a query, conjunction, meta-call, rule body).

The first two classes are protected: no tool may define, redefine or retract
them.
"""

from __future__ import annotations

from typing import Literal

PI = tuple[str, int]


def _pis(spec: str) -> frozenset[PI]:
    out: set[PI] = set()
    for item in spec.split():
        name, _, arities = item.rpartition("/")
        for arity in arities.split(","):
            if "-" in arity:
                lo, hi = arity.split("-")
                out.update((name, n) for n in range(int(lo), int(hi) + 1))
            else:
                out.add((name, int(arity)))
    return frozenset(out)


CONTROL: frozenset[PI] = _pis(
    """
    true/0 fail/0 false/0 !/0 ,/2 ;/2 ->/2 *->/2 \\+/1 not/1 call/1-8
    catch/3 throw/1 once/1 ignore/1 forall/2 findall/3,4 bagof/3 setof/3 ^/2
    aggregate_all/3 repeat/0 :/2
    """
)
"""Control constructs and meta-predicates (their goal arguments are checked too)."""

ALLOWED: frozenset[PI] = CONTROL | _pis(
    """
    =/2 \\=/2 ==/2 \\==/2 @</2 @>/2 @=</2 @>=/2 compare/3 =@=/2 \\=@=/2
    unify_with_occurs_check/2
    var/1 nonvar/1 atom/1 number/1 integer/1 float/1 atomic/1 compound/1
    callable/1 is_list/1 string/1 ground/1 acyclic_term/1 cyclic_term/1
    is/2 =:=/2 =\\=/2 </2 >/2 =</2 >=/2 succ/2 plus/3 between/3
    functor/3 arg/3 =../2 copy_term/2 term_variables/2 subsumes_term/2
    unifiable/3 numbervars/3 setup_call_cleanup/3
    current_predicate/1,2 predicate_property/2
    atom_codes/2 atom_chars/2 char_code/2 atom_length/2 atom_concat/3 sub_atom/5
    atom_number/2 number_codes/2 number_chars/2 atom_string/2 upcase_atom/2
    downcase_atom/2 atomic_list_concat/2,3
    string_concat/3 string_chars/2 string_codes/2 string_to_atom/2 string_length/2
    number_string/2 sub_string/5 split_string/4 string_lower/2 string_upper/2
    string_code/3
    format/3
    append/3 append/2 member/2 memberchk/2 length/2 nth0/3 nth1/3 last/2 reverse/2
    msort/2 sort/2 sort/4 predsort/3 keysort/2 list_to_set/2 sum_list/2 sumlist/2
    max_list/2 min_list/2 max_member/2 min_member/2 numlist/3 maplist/2-5
    foldl/4-6 include/3 exclude/3 partition/4 select/3 selectchk/3 subtract/3
    intersection/3 union/3 delete/3 exclude/3 permutation/2 nextto/3 flatten/2
    sum_list/2 pairs_keys_values/3 pairs_keys/2 pairs_values/2 last/2
    """
)
"""Pure built-ins a query or rule body may call.

The reflection predicates ``current_predicate/1,2`` and
``predicate_property/2`` see only the user predicates of the memory the goal
runs in (see :data:`REFLECTED_PROPERTIES`)."""

REFLECTED_PROPERTIES = ("dynamic", "number_of_clauses", "defined")
"""What ``predicate_property/2`` reports, in this order, on every engine.

The predicates it and ``current_predicate/1,2`` enumerate are those the
engine port's ``predicates(ns)`` lists for the namespace the goal runs in (a
qualified ``M:current_predicate(P)`` or ``current_predicate(M:P)`` looks in
namespace ``M``): user predicates with at least one clause and predicates a
knowledge file declares dynamic, in order of first definition.  For each,
``dynamic`` when its clauses may change (not loaded from a knowledge file as
static), then ``number_of_clauses(N)``, then ``defined``.  Built-ins and
anything an engine keeps for itself are never listed."""

META_ARGS: dict[PI, tuple[int, ...]] = {
    (",", 2): (0, 0),
    (";", 2): (0, 0),
    ("->", 2): (0, 0),
    ("*->", 2): (0, 0),
    ("\\+", 1): (0,),
    ("not", 1): (0,),
    ("call", 1): (0,),
    ("once", 1): (0,),
    ("ignore", 1): (0,),
    ("forall", 2): (0, 0),
    ("catch", 3): (0, -1, 0),
    ("findall", 3): (-1, 0, -1),
    ("findall", 4): (-1, 0, -1, -1),
    ("bagof", 3): (-1, 0, -1),
    ("setof", 3): (-1, 0, -1),
    ("aggregate_all", 3): (-1, 0, -1),
    ("setup_call_cleanup", 3): (0, 0, 0),
    ("^", 2): (-1, 0),
    **{("call", n): (n - 1,) + (-1,) * (n - 1) for n in range(2, 9)},
    ("maplist", 2): (1, -1),
    ("maplist", 3): (2, -1, -1),
    ("maplist", 4): (3, -1, -1, -1),
    ("maplist", 5): (4, -1, -1, -1, -1),
    ("foldl", 4): (3, -1, -1, -1),
    ("foldl", 5): (4, -1, -1, -1, -1),
    ("foldl", 6): (5, -1, -1, -1, -1, -1),
    ("include", 3): (1, -1, -1),
    ("exclude", 3): (1, -1, -1),
    ("partition", 4): (1, -1, -1, -1),
    ("predsort", 3): (3, -1, -1),
}
"""For meta-predicates: per argument, how many arguments the call adds to it
(``0`` = a goal, ``n`` = a closure called with ``n`` more arguments, ``-1`` =
not a goal)."""

DENIED: frozenset[PI] = _pis(
    """
    halt/0,1 shell/0,1,2 system/1 getenv/2 setenv/2 unsetenv/1
    open/3,4 close/1,2 see/1 seen/0 tell/1 told/0 append/1 set_input/1 set_output/1
    current_input/1 current_output/1 set_stream/2 stream_property/2
    read/1,2 read_term/2,3 read_clause/3 get_char/1,2 get_code/1,2 get_byte/1,2
    peek_char/1,2 peek_code/1,2 peek_byte/1,2 put_char/1,2 put_code/1,2 put_byte/1,2
    write/1,2 writeln/1,2 writeq/1,2 print/1,2 write_canonical/1,2 write_term/2,3
    portray_clause/1,2 nl/0,1 tab/1,2 format/1,2 print_message/2 listing/0,1,2
    with_output_to/2 format_atom/3 read_term_from_atom/3 term_string/2,3
    consult/1 load_files/1,2 ensure_loaded/1 use_module/1,2 include/1 make/0
    assert/1,2 asserta/1,2 assertz/1,2 retract/1 retractall/1 abolish/1,2
    erase/1 recorda/2,3 recordz/2,3 recorded/2,3 flag/3 clause/2,3
    nb_setval/2 b_setval/2 nb_getval/2 b_getval/2 setarg/3 nb_setarg/3
    set_prolog_flag/2 create_prolog_flag/3 current_prolog_flag/2 prolog_flag/2
    op/3 current_op/3 dynamic/1 discontiguous/1 multifile/1 module/2 set_module/1
    garbage_collect/0 statistics/0,2 sleep/1 prolog/0 break/0 trace/0 notrace/0
    tracing/0 spy/1 nospy/1 debug/0 nodebug/0 style_check/1
    thread_create/2,3 thread_join/1,2 thread_send_message/2 thread_get_message/1,2
    thread_signal/2 mutex_create/1 with_mutex/2 message_queue_create/1
    exists_file/1 exists_directory/1 delete_file/1 rename_file/2 make_directory/1
    delete_directory/1 directory_files/2 working_directory/2 chdir/1 tmp_file/2
    tmp_file_stream/3 absolute_file_name/2,3 file_base_name/2 file_directory_name/2
    size_file/2 time_file/2 access_file/2 expand_file_name/2
    process_create/3 process_kill/1,2 process_wait/2 qsave_program/1,2
    current_module/1
    call_with_time_limit/2 call_with_inference_limit/3 call_cleanup/2
    tabling/0 table/1 abort/0 get_time/1 random/1
    random_between/3 random_member/2 random_permutation/2 set_random/1
    phrase/2,3 char_conversion/2 current_char_conversion/2 unknown/2
    sformat/2,3 atom_to_term/3 term_to_atom/2
    """
) | _pis(
    """
    |/2 $/0,1 @/2 $catch/0 $reset/0 $call_cleanup/0 $cut/0 $yield/0
    $call_continuation/1 $shift/1 $shift_for_copy/1
    """
)
"""Known SWI-Prolog built-ins that queries may not call: effects outside the
knowledge base (I/O, OS, database, flags, halting), nondeterminism from
outside (time, randomness), text conversions that depend on an engine's
own reader and writer, and the names SWI-Prolog's compiler turns into control
instructions zpm does not offer (``(A | B)``, ``$(G)``, ``G@Module``, ...)."""

PROTECTED: frozenset[PI] = ALLOWED | DENIED
"""Predicates no tool may define, redefine or retract (and ``call/N`` for
every ``N``, see :func:`is_allowed`)."""


def meta_spec(name: str, arity: int) -> tuple[int, ...] | None:
    """The :data:`META_ARGS` entry of ``name/arity`` (``call/N`` for every ``N >= 1``)."""
    spec = META_ARGS.get((name, arity))
    if spec is None and name == "call" and arity > 8:
        return (arity - 1,) + (-1,) * (arity - 1)
    return spec


Class = Literal["allowed", "refused", "user"]


def classify(name: str, arity: int) -> Class:
    """The class of ``name/arity``: ``allowed``, ``refused`` or ``user``."""
    if is_allowed(name, arity):
        return "allowed"
    if (name, arity) in DENIED:
        return "refused"
    return "user"


def is_allowed(name: str, arity: int) -> bool:
    """On the allow-list; ``call/N`` is allowed for every ``N >= 1`` (as in SWI-Prolog)."""
    return (name, arity) in ALLOWED or (name == "call" and arity > 8)


def is_denied(name: str, arity: int) -> bool:
    return (name, arity) in DENIED


def is_protected(name: str, arity: int) -> bool:
    return (name, arity) in PROTECTED or is_allowed(name, arity)
