/*  The list library of the python engine.

    Loaded once into a hidden namespace.  Every predicate gives the answers,
    in the same order, and raises the same errors as SWI-Prolog 9's
    library(lists), library(apply), library(pairs) and library(sort).
    Predicates that SWI-Prolog defines with single sided unification (=>)
    test their arguments explicitly and raise the same
    existence_error(matching_rule, ...) when no rule matches.

    Names ending in an underscore or starting with '$' are auxiliary predicates that only
    this library can call.
*/

% --- auxiliary predicates ------------------------------------------------------

%   '$skip_list'(-Length, +List, -Tail): SWI's skip_list for a proper list
%   (Tail = []) and a partial list (Tail its unbound tail).  For any other
%   term, a cyclic list included, Tail is List itself (neither [] nor a
%   variable, which is all its callers look at) and Length is 0, so the
%   walk never runs around a cycle.

'$skip_list'(Length, List, Tail) :-
    is_list(List),
    !,
    length(List, Length),
    Tail = [].
'$skip_list'(Length, List, Tail) :-
    '$partial_list'(List),
    !,
    '$skip_list'(List, 0, Length, Tail).
'$skip_list'(0, List, List).

'$skip_list'(List, N0, N, Tail) :-
    nonvar(List),
    List = [_|Rest],
    !,
    N1 is N0 + 1,
    '$skip_list'(Rest, N1, N, Tail).
'$skip_list'(Tail, N, N, Tail).

%   A list ending in an unbound variable (length/2 enumerates it; a cyclic
%   or improper list is a type error).

'$partial_list'(List) :-
    \+ is_list(List),
    \+ \+ catch(length(List, _), error(_, _), fail).

'$must_be_list'(X) :-
    is_list(X),
    !.
'$must_be_list'(X) :-
    '$skip_list'(_, X, Tail),
    (   var(Tail)
    ->  throw(error(instantiation_error, _))
    ;   throw(error(type_error(list, X), _))
    ).

'$no_matching_rule'(Goal, Name/Arity) :-
    throw(error(existence_error(matching_rule, lists:Goal),
                context(lists:Name/Arity, _))).

% --- library(lists) ------------------------------------------------------------

append([], L, L).
append([H|T], L, [H|R]) :-
    append(T, L, R).

append(ListOfLists, List) :-
    '$must_be_list'(ListOfLists),
    append_(ListOfLists, List).

append_([], []).
append_([L|Ls], As) :-
    append(L, Ws, As),
    append_(Ls, Ws).

member(El, [H|T]) :-
    member_(T, El, H).

member_(_, El, El).
member_([H|T], El, _) :-
    member_(T, El, H).

select(X, [Head|Tail], Rest) :-
    select3_(Tail, Head, X, Rest).

select3_(Tail, Head, Head, Tail).
select3_([Head2|Tail], Head, X, [Head|Rest]) :-
    select3_(Tail, Head2, X, Rest).

selectchk(Elem, List, Rest) :-
    select(Elem, List, Rest0),
    !,
    Rest = Rest0.

nextto(X, Y, [X,Y|_]).
nextto(X, Y, [_|Zs]) :-
    nextto(X, Y, Zs).

delete([], _, []).
delete([Elem|Tail], Del, Result) :-
    (   \+ Elem \= Del
    ->  delete(Tail, Del, Result)
    ;   Result = [Elem|Rest],
        delete(Tail, Del, Rest)
    ).

nth0(Index, List, Elem) :-
    (   integer(Index)
    ->  Index >= 0,
        nth0_det(Index, List, Elem)
    ;   var(Index)
    ->  List = [H|T],
        nth_gen(T, Elem, H, 0, Index)
    ;   throw(error(type_error(integer, Index), _))
    ).

nth1(Index, List, Elem) :-
    (   integer(Index)
    ->  Index0 is Index - 1,
        Index0 >= 0,
        nth0_det(Index0, List, Elem)
    ;   var(Index)
    ->  List = [H|T],
        nth_gen(T, Elem, H, 1, Index)
    ;   throw(error(type_error(integer, Index), _))
    ).

