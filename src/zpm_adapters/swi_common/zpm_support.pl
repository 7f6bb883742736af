/*  zpm support module: loaded once per process by the janus and pyswip engines.

    Terms travel as flat token lists in postfix order (see codec.py):
      a Name | s Text | n | i Int | f Float | v K | c Name Arity
    Input tokens arrive as atoms and numbers; output names/texts are strings.
    Every traversal of data terms is tail recursive over an explicit stack.

    Each namespace is a module zpm_<Instance>_<Name> whose only import module
    is zpm_base.  zpm_base imports exactly the allowed predicates and refuses
    the denied ones locally, so every other SWI-Prolog predicate is unknown in
    a namespace (and fails there, as the flag unknown is fail).  Goals built at
    run time are rewritten before they run (zpm_goals.pl), so that M:G always
    names a namespace of the running engine.

    SWI-Prolog's compiler binds a call in a clause body (a rule body, or a
    conjunction called at run time) to a system predicate flagged iso when
    the module has no procedure of that name, whatever the module imports.
    So each namespace gets its own procedure for every iso system predicate
    (whether system defines it or imports it from a module of its own) that
    zpm_base does not import as it is: an import from zpm_base for the
    ones zpm_base defines itself (refusals, zpm's own versions) and an
    undefined, redefined one for the others (user predicates, which fail
    until a client defines them).
*/
:- module(zpm_support,
          [ zpm_init/2, zpm_init/3, zpm_init/4, autoloaded_now/1, zpm_meta/1, zpm_ensure/2, zpm_ensure/3, zpm_drop/1,
            zpm_drop/2, zpm_add/4, zpm_add/5, zpm_add_all/4, zpm_copy_predicate/6, zpm_declared/3, zpm_forget/3, zpm_erase/1, zpm_erase_all/1,
            zpm_rename/4,
            zpm_solve/6, zpm_solve_as_if/8, zpm_prove/6, zpm_stack_limit/2, zpm_version/1, zpm_thread_id/1, zpm_settle/0
          ]).
:- use_module(library(prolog_wrap)).
:- use_module(library(time)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(aggregate)).
:- use_module(library(pairs)).
:- use_module(library(error)).
:- use_module(library(sort)).
:- use_module(library(assoc)).

:- dynamic zpm_namespace/3, zpm_ref/3, zpm_next_id/1, zpm_answer/1.
:- dynamic denied_pi/2, base_ready/0, iso_local/3, recorded_autoload/2, autoloaded_now/1,
    autoloading/3.
zpm_next_id(1).

zpm_version(V) :- current_prolog_flag(version, V).

:- multifile user:message_hook/3.
user:message_hook(import_private(zpm_base, _), _, _).
user:message_hook(import_private(_, zpm_base:_), _, _).

%!  zpm_init(+Allowed, +Denied, +MaxIntegerBytes) is det.
%   Allowed and Denied are lists Name-Arity.  Wraps every denied predicate
%   that exists so that, while a query runs, calling it throws zpm_denied/1
%   (library code reaches it this way), and builds zpm_base once.  No
%   integer may take more than MaxIntegerBytes (flag max_integer_size, for
%   the whole process: GMP refuses to allocate a larger one, so
%   X is 2**100000000 ends at once instead of computing for a minute).
zpm_init(Allowed, Denied, MaxIntegerBytes) :-
    set_prolog_flag(max_integer_size, MaxIntegerBytes),
    zpm_init(Allowed, Denied).

%!  zpm_init(+Allowed, +Denied, +MaxIntegerBytes, +Autoloaded) is det.
%   zpm_init/3, given what autoload_all/0 does here on one SWI-Prolog
%   version: Version-Preds, each [Module, Name, Arity], what it autoloads
%   in order, then each import there is after it (recorded by
%   tools/record_swi_autoload.py).  On that version those predicates are
%   defined directly, without autoload_all/0's walks over all loaded code
%   (half of a start); on another, autoload_all/0 runs.
zpm_init(Allowed, Denied, MaxIntegerBytes, Version-Preds) :-
    retractall(recorded_autoload(_, _)),
    assertz(recorded_autoload(Version, Preds)),
    zpm_init(Allowed, Denied, MaxIntegerBytes).

zpm_init(Allowed, Denied) :-
    retractall(denied_pi(_, _)),
    forall(member(N-A, Denied), assertz(denied_pi(N, A))),
    retractall(allowed_pi(_, _)),
    forall(member(N-A, Allowed), assertz(allowed_pi(N, A))),
    zpm_mi_init,
    forall(member(N-A, Denied), wrap_denied(N, A)),
    nb_linkval('$zpm_sandbox', off),
    current_prolog_flag(verbose, Verbose),
    set_prolog_flag(verbose, silent),
    % Everything is loaded now, so nothing is autoloaded while a query runs:
    % loading calls predicates the sandbox refuses (set_prolog_flag/2...).
    load_autoloaded,
    set_prolog_flag(verbose, Verbose),
    (   base_ready -> true ; make_base(Allowed), assertz(base_ready) ).

