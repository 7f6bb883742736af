/*  zpm support module: loaded once per process by the janus and pyswip engines.

    Terms travel as flat token lists in postfix order (see codec.py):
      a Name | s Text | n | i Int | f Float | v K | c Name Arity
    Input tokens arrive as atoms and numbers; output names/texts are strings.
    Every traversal is tail recursive over an explicit stack.
*/
:- module(zpm_support,
          [ zpm_init/2, zpm_ensure/2, zpm_drop/2, zpm_add/4, zpm_erase/1,
            zpm_solve/8, zpm_version/1, (^)/2, '$zpm_q'/2, '$zpm_q'/3, '$zpm_q'/4,
            '$zpm_q'/5, '$zpm_q'/6, '$zpm_q'/7, '$zpm_q'/8, '$zpm_q'/9, '$zpm_q'/10
          ]).
:- use_module(library(prolog_wrap)).
:- use_module(library(time)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(aggregate)).
:- use_module(library(pairs)).
:- use_module(library(error)).
:- use_module(library(sort)).

:- dynamic zpm_namespace/2, zpm_ref/2, zpm_next_id/1, zpm_answer/1.
zpm_next_id(1).

zpm_version(V) :- current_prolog_flag(version, V).

%!  zpm_init(+Allowed, +Denied) is det.
%   Allowed and Denied are lists Name-Arity.  Wraps every denied predicate
%   that exists so that, while a query runs, calling it throws zpm_denied/1.
zpm_init(Allowed, Denied) :-
    retractall(allowed_import(_, _)),
    forall(member(N-A, Allowed), record_import(N, A)),
    retractall(denied_pi(_, _)),
    forall(member(N-A, Denied), assertz(denied_pi(N, A))),
    forall(member(N-A, Denied), wrap_denied(N, A)),
    nb_linkval('$zpm_sandbox', off),
    current_prolog_flag(verbose, Verbose),
    set_prolog_flag(verbose, silent),
    autoload_all,
    set_prolog_flag(verbose, Verbose).

:- dynamic allowed_import/2, denied_pi/2.
record_import(N, A) :-
    functor(H, N, A),
    (   predicate_property(system:H, defined) -> true
    ;   member(Lib, [lists, apply, aggregate, pairs]),
        predicate_property(Lib:H, defined),
        \+ predicate_property(Lib:H, imported_from(_))
    ->  assertz(allowed_import(Lib, N/A))
    ;   true
    ).

%   Global variables and destructive assignment are left unwrapped: library
%   predicates of the allow-list use them (aggregate_all/3); the namespace
%   modules' local definitions still refuse them in queries.
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

%!  zpm_ensure(+Name, -Module) is det.
zpm_ensure(Name, Module) :-
    (   zpm_namespace(Name, Module) -> true
    ;   atom_concat(zpm_ns_, Name, Module),
        set_module(Module:base(system)),
        set_module(Module:class(user)),
        set_prolog_flag(Module:unknown, fail),
        forall(allowed_import(Lib, PI), @(import(Lib:PI), Module)),
        @(import(zpm_support:('^')/2), Module),
        forall(between(2, 10, Ar), @(import(zpm_support:'$zpm_q'/Ar), Module)),
        forall(denied_pi(N, A), shadow_denied(Module, N, A)),
        assertz(zpm_namespace(Name, Module))
    ).

%   A local definition in each namespace module refuses a denied predicate
%   reached through a meta-call (module-sensitive ones cannot be wrapped).
shadow_denied(Module, N, A) :-
    functor(H, N, A),
    (   predicate_property(system:H, defined)
    ->  catch(@(redefine_system_predicate(H), Module), _, true)
    ;   true
    ),
    catch(assertz(Module:(H :- zpm_support:deny(N/A))), _, true).

deny(PI) :-
    nb_linkval('$zpm_violation', denied(PI)),
    throw(zpm_denied(PI)).

%!  zpm_drop(+Name, +Ids) is det.  Erases the clauses Ids, forgets the namespace.
zpm_drop(Name, Ids) :-
    forall(member(Id, Ids), zpm_erase(Id)),
    retractall(zpm_namespace(Name, _)).

%!  zpm_add(+Module, +Tokens, +Front, -Result) is det.
%   Result is the new clause id, or [error, BallTokens].
zpm_add(Module, Tokens, Front, Result) :-
    decode(Tokens, Clause0),
    (   Clause0 = (H :- true) -> Clause = H ; Clause = Clause0 ),
    catch(add(Module, Clause, Front, Result), E,
          ( encode(E, BallTokens, _), Result = [error, BallTokens] )).

