/*  Part of zpm_support (included): reflection over a namespace's own predicates.

    current_predicate/1,2 and predicate_property/2 as zpm defines them (see
    zpm_domain.builtins.REFLECTED_PROPERTIES): they see exactly the
    predicates the engine port's predicates(ns) lists for the namespace the
    goal runs in (user predicates with clauses, and predicates a knowledge
    file declares dynamic), in order of first definition; never a predicate
    of SWI-Prolog or of zpm itself.  zpm_add/5 and zpm_declared/3 keep the
    order and the static/declared state that the Python mirror keeps.
*/

:- dynamic zpm_pred/3, zpm_pred_static/3, zpm_pred_declared/3.

%   The entry points zpm_base offers under the standard names; transparent,
%   so that the context module is the namespace that called them.
:- module_transparent(('$zpm_current_predicate'/1, '$zpm_current_predicate'/2,
                       '$zpm_predicate_property'/2)).
'$zpm_current_predicate'(S) :-
    context_module(M), zpm_current_predicate(M, S).
'$zpm_current_predicate'(N, H) :-
    context_module(M), zpm_current_predicate(M, N, H).
'$zpm_predicate_property'(H, P) :-
    context_module(M), zpm_predicate_property(M, H, P).

note_predicate(Module, N, A, Static) :-
    (   zpm_pred(Module, N, A) -> true ; assertz(zpm_pred(Module, N, A)) ),
    (   Static == true, \+ zpm_pred_static(Module, N, A)
    ->  assertz(zpm_pred_static(Module, N, A))
    ;   true
    ).

%!  zpm_forget(+Module, +Name, +Arity) is det.
%   Name/Arity lost its last clause: it leaves the definition order (a new
%   clause later puts it last).
zpm_forget(Module, N, A) :-
    retractall(zpm_pred(Module, N, A)).

%!  zpm_declared(+Module, +Name, +Arity) is det.
%   A knowledge file declared Name/Arity dynamic.
zpm_declared(Module, N, A) :-
    (   zpm_pred(Module, N, A) -> true ; assertz(zpm_pred(Module, N, A)) ),
    (   zpm_pred_declared(Module, N, A) -> true ; assertz(zpm_pred_declared(Module, N, A)) ).

%!  listed(+Module, ?Name, ?Arity, -Dynamic, -Count) is nondet.
%   The predicates reflection sees, in order of first definition.
listed(Module, N, A, Dynamic, Count) :-
    zpm_pred(Module, N, A),
    functor(H, N, A),
    (   predicate_property(Module:H, number_of_clauses(C0)) -> Count = C0 ; Count = 0 ),
    (   Count > 0 -> true ; zpm_pred_declared(Module, N, A) ),
    (   zpm_pred_static(Module, N, A) -> Dynamic = false ; Dynamic = true ).

%   strip(+Term, -Q, -T): Q is some(M) for the last M of M1:...:M:T, or none.
%   Qualifications around themselves (X = m:X) are type_error(acyclic_term, X).
strip(T0, PI, Q, T) :-
    (   nonvar(T0), \+ acyclic_term(T0), qualification_cycle(T0)
    ->  throw(error(type_error(acyclic_term, T0), context(system:PI, _)))
    ;   strip(T0, Q, T)
    ).

strip(T0, Q, T) :-
    (   nonvar(T0), T0 = M1:T1
    ->  strip_(T1, M1, Q, T)
    ;   Q = none, T = T0
    ).

strip_(T0, M0, Q, T) :-
    (   nonvar(T0), T0 = M1:T1
    ->  strip_(T1, M1, Q, T)
    ;   Q = some(M0), T = T0
    ).