%   What autoload_all/0 does, done: on the version of the record, each
%   recorded predicate defined in its module as a first call would define
%   it, in order, twice (a module that a later definition loads gets its
%   own on the second pass), then autoloading off, as autoload_all/0
%   leaves it.  Else autoload_all/0 itself, noting in autoloaded_now/1 (the
%   record) what it autoloaded, then every import there is after it.
%   tests/engine_swi/test_autoload_record.py checks that both end alike.
load_autoloaded :-
    current_prolog_flag(version, Version),
    recorded_autoload(Version, Preds),
    !,
    set_prolog_flag(autoload, true),    % as autoload_all/0 has it while it walks
    forall(member([M, N, A], Preds), define(M, N, A)),
    forall(member([M, N, A], Preds), define(M, N, A)),
    set_prolog_flag(autoload, false).
load_autoloaded :-
    retractall(autoloading(_, _, _)),
    setup_call_cleanup(
        asserta((user:message_hook(autoload(M:N/A, _), _, _) :-
                     zpm_support:note_autoload(M, N, A)), Ref),
        autoload_all,
        erase(Ref)),
    findall([M, N, A], autoloading(M, N, A), Messages),
    findall(P, imported(P), Imported),
    sort(Imported, Resolved),
    append(Messages, Resolved, Preds),
    retractall(autoloaded_now(_)),
    assertz(autoloaded_now(Preds)).

%   M and N come as text (strings from Python, atoms from the record).
define(M0, N0, A) :-
    atom_string(M, M0),
    atom_string(N, N0),
    functor(H, N, A),
    (   catch('$define_predicate'(M:H), _, fail)
    ->  true
    ;   true
    ).

note_autoload(M, N, A) :-
    assertz(autoloading(M, N, A)),
    fail.                               % other hooks see it too

%   [Module, Name, Arity]: a predicate Module has from another module.
imported([M, N, A]) :-
    current_module(M),
    predicate_property(M:H, imported_from(_)),
    functor(H, N, A).

make_base(Allowed) :-
    set_module(zpm_base:class(user)),
    findall(I, import_module(zpm_base, I), Is),
    forall(member(I, Is), delete_import_module(zpm_base, I)),
    set_prolog_flag(zpm_base:unknown, fail),
    forall(member(N-A, Allowed), import_allowed(N, A)),
    forall(own_goal(PI), @(import(zpm_support:PI), zpm_base)),
    forall(denied_pi(N, A), shadow_denied(zpm_base, N, A)),
    forall(own_version(H, Body), own_version_in_base(H, Body)),
    retractall(iso_local(_, _, _)),
    forall(iso_local_kind(N, A, Kind), assertz(iso_local(N, A, Kind))).

%!  iso_local_kind(-Name, -Arity, -Kind) is nondet.
%   The iso system predicates a namespace must hold a procedure of its own
%   for: Kind is import (zpm_base defines it) or undefined.  That includes
%   the ones system imports from a module of its own (predicate_property/2
%   from $syspreds, initialization/1 from $toplevel ...): the compiler binds
%   those just the same.
iso_local_kind(N, A, Kind) :-
    predicate_property(system:H, iso),
    functor(H, N, A),
    home(H, Home),
    \+ predicate_property(zpm_base:H, imported_from(Home)),
    (   predicate_property(zpm_base:H, defined),
        \+ predicate_property(zpm_base:H, imported_from(_))
    ->  Kind = import
    ;   predicate_property(zpm_base:H, imported_from(zpm_support))
    ->  Kind = import
    ;   Kind = undefined
    ).

%   A namespace's own procedure for an iso system predicate (see above).
iso_local_in(Module, N, A, import) :-
    @(import(zpm_base:N/A), Module).
iso_local_in(Module, N, A, undefined) :-
    functor(H, N, A),
    @(redefine_system_predicate(H), Module).

%   succ/2 as SWI-Prolog 9.0 and the python engine have it: SWI-Prolog 9.2
%   fails on a bound second argument that is not a non-negative integer.
%   The reflection predicates see the namespace they are called from (the
%   context module of these transparent definitions), see zpm_reflect.pl.
own_version(succ(X, Y), zpm_support:zpm_succ(X, Y)).
own_version(format(S, F, A), zpm_support:zpm_format(S, F, A)).
%   The built-ins that make text count it (zpm_text.pl).
own_version(atom_concat(A, B, C), zpm_support:zpm_atom_concat(A, B, C)).
own_version(string_concat(A, B, C), zpm_support:zpm_string_concat(A, B, C)).
own_version(atomic_list_concat(L, A),
            zpm_support:zpm_list_concat(atomic_list_concat(L, A), L, '', A)).