add(Module, Clause, Front, Id) :-
    ( Clause = (H :- _) -> true ; H = Clause ),
    functor(H, N, A),
    ensure_dynamic(Module, H, N, A),
    (   Front == true -> asserta(Module:Clause, Ref) ; assertz(Module:Clause, Ref) ),
    retract(zpm_next_id(Id)), Id1 is Id + 1, assertz(zpm_next_id(Id1)),
    assertz(zpm_ref(Id, Ref)).

ensure_dynamic(Module, H, N, A) :-
    (   predicate_property(Module:H, dynamic),
        \+ predicate_property(Module:H, imported_from(_))
    ->  true
    ;   (   predicate_property(system:H, defined)
        ->  @(redefine_system_predicate(H), Module)
        ;   true
        ),
        dynamic(Module:N/A)
    ).

zpm_erase(Id) :-
    (   retract(zpm_ref(Id, Ref)) -> catch(erase(Ref), _, true) ; true ).

%   V^G outside bagof/setof runs G.
:- meta_predicate ^(?, 0).
_ ^ G :- call(G).

%   '$zpm_q'(M, G, Extra...): G (plus Extra arguments) in namespace M.
'$zpm_q'(M, G) :- qualify(M, Mod), call(Mod:G).
'$zpm_q'(M, G, A1) :- qualify(M, Mod), call(Mod:G, A1).
'$zpm_q'(M, G, A1, A2) :- qualify(M, Mod), call(Mod:G, A1, A2).
'$zpm_q'(M, G, A1, A2, A3) :- qualify(M, Mod), call(Mod:G, A1, A2, A3).
'$zpm_q'(M, G, A1, A2, A3, A4) :- qualify(M, Mod), call(Mod:G, A1, A2, A3, A4).
'$zpm_q'(M, G, A1, A2, A3, A4, A5) :- qualify(M, Mod), call(Mod:G, A1, A2, A3, A4, A5).
'$zpm_q'(M, G, A1, A2, A3, A4, A5, A6) :-
    qualify(M, Mod), call(Mod:G, A1, A2, A3, A4, A5, A6).
'$zpm_q'(M, G, A1, A2, A3, A4, A5, A6, A7) :-
    qualify(M, Mod), call(Mod:G, A1, A2, A3, A4, A5, A6, A7).
'$zpm_q'(M, G, A1, A2, A3, A4, A5, A6, A7, A8) :-
    qualify(M, Mod), call(Mod:G, A1, A2, A3, A4, A5, A6, A7, A8).

qualify(M, _) :- var(M), !, throw(error(instantiation_error, _)).
qualify(M, Mod) :- atom(M), zpm_namespace(M, Mod), !.
qualify(M, _) :- atom(M), !,
    nb_linkval('$zpm_violation', not_mounted(M)),
    throw(zpm_not_mounted(M)).
qualify(M, _) :- throw(error(type_error(module, M), _)).

%!  zpm_solve(+Module, +Tokens, +TimeS, +MaxInf, +MaxSol, +MaxCells, -Answers, -Status)
%   Answers: token lists of '$ans'(Vars...) in order (at most MaxSol, stops
%   once MaxCells compound terms were encoded).  Status: ok, time, inferences,
%   depth, cyclic, denied(Name, Arity), not_mounted(Name) or error(Tokens).
zpm_solve(Module, Tokens, TimeS, MaxInf, MaxSol, MaxCells, Answers, Status) :-
    decode(Tokens, Goal0),
    Goal0 = '$ans'(Goal, Vars),
    retractall(zpm_answer(_)),
    nb_linkval('$zpm_violation', none),
    catch(call_with_time_limit(TimeS,
              call_with_inference_limit(collect(Module, Goal, Vars, MaxSol, MaxCells),
                                        MaxInf, R)),
          E, true),
    nb_linkval('$zpm_sandbox', off),
    findall(A, retract(zpm_answer(A)), Answers0),
    nb_getval('$zpm_violation', Violation),
    status(Violation, E, R, Answers0, Answers, Status).

status(denied(N/A), _, _, As, As, [denied, S, A]) :- !, atom_string(N, S).
status(not_mounted(M), _, _, As, As, [not_mounted, S]) :- !, atom_string(M, S).
status(_, E, _, As, As, St) :- nonvar(E), !, error_status(E, St).
status(_, _, inference_limit_exceeded, As, As, inferences) :- !.
status(_, _, _, As0, As, St) :- last_status(As0, As, St).

last_status(As0, As, cyclic) :- append(As, [cyclic], As0), !.
last_status(As, As, ok).