nth0_det(0, [Elem|_], Elem) :- !.
nth0_det(N, [_|Tail], Elem) :-
    M is N - 1,
    M >= 0,
    nth0_det(M, Tail, Elem).

nth_gen(_, Elem, Elem, Base, Base).
nth_gen([H|Tail], Elem, _, N, Base) :-
    succ(N, M),
    nth_gen(Tail, Elem, H, M, Base).

last([X|Xs], Last) :-
    last_(Xs, X, Last).

last_([], Last, Last).
last_([X|Xs], _, Last) :-
    last_(Xs, X, Last).

reverse(Xs, Ys) :-
    reverse(Xs, Ys, [], Ys).

reverse([], [], Ys, Ys).
reverse([X|Xs], [_|Bound], Rs, Ys) :-
    reverse(Xs, Bound, [X|Rs], Ys).

permutation(Xs, Ys) :-
    '$skip_list'(Xlen, Xs, XTail),
    '$skip_list'(Ylen, Ys, YTail),
    (   XTail == [], YTail == []
    ->  Xlen == Ylen
    ;   var(XTail), YTail == []
    ->  length(Xs, Ylen)
    ;   XTail == [], var(YTail)
    ->  length(Ys, Xlen)
    ;   var(XTail), var(YTail)
    ->  length(Xs, Len),
        length(Ys, Len)
    ;   '$must_be_list'(Xs),
        '$must_be_list'(Ys)
    ),
    perm(Xs, Ys).

perm([], []).
perm(List, [First|Perm]) :-
    select(First, List, Rest),
    perm(Rest, Perm).

flatten(List, FlatList) :-
    flatten(List, [], FlatList0),
    !,
    FlatList = FlatList0.

flatten(Var, Tl, [Var|Tl]) :-
    var(Var),
    !.
flatten([], Tl, Tl) :- !.
flatten([Hd|Tl], Tail, List) :-
    !,
    flatten(Hd, FlatHeadTail, List),
    flatten(Tl, Tail, FlatHeadTail).
flatten(NonList, Tl, [NonList|Tl]).

max_member(Max, List) :-
    nonvar(List),
    List = [H|T],
    !,
    max_member_(T, H, Max).
max_member(_, List) :-
    List == [],
    !,
    fail.
max_member(Max, List) :-
    '$no_matching_rule'(max_member(Max, List), max_member/2).

max_member_(List, Max0, Max) :-
    List == [],
    !,
    Max = Max0.
max_member_(List, Max0, Max) :-
    nonvar(List),
    List = [H|T],
    !,
    (   H @=< Max0
    ->  max_member_(T, Max0, Max)
    ;   max_member_(T, H, Max)
    ).
max_member_(List, Max0, Max) :-
    '$no_matching_rule'(max_member_(List, Max0, Max), max_member_/3).

min_member(Min, List) :-
    nonvar(List),
    List = [H|T],
    !,
    min_member_(T, H, Min).
min_member(_, List) :-
    List == [],
    !,
    fail.
min_member(Min, List) :-
    '$no_matching_rule'(min_member(Min, List), min_member/2).

min_member_(List, Min0, Min) :-
    List == [],
    !,
    Min = Min0.
min_member_(List, Min0, Min) :-
    nonvar(List),
    List = [H|T],
    !,
    (   H @>= Min0
    ->  min_member_(T, Min0, Min)
    ;   min_member_(T, H, Min)
    ).
min_member_(List, Min0, Min) :-
    '$no_matching_rule'(min_member_(List, Min0, Min), min_member_/3).

sumlist(Xs, Sum) :-
    sum_list(Xs, Sum).

list_to_set(List, Set) :-
    '$must_be_list'(List),
    number_list(List, 1, Numbered),
    sort(1, @=<, Numbered, ONum),
    remove_dup_keys(ONum, NumSet),
    sort(2, @=<, NumSet, ONumSet),
    pairs_keys(ONumSet, Set).