own_version(atomic_list_concat(L, S, A),
            zpm_support:zpm_list_concat(atomic_list_concat(L, S, A), L, S, A)).
own_version(split_string(S, Sep, Pad, Subs),
            zpm_support:zpm_split(split_string(S, Sep, Pad, Subs), Subs)).
own_version(atom_codes(A, L), zpm_support:zpm_atom_codes(A, L)).
own_version(atom_chars(A, L), zpm_support:zpm_atom_chars(A, L)).
own_version(atom_number(A, N), zpm_support:zpm_atom_number(A, N)).
own_version(atom_string(A, S), zpm_support:zpm_atom_string(A, S)).
own_version(string_to_atom(S, A), zpm_support:zpm_string_to_atom(S, A)).
own_version(number_string(N, S), zpm_support:zpm_number_string(N, S)).
own_version(string_chars(S, L), zpm_support:zpm_string_chars(S, L)).
own_version(string_codes(S, L), zpm_support:zpm_string_codes(S, L)).
own_version(upcase_atom(A, U), zpm_support:zpm_upcase_atom(A, U)).
own_version(downcase_atom(A, D), zpm_support:zpm_downcase_atom(A, D)).
own_version(string_upper(S, U), zpm_support:zpm_string_upper(S, U)).
own_version(string_lower(S, D), zpm_support:zpm_string_lower(S, D)).
own_version(sub_atom(A, B, L, F, Sub), zpm_support:zpm_sub_atom(A, B, L, F, Sub)).
own_version(sub_string(S, B, L, F, Sub), zpm_support:zpm_sub_string(S, B, L, F, Sub)).
own_version(current_predicate(S), '$zpm_current_predicate'(S)).
own_version(current_predicate(N, H), '$zpm_current_predicate'(N, H)).
own_version(predicate_property(H, P), '$zpm_predicate_property'(H, P)).

own_version_in_base(H, Body) :-
    functor(H, N, A),
    @(redefine_system_predicate(H), zpm_base),
    @(module_transparent(N/A), zpm_base),
    assertz(zpm_base:(H :- Body)).

zpm_succ(X, Y) :-
    (   integer(X), nonvar(Y)
    ->  (   \+ integer(Y) -> throw(error(type_error(integer, Y), context(system:succ/2, _)))
        ;   Y < 0 -> throw(error(domain_error(not_less_than_zero, Y), context(system:succ/2, _)))
        ;   true
        )
    ;   true
    ),
    succ(X, Y).

import_allowed(N, A) :-
    functor(H, N, A),
    (   own_goal(N/A) -> true
    ;   own_version(H, _) -> true
    ;   home(H, M) -> @(import(M:N/A), zpm_base)
    ;   true
    ).

%   The module that defines H: system, or the library system imports it from,
%   or one of the libraries of the allow-list.
home(H, M) :-
    predicate_property(system:H, defined), !,
    (   predicate_property(system:H, imported_from(M0)) -> M = M0 ; M = system ).
home(H, M) :-
    member(M, [lists, apply, aggregate, pairs, sort, backward_compatibility]),
    predicate_property(M:H, defined),
    \+ predicate_property(M:H, imported_from(_)), !.

%   Global variables and destructive assignment are left unwrapped: library
%   predicates of the allow-list use them (aggregate_all/3); zpm_base's local
%   definitions still refuse them in queries.
wrap_denied(N, _) :- unwrapped(N), !.
wrap_denied(N, A) :-
    functor(H, N, A),
    (   member(M, [system, lists, apply, aggregate, pairs, time]),
        predicate_property(M:H, defined),
        \+ predicate_property(M:H, imported_from(_)),
        \+ predicate_property(M:H, transparent)
    ->  catch(wrap_predicate(M:H, zpm_sandbox, W, zpm_support:guard(N/A, W)), _, true)
    ;   true
    ).

:- meta_predicate guard(+, 0).
guard(PI, W) :-
    (   nb_current('$zpm_sandbox', on)
    ->  deny(PI)
    ;   call(W)
    ).

unwrapped(nb_setval).
unwrapped(b_setval).
unwrapped(nb_getval).
unwrapped(b_getval).
unwrapped(setarg).
unwrapped(nb_setarg).
unwrapped(current_prolog_flag).

%   A local definition refuses a denied predicate reached through a
%   meta-call (module-sensitive ones cannot be wrapped).
shadow_denied(Module, N, A) :-
    functor(H, N, A),
    (   predicate_property(system:H, defined)
    ->  catch(@(redefine_system_predicate(H), Module), _, true)
    ;   true
    ),
    catch(assertz(Module:(H :- zpm_support:deny(N/A))), _, true).

%   nb_setval, not nb_linkval: the compound must outlive the backtracking
%   that the throw causes.
deny(PI) :-
    nb_setval('$zpm_violation', denied(PI)),
    throw(zpm_denied(PI)).