error_status(time_limit_exceeded, time) :- !.
error_status(error(resource_error(R), _), depth) :- stack_resource(R), !.
error_status(E, cyclic) :- \+ acyclic_term(E), !.
error_status(E, [error, Tokens]) :- encode(E, Tokens, _).

stack_resource(stack_overflow).
stack_resource(global_stack).
stack_resource(local_stack).
stack_resource(trail_stack).

collect(Module, Goal, Vars, MaxSol, MaxCells) :-
    State = state(0, MaxCells),
    nb_linkval('$zpm_sandbox', on),
    (   MaxSol > 0,
        Module:Goal,
        nb_linkval('$zpm_sandbox', off),
        (   acyclic_term(Vars)
        ->  encode(Vars, Enc, Cells),
            push_answer(Enc),
            arg(1, State, N0), N is N0 + 1, nb_setarg(1, State, N),
            arg(2, State, B0), B is B0 - Cells, nb_setarg(2, State, B),
            (   ( N >= MaxSol ; B < 0 ) -> true
            ;   nb_linkval('$zpm_sandbox', on), fail
            )
        ;   push_answer(cyclic)
        )
    ->  true
    ;   true
    ),
    nb_linkval('$zpm_sandbox', off).

push_answer(A) :- assertz(zpm_answer(A)).

%!  decode(+Tokens, -Term) is det.
decode([NVars|Tokens], Term) :-
    functor(Vars, v, NVars),
    decode(Tokens, [], Vars, Term).

decode([], [Term], _, Term).
decode([T|Ts], Stack, Vars, Term) :- decode_tok(T, Ts, Stack, Vars, Term).

decode_tok(a, [N|Ts], S, V, Term) :- !, decode(Ts, [N|S], V, Term).
decode_tok(s, [A|Ts], S, V, Term) :- !, atom_string(A, Str), decode(Ts, [Str|S], V, Term).
decode_tok(n, Ts, S, V, Term) :- !, decode(Ts, [[]|S], V, Term).
decode_tok(i, [I|Ts], S, V, Term) :- !, decode(Ts, [I|S], V, Term).
decode_tok(b, [A|Ts], S, V, Term) :- !, atom_number(A, I), decode(Ts, [I|S], V, Term).
decode_tok(f, [F|Ts], S, V, Term) :- !, decode(Ts, [F|S], V, Term).
decode_tok(v, [K|Ts], S, V, Term) :- !,
    K1 is K + 1, arg(K1, V, X),
    decode(Ts, [X|S], V, Term).
decode_tok(c, [N, A|Ts], S0, V, Term) :-
    length(Rev, A),
    append(Rev, S1, S0), !,
    reverse(Rev, Args),
    T =.. [N|Args],
    decode(Ts, [T|S1], V, Term).

%!  encode(+Term, -Tokens, -Cells) is det.
%   Cells counts compound terms (list cells included).  Unbound variables
%   become v K, numbered from 0 in order of first appearance.
encode(Term0, Tokens, Cells) :-
    copy_term(Term0, Term),
    term_variables(Term, Vs),
    number_vars(Vs, 0),
    enc([t(Term)], Tokens, 0, Cells).

number_vars([], _).
number_vars(['$zpm_var'(K)|Vs], K) :- K1 is K + 1, number_vars(Vs, K1).

enc([], [], C, C).
enc([e(N, A)|S], [c, Name, A|Ts], C0, C) :- !,
    atom_string(N, Name), C1 is C0 + 1, enc(S, Ts, C1, C).
enc([t(T)|S], Ts0, C0, C) :- enc_term(T, S, Ts0, C0, C).

enc_term(T, S, [n|Ts], C0, C) :- T == [], !, enc(S, Ts, C0, C).
enc_term(T, S, [a, Name|Ts], C0, C) :- atom(T), !, atom_string(T, Name), enc(S, Ts, C0, C).
enc_term(T, S, [s, T|Ts], C0, C) :- string(T), !, enc(S, Ts, C0, C).
enc_term(T, S, [i, T|Ts], C0, C) :- integer(T), !, enc(S, Ts, C0, C).
enc_term(T, S, [f, T|Ts], C0, C) :- float(T), !, enc(S, Ts, C0, C).
enc_term('$zpm_var'(K), S, [v, K|Ts], C0, C) :- integer(K), !, enc(S, Ts, C0, C).
enc_term(T, S, Ts, C0, C) :-
    compound_name_arity(T, N, A),
    T =.. [_|Args],
    push_args(Args, [e(N, A)|S], S1),
    enc(S1, Ts, C0, C).

push_args([], S, S).
push_args([X|Xs], S0, [t(X)|S]) :- push_args(Xs, S0, S).