number_list([], _, []).
number_list([H|T0], N, [H-N|T]) :-
    N1 is N + 1,
    number_list(T0, N1, T).

remove_dup_keys([], []).
remove_dup_keys([H|T0], [H|T]) :-
    H = V-_,
    remove_same_key(T0, V, T1),
    remove_dup_keys(T1, T).

remove_same_key([V1-_|T0], V, T) :-
    V1 == V,
    !,
    remove_same_key(T0, V, T).
remove_same_key(L, _, L).

intersection(Set0, L, Intersect) :-
    Set0 == [],
    !,
    Intersect = [].
intersection(Set0, L, Intersect) :-
    nonvar(Set0),
    Set0 = [X|T],
    !,
    (   memberchk(X, L)
    ->  Intersect = [X|R],
        intersection(T, L, R)
    ;   intersection(T, L, Intersect)
    ).
intersection(Set0, L, Intersect) :-
    '$no_matching_rule'(intersection(Set0, L, Intersect), intersection/3).

union(Set0, L0, L) :-
    Set0 == [],
    !,
    L = L0.
union(Set0, L, Union) :-
    nonvar(Set0),
    Set0 = [H|T],
    !,
    (   memberchk(H, L)
    ->  union(T, L, Union)
    ;   Union = [H|R],
        union(T, L, R)
    ).
union(Set0, L, Union) :-
    '$no_matching_rule'(union(Set0, L, Union), union/3).

subtract(Set0, _, R) :-
    Set0 == [],
    !,
    R = [].
subtract(Set0, D, R) :-
    nonvar(Set0),
    Set0 = [E|T],
    !,
    (   memberchk(E, D)
    ->  subtract(T, D, R)
    ;   R = [E|R1],
        subtract(T, D, R1)
    ).
subtract(Set0, D, R) :-
    '$no_matching_rule'(subtract(Set0, D, R), subtract/3).

% --- library(apply) -------------------------------------------------------------

include(Goal, List, Included) :-
    include_(List, Goal, Included).

include_([], _, []).
include_([X1|Xs1], P, Included) :-
    (   call(P, X1)
    ->  Included = [X1|Included1]
    ;   Included = Included1
    ),
    include_(Xs1, P, Included1).

exclude(Goal, List, Included) :-
    exclude_(List, Goal, Included).

exclude_([], _, []).
exclude_([X1|Xs1], P, Included) :-
    (   call(P, X1)
    ->  Included = Included1
    ;   Included = [X1|Included1]
    ),
    exclude_(Xs1, P, Included1).

partition(Pred, List, Included, Excluded) :-
    partition_(List, Pred, Included, Excluded).

partition_([], _, [], []).
partition_([H|T], Pred, Incl, Excl) :-
    (   call(Pred, H)
    ->  Incl = [H|I],
        partition_(T, Pred, I, Excl)
    ;   Excl = [H|E],
        partition_(T, Pred, Incl, E)
    ).

maplist(Goal, List) :-
    maplist_(List, Goal).

maplist_([], _).
maplist_([Elem|Tail], Goal) :-
    call(Goal, Elem),
    maplist_(Tail, Goal).

maplist(Goal, List1, List2) :-
    maplist_(List1, List2, Goal).

maplist_([], [], _).
maplist_([Elem1|Tail1], [Elem2|Tail2], Goal) :-
    call(Goal, Elem1, Elem2),
    maplist_(Tail1, Tail2, Goal).

maplist(Goal, List1, List2, List3) :-
    maplist_(List1, List2, List3, Goal).

maplist_([], [], [], _).
maplist_([Elem1|Tail1], [Elem2|Tail2], [Elem3|Tail3], Goal) :-
    call(Goal, Elem1, Elem2, Elem3),
    maplist_(Tail1, Tail2, Tail3, Goal).

maplist(Goal, List1, List2, List3, List4) :-
    maplist_(List1, List2, List3, List4, Goal).

maplist_([], [], [], [], _).
maplist_([Elem1|Tail1], [Elem2|Tail2], [Elem3|Tail3], [Elem4|Tail4], Goal) :-
    call(Goal, Elem1, Elem2, Elem3, Elem4),
    maplist_(Tail1, Tail2, Tail3, Tail4, Goal).