%!  zpm_ensure(+Instance, +Name, -Module) is det.
%   The module of namespace Name of engine Instance (created when new).
zpm_ensure(Inst, Name, Module) :-
    (   zpm_namespace(Inst, Name, Module) -> true
    ;   format(atom(Module), 'zpm_~w_~w', [Inst, Name]),
        set_module(Module:class(user)),
        set_module(Module:base(zpm_base)),
        set_prolog_flag(Module:unknown, fail),
        forall(iso_local(N, A, Kind), iso_local_in(Module, N, A, Kind)),
        assertz(zpm_namespace(Inst, Name, Module))
    ).

%!  zpm_ensure(+Name, -Module) is det.  zpm_ensure/3 of instance ns.
zpm_ensure(Name, Module) :- zpm_ensure(ns, Name, Module).

%!  zpm_drop(+Instance, +Name) is det.
%   Abolishes the module's own predicates (their clauses with them), forgets
%   their clause ids and the namespace (SWI-Prolog keeps the empty module).
zpm_drop(Inst, Name) :-
    (   retract(zpm_namespace(Inst, Name, Module))
    ->  forall(zpm_ref(_, Module, Ref), retractall(zpm_mi_rewritten(Ref))),
        retractall(zpm_ref(_, Module, _)),
        retractall(zpm_mi_rules(Module, _, _)),
        forall(( predicate_property(Module:H, dynamic),
                 \+ predicate_property(Module:H, imported_from(_)) ),
               ( functor(H, N, A), catch(abolish(Module:(N/A)), _, true) )),
        retractall(zpm_pred(Module, _, _)),
        retractall(zpm_pred_static(Module, _, _)),
        retractall(zpm_pred_declared(Module, _, _))
    ;   true
    ).

%!  zpm_drop(+Name) is det.  zpm_drop/2 of instance ns.
zpm_drop(Name) :- zpm_drop(ns, Name).

%!  zpm_add(+Module, +Tokens, +Front, -Result) is det.
%!  zpm_add(+Module, +Tokens, +Front, +Static, -Result) is det.
%   Result is the new clause id, or [error, BallTokens].  Static (true or
%   false, default false) records a clause of a knowledge file for the
%   reflection predicates (zpm_reflect.pl).
zpm_add(Module, Tokens, Front, Result) :-
    zpm_add(Module, Tokens, Front, false, Result).

zpm_add(Module, Tokens, Front, Static, Result) :-
    decode(Tokens, Clause0),
    (   Clause0 = (H :- true) -> Clause = H ; Clause = Clause0 ),
    catch(add(Module, Clause, Front, Id), E,
          ( encode(E, BallTokens, _), Result = [error, BallTokens] )),
    (   var(Result)
    ->  Result = Id,
        ( Clause = (H1 :- _) -> true ; H1 = Clause ),
        functor(H1, N, A),
        note_predicate(Module, N, A, Static)
    ;   true
    ).

%!  zpm_add_all(+Module, +TokenLists, -First, -Refused) is det.
%   zpm_add/4 (at the end, not static) of each clause in order, as clauses
%   First, First+1, ...; Refused lists [Offset, BallTokens] for each clause
%   refused (Offset counts from 0; its id stays unused).  The ids are taken
%   as one block and each predicate is made dynamic once, so a batch costs
%   an assert per clause and little more, and its answer is as short as its
%   refusals.
zpm_add_all(Module, TokenLists, First, Refused) :-
    length(TokenLists, Count),
    retract(zpm_next_id(First)), Next is First + Count, assertz(zpm_next_id(Next)),
    empty_assoc(Seen),
    add_each(TokenLists, Module, First, First, Seen, Refused).

add_each([], _, _, _, _, []).
add_each([Tokens|Ts], Module, First, Id, Seen0, Refused) :-
    decode(Tokens, Clause),
    add_one(Module, Clause, Id, Seen0, Seen, Result),
    (   Result = [error, Ball]
    ->  Offset is Id - First, Refused = [[Offset, Ball]|Rest]
    ;   Refused = Rest
    ),
    Id1 is Id + 1,
    add_each(Ts, Module, First, Id1, Seen, Rest).

%!  zpm_copy_predicate(+Source, +Module, +Name, +Arity, +Count, -First) is semidet.
%   Copies the Count clauses of Name/Arity in namespace Source to the end of
%   Module, in order, as clauses First, First+1, ... (as zpm_add_all/3 adds
%   each); fails, changing nothing, when Source holds another number of
%   them.  A fork copies its base's predicates so.  The clauses are read
%   10,000 at a time, so the stacks never hold a large predicate whole.
zpm_copy_predicate(Source, Module, Name, A, Count, First) :-
    atom_string(N, Name),
    functor(H, N, A),
    predicate_property(Source:H, number_of_clauses(Count)),
    ensure_dynamic(Module, H, N, A),
    retract(zpm_next_id(First)), Next is First + Count, assertz(zpm_next_id(Next)),
    nb_setval(zpm_copy_id, First),
    forall(findnsols(10000, H-Body, clause(Source:H, Body), Chunk),
           (   nb_getval(zpm_copy_id, Id),
               copy_each(Chunk, Module, Id, Id1),
               nb_setval(zpm_copy_id, Id1)
           )),
    note_predicate(Module, N, A, false).