%   The namespace module of a qualification (already known to be an atom or
%   unbound): unbound is an instantiation error, an unknown memory (or one
%   out of the solve's reach) the domain's MemoryNotMounted.
namespace_of(none, _, Context, Context).
namespace_of(some(M), PI, _, Module) :- namespace_of_(M, PI, Module).

namespace_of_(M, PI, _) :- var(M), !,
    throw(error(instantiation_error, context(system:PI, _))).
namespace_of_(M, _, Module) :-
    reachable_namespace(M, Module), !.
namespace_of_(M, _, _) :-
    nb_setval('$zpm_violation', not_mounted(M)),
    throw(zpm_not_mounted(M)).

%!  zpm_current_predicate(+Context, ?Spec) is nondet.
%   Errors as SWI-Prolog 9.2.9 raises them, checked in its order: the shape
%   of the spec, its name, its arity, then the module.
zpm_current_predicate(Context, Spec) :-
    PI = current_predicate/1,
    strip(Spec, PI, Q, Ind),
    (   var(Ind)
    ->  Extra = 0
    ;   Ind = N/A
    ->  Extra = 0
    ;   Ind = N//A
    ->  Extra = 2
    ;   throw(error(type_error(predicate_indicator, Spec), context(system:PI, _)))
    ),
    (   var(N) -> true ; atom(N) -> true
    ;   throw(error(type_error(predicate_indicator, Spec), context(system:PI, _)))
    ),
    (   var(A) -> true
    ;   integer(A), A >= -(1 << 31), A < 1 << 31
    ->  (   A < 0 -> throw(error(domain_error(not_less_than_zero, A), context(system:PI, _)))
        ;   true
        )
    ;   throw(error(type_error(predicate_indicator, Spec), context(system:PI, _)))
    ),
    (   Q = some(M), nonvar(M), \+ atom(M)
    ->  throw(error(type_error(atom, M), context(system:PI, _)))
    ;   true
    ),
    namespace_of(Q, PI, Context, Module),
    (   integer(A) -> Arity is A + Extra ; true ),
    findall(N/Arity, ( listed(Module, N, Arity, _, _), Arity >= Extra ), Found),
    (   var(Ind)
    ->  last_member(Ind, Found)
    ;   last_member(N/Arity, Found), A is Arity - Extra
    ).

%!  zpm_current_predicate(+Context, ?Name, ?Head) is nondet.
%   Fails for a name that is not an atom or a head that is not callable; a
%   bound head qualified by a module that is not an atom is a type error.
zpm_current_predicate(Context, N, Head0) :-
    strip(Head0, current_predicate/2, Q, Head),
    (   Q = some(M), nonvar(M), \+ atom(M)
    ->  (   var(Head) -> fail ; throw(error(type_error(module, M), _)) )
    ;   true
    ),
    namespace_of(Q, current_predicate/2, Context, Module),
    (   var(N) -> true ; atom(N) ),
    matching(Module, Head, Found0),
    findall(N/A, member(N/A, Found0), Found),
    last_member(N/A, Found),
    functor(Head, N, A).

%!  zpm_predicate_property(+Context, ?Head, ?Property) is nondet.
%   Fails for anything it cannot answer (no argument errors, as SWI-Prolog).
zpm_predicate_property(Context, Head0, Property) :-
    strip(Head0, predicate_property/2, Q, Head),
    \+ ( Q = some(M), nonvar(M), \+ atom(M) ),
    namespace_of(Q, predicate_property/2, Context, Module),
    (   var(Property) -> true ; reflected_property_name(Property) ),
    matching(Module, Head, Found0),
    findall(N/A-P, ( member(N/A, Found0), pred_property(Module, N, A, P) ), Found),
    last_member(N/A-Property, Found),
    functor(Head, N, A).

%   The listed predicates a head can name: all for a variable, none for a
%   term that is not callable.
matching(Module, Head, Found) :-
    (   var(Head) -> true
    ;   Head == [] -> fail
    ;   callable(Head) -> functor(Head, N, A)
    ),
    !,
    findall(N/A, listed(Module, N, A, _, _), Found).
matching(_, _, []).

pred_property(Module, N, A, P) :-
    listed(Module, N, A, Dynamic, Count),
    reflected_property(Dynamic, Count, P).

reflected_property(true, _, dynamic).
reflected_property(_, Count, number_of_clauses(Count)).
reflected_property(_, _, defined).

reflected_property_name(dynamic).
reflected_property_name(number_of_clauses(_)).
reflected_property_name(defined).

%   member/2 that leaves no choice point at the last element, so that a call
%   whose last candidate matches exits deterministically, as on SWI-Prolog.
last_member(X, [Y|Ys]) :- last_member_(Ys, Y, X).

last_member_([], Y, Y).
last_member_([Z|Zs], Y, X) :- ( X = Y ; last_member_(Zs, Z, X) ).