foldl(Goal, List, V0, V) :-
    foldl_(List, Goal, V0, V).

foldl_([], _, V, V).
foldl_([H|T], Goal, V0, V) :-
    call(Goal, H, V0, V1),
    foldl_(T, Goal, V1, V).

foldl(Goal, List1, List2, V0, V) :-
    foldl_(List1, List2, Goal, V0, V).

foldl_([], [], _, V, V).
foldl_([H1|T1], [H2|T2], Goal, V0, V) :-
    call(Goal, H1, H2, V0, V1),
    foldl_(T1, T2, Goal, V1, V).

foldl(Goal, List1, List2, List3, V0, V) :-
    foldl_(List1, List2, List3, Goal, V0, V).

foldl_([], [], [], _, V, V).
foldl_([H1|T1], [H2|T2], [H3|T3], Goal, V0, V) :-
    call(Goal, H1, H2, H3, V0, V1),
    foldl_(T1, T2, T3, Goal, V1, V).

% --- library(pairs) -------------------------------------------------------------

pairs_keys_values(Pairs, Keys, Values) :-
    (   nonvar(Pairs)
    ->  pairs_keys_values_(Pairs, Keys, Values)
    ;   nonvar(Keys)
    ->  keys_values_pairs(Keys, Values, Pairs)
    ;   values_keys_pairs(Values, Keys, Pairs)
    ).

pairs_keys_values_([], [], []).
pairs_keys_values_([K-V|Pairs], [K|Keys], [V|Values]) :-
    pairs_keys_values_(Pairs, Keys, Values).

keys_values_pairs([], [], []).
keys_values_pairs([K|Ks], [V|Vs], [K-V|Pairs]) :-
    keys_values_pairs(Ks, Vs, Pairs).

values_keys_pairs([], [], []).
values_keys_pairs([V|Vs], [K|Ks], [K-V|Pairs]) :-
    values_keys_pairs(Vs, Ks, Pairs).

pairs_values([], []).
pairs_values([_-V|T0], [V|T]) :-
    pairs_values(T0, T).

pairs_keys([], []).
pairs_keys([K-_|T0], [K|T]) :-
    pairs_keys(T0, T).

% --- library(sort) --------------------------------------------------------------

predsort(P, L, R) :-
    '$skip_list'(N, L, Tail),
    (   Tail == []
    ->  predsort(P, N, L, _, R1),
        R = R1
    ;   var(L)
    ->  throw(error(instantiation_error, _))
    ;   throw(error(existence_error(type, L), _))
    ).

predsort(P, 2, [X1, X2|L], L, R) :-
    !,
    call(P, Delta, X1, X2),
    sort2(Delta, X1, X2, R).
predsort(_, 1, [X|L], L, [X]) :- !.
predsort(_, 0, L, L, []) :- !.
predsort(P, N, L1, L3, R) :-
    N1 is N // 2,
    plus(N1, N2, N),
    predsort(P, N1, L1, L2, R1),
    predsort(P, N2, L2, L3, R2),
    predmerge(P, R1, R2, R).

sort2(<, X1, X2, [X1, X2]).
sort2(=, X1, _,  [X1]).
sort2(>, X1, X2, [X2, X1]).

predmerge(_, [], R, R) :- !.
predmerge(_, R, [], R) :- !.
predmerge(P, [H1|T1], [H2|T2], Result) :-
    call(P, Delta, H1, H2),
    !,
    predmerge_(Delta, P, H1, H2, T1, T2, Result).

predmerge_(>, P, H1, H2, T1, T2, [H2|R]) :-
    predmerge(P, [H1|T1], T2, R).
predmerge_(=, P, H1, _, T1, T2, [H1|R]) :-
    predmerge(P, T1, T2, R).
predmerge_(<, P, H1, H2, T1, T2, [H1|R]) :-
    predmerge(P, T1, [H2|T2], R).