copy_each([], _, Id, Id).
copy_each([H-Body|Clauses], Module, Id, Last) :-
    (   Body == true -> Clause = H ; Clause = (H :- Body) ),
    assertz(Module:Clause, Ref),
    assertz(zpm_ref(Id, Module, Ref)),
    zpm_mi_note(Module, Ref, Clause),
    Id1 is Id + 1,
    copy_each(Clauses, Module, Id1, Last).

%   add_one(+Module, +Clause, +Id, +Seen0, -Seen, -Result): Clause (a fact
%   may come as H :- true) added as clause Id; Result is Id, or
%   [error, BallTokens] when it was refused.  Seen: the predicates made
%   dynamic so far.
add_one(Module, Clause0, Id, Seen0, Seen, Result) :-
    (   Clause0 = (H :- true) -> Clause = H ; Clause = Clause0 ),
    (   Clause = (H1 :- _) -> true ; H1 = Clause ),
    functor(H1, N, A),
    catch(add_counted(Module, Clause, H1, N/A, Id, Seen0, Seen), E,
          ( encode(E, BallTokens, _), Result = [error, BallTokens], Seen = Seen0 )),
    (   var(Result) -> Result = Id ; true ).

add_counted(Module, Clause, H, N/A, Id, Seen0, Seen) :-
    (   get_assoc(N/A, Seen0, _)
    ->  Seen = Seen0
    ;   ensure_dynamic(Module, H, N, A),
        put_assoc(N/A, Seen0, true, Seen)
    ),
    assertz(Module:Clause, Ref),
    assertz(zpm_ref(Id, Module, Ref)),
    zpm_mi_note(Module, Ref, Clause),
    note_predicate(Module, N, A, false).

add(Module, Clause, Front, Id) :-
    ( Clause = (H :- _) -> true ; H = Clause ),
    functor(H, N, A),
    ensure_dynamic(Module, H, N, A),
    (   Front == true -> asserta(Module:Clause, Ref) ; assertz(Module:Clause, Ref) ),
    retract(zpm_next_id(Id)), Id1 is Id + 1, assertz(zpm_next_id(Id1)),
    assertz(zpm_ref(Id, Module, Ref)),
    zpm_mi_note(Module, Ref, Clause).

ensure_dynamic(Module, H, N, A) :-
    (   predicate_property(Module:H, dynamic),
        \+ predicate_property(Module:H, imported_from(_))
    ->  true
    ;   (   predicate_property(system:H, defined)
        ->  @(redefine_system_predicate(H), Module)
        ;   true
        ),
        declare_dynamic(Module, N, A)
    ).

%   SWI-Prolog reads the head of (/)/2 and (//)/2 as a predicate indicator
%   with unbound parts, so dynamic/1 cannot declare them; assertz/2 makes
%   them dynamic all the same.
declare_dynamic(Module, N, A) :-
    (   N/A = (/)/2 -> true
    ;   N/A = (//)/2 -> true
    ;   dynamic(Module:(N/A))
    ).

%!  zpm_rename(+Module, +New, +Arity, +Ids) is det.
%   Moves the clauses Ids, in order, to the end of New/Arity: each keeps its
%   id and its body, and its head takes the name New.  The proof
%   interpreters' notes move with each clause (zpm_mi_note/3): a rule makes
%   New/Arity a predicate with rules.
zpm_rename(Module, New, A, Ids) :-
    functor(H, New, A),
    ensure_dynamic(Module, H, New, A),
    forall(member(Id, Ids), rename_clause(Module, New, Id)),
    note_predicate(Module, New, A, false).

rename_clause(Module, New, Id) :-
    retract(zpm_ref(Id, Module, Ref)),
    clause(Module:Head, Body, Ref),
    Head =.. [_|Args],
    Renamed =.. [New|Args],
    assertz(Module:(Renamed :- Body), Ref1),
    erase(Ref),
    retractall(zpm_mi_rewritten(Ref)),
    assertz(zpm_ref(Id, Module, Ref1)),
    (   Body == true -> zpm_mi_note(Module, Ref1, Renamed) ; zpm_mi_note(Module, Ref1, (Renamed :- Body)) ).

%!  zpm_erase_all(+Ids) is det.
%   Erases the clauses Ids (nothing for those gone).
zpm_erase_all([]).
zpm_erase_all([Id|Ids]) :-
    zpm_erase(Id),
    zpm_erase_all(Ids).

%!  zpm_erase(+Id) is det.
%   Erases the clause Id (nothing if it is gone).
zpm_erase(Id) :-
    (   retract(zpm_ref(Id, _, Ref))
    ->  retractall(zpm_mi_rewritten(Ref)),
        catch(erase(Ref), _, true)
    ;   true
    ).

%!  zpm_solve(+Module, +Tokens, +Limits, +Reach, -Answers, -Status)
%   Limits is [TimeS, MaxInf, MaxBytes, MaxSol, MaxCells, MaxChars]; Reach is all or
%   the names of the namespaces M:G may name (reachable_namespace/2: any
%   other answers as a namespace that does not exist); the calling
%   thread's stack_limit must be MaxBytes (zpm_stack_limit/2, called on its
%   own before and after: set in the same query as a goal that raises a
%   resource error, the flag makes janus lose the error).  Answers: token
%   lists of '$ans'(Vars...) in order (at most MaxSol; an answer that would
%   take the size of all answers over MaxCells or MaxChars, or binds a
%   variable to a cyclic term, is not encoded and ends the run).  Status:
%   ok, time, inferences, memory, integer, [cyclic, I] (the I-th variable of
%   Vars is bound to a cyclic term), cyclic_ball, too_large, [denied, Name,
%   Arity], [not_mounted, Name], [error, Tokens], or [ball_too_large, Kind |
%   Functor] for an uncaught ball over MaxCells or MaxChars on its own (Kind
%   formal or ball: whose functor Name, Arity follows; nothing follows for
%   an atomic one).  The text the goal makes counts against MaxBytes
%   (zpm_text.pl).  A limit or a refusal is
%   recorded outside the goal's reach, so catch/3 in the goal cannot hide
%   it.  The goal's stacks are bounded by MaxBytes (the thread's stack_limit
%   while it runs).
zpm_solve(Module, Tokens, Limits, Reach, Answers, Status) :-
    decode(Tokens, Goal0),
    Goal0 = '$ans'(Goal, Vars),
    run_limited(Module, Module:Goal, '$w'-Vars, Limits, Reach, Answers, Status).

%!  zpm_solve_as_if(+Module, +Adds, +Erases, +Tokens, +Limits, +Reach, -Answers, -Status)
%   zpm_solve/6 as if the clauses Erases (ids) were erased and Adds (token
%   lists) added at the end of Module, as zpm_add_all/4 adds them: all of it
%   inside snapshot/1, so the database is as it was when it ends, however it
%   ends (ids, the reflection records and the next id included).
zpm_solve_as_if(Module, Adds, Erases, Tokens, Limits, Reach, Answers, Status) :-
    snapshot(( zpm_erase_all(Erases),
               zpm_add_all(Module, Adds, _, _),
               zpm_solve(Module, Tokens, Limits, Reach, Answers, Status)
             )).

%!  run_limited(+Module, +Run, +Watched-Vars, +Limits, +Reach, -Answers, -Status)
%   zpm_solve/6 of the goal Run (a query of namespace Module, or an entry of
%   zpm's own interpreters), whose answers are Vars.  Watched ('$w'(W...))
%   holds variables that are not returned but must not be bound to a cyclic
%   term either: status [cyclic, I] counts them before the values of Vars.
run_limited(Module, Run, Returned, Limits, Reach, Answers, Status) :-
    nb_setval('$zpm_reach', Reach),
    catch(run_interruptible(Module, Run, Returned, Limits, Answers0, Status0),
          zpm_interrupted, (Answers0 = [], Status0 = interrupted)),
    nb_setval('$zpm_interruptible', false),
    Answers = Answers0, Status = Status0.

run_interruptible(_, _, _, _, [], interrupted) :-
    nb_setval('$zpm_interruptible', true),
    nb_current('$zpm_interrupt', true), !.
run_interruptible(Module, Run, Returned, [TimeS, MaxInf, MaxBytes, MaxSol, MaxCells, MaxChars],
                  Answers, Status) :-
    retractall(zpm_answer(_)),
    zpm_namespace(Inst, _, Module), !,
    nb_setval('$zpm_instance', Inst),
    nb_linkval('$zpm_violation', none),
    nb_setval('$zpm_cyclic', none),
    nb_setval('$zpm_text', text(MaxBytes)),
    nb_setval('$zpm_answer_limits', MaxCells-MaxChars),
    get_time(T0), Deadline is T0 + TimeS, statistics(inferences, I0),
    nb_setval('$zpm_limits', limits(Deadline, I0, MaxInf)),
    catch(with_alarm(TimeS,
              call_with_inference_limit(collect(Run, Returned, MaxSol, MaxCells-MaxChars),
                                        MaxInf, R)),
          E, true),
    nb_linkval('$zpm_sandbox', off),
    reclaim_text(MaxBytes),
    nb_setval('$zpm_text', none),
    findall(A, retract(zpm_answer(A)), Answers0),
    nb_getval('$zpm_violation', Violation),
    status(Violation, E, R, Answers0, Answers, Status).

%   After a solve that made more than 16 MB of text, the atoms nothing
%   refers to any more are reclaimed at once: SWI-Prolog collects atoms
%   when many have been made since the last time (10,000 by default),
%   and a few huge ones would otherwise stay until then.
reclaim_text(MaxBytes) :-
    (   nb_current('$zpm_text', text(Left)),
        MaxBytes - Left > 16 * 1024 * 1024
    ->  garbage_collect_atoms
    ;   true
    ).

%!  zpm_stack_limit(+Bytes, -Old) is det.
%   Bounds the stacks of the calling thread (its memory for terms and
%   frames) by Bytes, until the next call; Old is the bound it had.
zpm_stack_limit(Bytes, Old) :-
    current_prolog_flag(stack_limit, Old),
    set_prolog_flag(stack_limit, Bytes).

%!  zpm_interrupt(+Signal) is det.
%   The handler of SIGUSR2, which the engine raises in the thread that
%   solves (PL_thread_raise) when the client cancels the call: the running
%   solve stops (its status is interrupted); outside a solve, the request
%   waits in '$zpm_interrupt' for the next solve, until zpm_settle/0.
zpm_interrupt(_) :-
    nb_setval('$zpm_interrupt', true),
    (   nb_current('$zpm_interruptible', true)
    ->  (   nb_getval('$zpm_violation', none)
        ->  nb_linkval('$zpm_violation', interrupted)
        ;   true
        ),
        throw(zpm_interrupted)
    ;   true
    ).

:- on_signal(usr2, _, zpm_support:zpm_interrupt).

%!  zpm_settle is det.
%   Forgets an interruption (a signal still pending is handled first).
zpm_settle :-
    zpm_thread_id(_),
    nb_setval('$zpm_interrupt', false).

%!  zpm_thread_id(-Id) is det.
%   The number of the calling Prolog thread (for PL_thread_raise).
zpm_thread_id(Id) :-
    thread_self(Thread),
    thread_property(Thread, id(Id)).

with_alarm(TimeS, Goal) :-
    setup_call_cleanup(alarm(TimeS, zpm_support:time_up, Id, [remove(false)]),
                       once(Goal),
                       catch(remove_alarm(Id), _, true)).

time_up :-
    (   nb_getval('$zpm_violation', none) -> nb_linkval('$zpm_violation', time) ; true ),
    throw(time_limit_exceeded).

status(denied(N/A), _, _, As, As, [denied, S, A]) :- !, atom_string(N, S).
status(not_mounted(M), _, _, As, As, [not_mounted, S]) :- !, atom_string(M, S).
status(time, _, _, As, As, time) :- !.
status(interrupted, _, _, _, [], interrupted) :- !.
status(inferences, _, _, As, As, inferences) :- !.
status(memory, _, _, As, As, memory) :- !.
status(_, E, _, As, As, St) :- nonvar(E), !, error_status(E, St).
status(_, _, inference_limit_exceeded, As, As, inferences) :- !.
status(_, _, _, As0, As, St) :- last_status(As0, As, St).

last_status(As0, As, [cyclic, I]) :-
    append(As, [cyclic], As0), !,
    nb_getval('$zpm_cyclic', I).
last_status(As0, As, too_large) :- append(As, [too_large], As0), !.
last_status(As, As, ok).

error_status(time_limit_exceeded, time) :- !.
error_status(inference_limit_exceeded, inferences) :- !.
error_status(E, memory) :- memory_error(E), !.
error_status(E, integer) :- integer_size_error(E), !.
error_status(E, cyclic_ball) :- \+ acyclic_term(E), !.
error_status(E0, St) :-
    nb_getval('$zpm_answer_limits', Limits),
    (   term_size_within([E0], Limits, _)
    ->  scrub(E0, E), encode(E, Tokens, _), St = [error, Tokens]
    ;   too_large_ball(E0, St)
    ).

%   The status of a ball too large to return: its formal's functor for an
%   ISO error, else its own (none for an atomic term).
too_large_ball(error(F, _), [ball_too_large, formal|Functor]) :- !, told_functor(F, Functor).
too_large_ball(E, [ball_too_large, ball|Functor]) :- told_functor(E, Functor).

told_functor(T, [Name, A]) :- compound(T), !, compound_name_arity(T, N, A), name_text(N, Name).
told_functor(_, []).

%   The stacks outgrew the stack_limit of the call (its memory budget).
memory_error(error(resource_error(R), _)) :- stack_resource(R).

stack_resource(stack).
stack_resource(stack_overflow).
stack_resource(global_stack).
stack_resource(local_stack).
stack_resource(trail_stack).
stack_resource(memory).

%   An integer beyond the flag max_integer_size (zpm_init/3 sets it).
integer_size_error(error(resource_error(tripwire(max_integer_size, _)), _)).

collect(Run, Watched-Vars, MaxSol, MaxCells-MaxChars) :-
    State = state(0, MaxCells, MaxChars),
    nb_linkval('$zpm_sandbox', on),
    (   MaxSol > 0,
        call(Run),
        nb_linkval('$zpm_sandbox', off),
        (   \+ nb_getval('$zpm_violation', none)
        ->  true
        ;   arg(2, State, Cells0),
            arg(3, State, Chars0),
            Watched =.. [_|Ws],
            Vars =.. [_|Values],
            (   nth1(I, Ws, W), \+ acyclic_term(W)
            ->  Size = cyclic(I)
            ;   length(Ws, NW), I0 is NW + 1,
                answer_size(Values, I0, Cells0-Chars0, Size)
            ),
            keep_answer(Size, Vars, State, MaxSol)
        )
    ->  true
    ;   true
    ),
    nb_linkval('$zpm_sandbox', off).

push_answer(A) :- assertz(zpm_answer(A)).

%   keep_answer(+Size, +Vars, !State, +MaxSol) is semidet: records the
%   answer Vars of answer_size/4 Size (or why it cannot be returned, which
%   ends the run); fails to ask for the next answer while fewer than MaxSol
%   are recorded.
keep_answer(cyclic(I), _, _, _) :-
    nb_setval('$zpm_cyclic', I),
    push_answer(cyclic).
keep_answer(too_large, _, _, _) :-
    push_answer(too_large).
keep_answer(left(Cells, Chars), Vars, State, MaxSol) :-
    encode(Vars, Enc, _),
    push_answer(Enc),
    arg(1, State, N0), N is N0 + 1, nb_setarg(1, State, N),
    nb_setarg(2, State, Cells),
    nb_setarg(3, State, Chars),
    (   N >= MaxSol -> true
    ;   nb_linkval('$zpm_sandbox', on), fail
    ).

%!  answer_size(+Values, +I, +Left0, -Result) is det.
%   The values of an answer, from the I-th variable on, in order: Result is
%   cyclic(J) when the J-th is a cyclic term (checked before its size, as
%   the python engine does), too_large when they do not fit in what is left
%   of the answer limits, Left0 (Cells-Chars), else left(Cells, Chars),
%   what is left after them (term_size_within/3).
answer_size([], _, Cells-Chars, left(Cells, Chars)).
answer_size([V|Vs], I, Left0, Result) :-
    (   \+ acyclic_term(V)
    ->  Result = cyclic(I)
    ;   term_size_within([V], Left0, Left)
    ->  I1 is I + 1,
        answer_size(Vs, I1, Left, Result)
    ;   Result = too_large
    ).

%!  term_size_within(+Terms, +Left0, -Left) is semidet.
%   Terms fit in Left0 (Cells-Chars), leaving Left: a cell per compound term
%   (list cells included) and per 64 bits of an integer of 64 bits or more,
%   a character per character of an atom, a string or a functor name other
%   than '[|]' (rterms.charge_answer_size of the python engine).  Found
%   without encoding, visiting at most Cells + 1 compounds, so a term far
%   over the limits costs little (a cyclic one never fits).
term_size_within([], Left, Left).
term_size_within([T|Ts], Cells0-Chars0, Left) :-
    (   compound(T)
    ->  Cells is Cells0 - 1,
        Cells >= 0,
        compound_name_arity(T, N, A),
        (   N == '[|]', A =:= 2 -> Chars = Chars0 ; name_chars(N, Chars0, Chars) ),
        T =.. [_|Args],
        append(Args, Ts, Ts1),
        term_size_within(Ts1, Cells-Chars, Left)
    ;   atom(T)
    ->  (   T == [] -> Chars = Chars0 ; name_chars(T, Chars0, Chars) ),
        term_size_within(Ts, Cells0-Chars, Left)
    ;   string(T)
    ->  string_length(T, L),
        Chars is Chars0 - L,
        Chars >= 0,
        term_size_within(Ts, Cells0-Chars, Left)
    ;   integer(T), T =\= 0
    ->  Cells is Cells0 - (msb(abs(T)) + 1) >> 6,
        Cells >= 0,
        term_size_within(Ts, Cells-Chars0, Left)
    ;   term_size_within(Ts, Cells0-Chars0, Left)
    ).

name_chars(N, Chars0, Chars) :-
    atom_length(N, L),
    Chars is Chars0 - L,
    Chars >= 0.

:- include(zpm_goals).
:- include(zpm_cleanup).
:- include(zpm_catch).
:- include(zpm_reflect).
:- include(zpm_codec).
:- include(zpm_format).
:- include(zpm_text).
:- include(zpm_mi).
:- include('../prolog/zpm_proofs').
