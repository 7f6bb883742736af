/*  Part of zpm_support (included): the text a solve makes counts against
    its memory budget.

    SWI-Prolog keeps atoms outside the stacks that stack_limit bounds, and
    format/3 builds its text in a buffer of its own, so neither is bounded
    by the budget of the call without help.  The built-ins that make text
    are zpm's own versions (own_version/2), which count it as the python
    engine does (Machine.charge_text): after each solution, the length of
    every atom or string the call bound to an argument that was unbound
    when it was called (and to the elements of a list it split a text
    into); before the call, the length of a concatenation's result and the
    numeric arguments of format/3's directives (~Nc, ~N|, ~*c ...), so that
    no single call can build far more than the budget.  A solve may make
    MaxBytes characters of text in all ('$zpm_text', text(Left) while
    run_interruptible/6 runs one), never given back within it; beyond that
    it ends with status memory, which catch/3 in the goal cannot hide.
*/

%   Built-ins with one output of text: what they bind it to, charged after
%   each solution, when it was unbound at the call.
zpm_atom_codes(A, L) :- var(A), !, atom_codes(A, L), made(A).
zpm_atom_codes(A, L) :- atom_codes(A, L).
zpm_atom_chars(A, L) :- var(A), !, atom_chars(A, L), made(A).
zpm_atom_chars(A, L) :- atom_chars(A, L).
zpm_atom_number(A, N) :- var(A), !, atom_number(A, N), made(A).
zpm_atom_number(A, N) :- atom_number(A, N).
zpm_number_string(N, S) :- var(S), !, number_string(N, S), made(S).
zpm_number_string(N, S) :- number_string(N, S).
zpm_string_chars(S, L) :- var(S), !, string_chars(S, L), made(S).
zpm_string_chars(S, L) :- string_chars(S, L).
zpm_string_codes(S, L) :- var(S), !, string_codes(S, L), made(S).
zpm_string_codes(S, L) :- string_codes(S, L).
zpm_upcase_atom(A, U) :- var(U), !, upcase_atom(A, U), made(U).
zpm_upcase_atom(A, U) :- upcase_atom(A, U).
zpm_downcase_atom(A, D) :- var(D), !, downcase_atom(A, D), made(D).
zpm_downcase_atom(A, D) :- downcase_atom(A, D).
zpm_string_upper(S, U) :- var(U), !, string_upper(S, U), made(U).
zpm_string_upper(S, U) :- string_upper(S, U).
zpm_string_lower(S, D) :- var(D), !, string_lower(S, D), made(D).
zpm_string_lower(S, D) :- string_lower(S, D).
zpm_sub_atom(A, B, L, F, Sub) :- var(Sub), !, sub_atom(A, B, L, F, Sub), made(Sub).
zpm_sub_atom(A, B, L, F, Sub) :- sub_atom(A, B, L, F, Sub).
zpm_sub_string(S, B, L, F, Sub) :- var(Sub), !, sub_string(S, B, L, F, Sub), made(Sub).
zpm_sub_string(S, B, L, F, Sub) :- sub_string(S, B, L, F, Sub).

%   Conversions either way: the side that was unbound is charged.
zpm_atom_string(A, S) :- var(A), !, atom_string(A, S), made(A).
zpm_atom_string(A, S) :- var(S), !, atom_string(A, S), made(S).
zpm_atom_string(A, S) :- atom_string(A, S).
zpm_string_to_atom(S, A) :- var(S), !, backward_compatibility:string_to_atom(S, A), made(S).
zpm_string_to_atom(S, A) :- var(A), !, backward_compatibility:string_to_atom(S, A), made(A).
zpm_string_to_atom(S, A) :- backward_compatibility:string_to_atom(S, A).

%   made(+Text): the characters of Text, an atom or a string a call made,
%   charged (anything else is not text: nothing).
made(X) :-
    (   X \== [], ( atom(X) ; string(X) )
    ->  text_chars(X, N), charge_text(N)
    ;   true
    ).

%!  zpm_split(:Goal, +Parts) is nondet.
%   Goal, which splits a text into the list Parts: each atom or string of
%   Parts charged, when Parts was not a proper list of bound elements at
%   the call.
zpm_split(Goal, Parts) :-
    (   is_list(Parts), \+ (member(P, Parts), var(P))
    ->  call(Goal)
    ;   call(Goal),
        (   is_list(Parts) -> maplist(made, Parts) ; true )
    ).

%   atom_concat/3, string_concat/3: the whole charged before it is made
%   when both parts are given; else the parts that were unbound, after each
%   solution.
zpm_atom_concat(A, B, C) :- var(C), atomic(A), atomic(B), !, whole(A, B), atom_concat(A, B, C).
zpm_atom_concat(A, B, C) :- var(A), var(B), !, atom_concat(A, B, C), made(A), made(B).
zpm_atom_concat(A, B, C) :- var(A), !, atom_concat(A, B, C), made(A).
zpm_atom_concat(A, B, C) :- var(B), !, atom_concat(A, B, C), made(B).
zpm_atom_concat(A, B, C) :- atom_concat(A, B, C).
zpm_string_concat(A, B, C) :- var(C), atomic(A), atomic(B), !, whole(A, B), string_concat(A, B, C).
zpm_string_concat(A, B, C) :- var(A), var(B), !, string_concat(A, B, C), made(A), made(B).
zpm_string_concat(A, B, C) :- var(A), !, string_concat(A, B, C), made(A).
zpm_string_concat(A, B, C) :- var(B), !, string_concat(A, B, C), made(B).
zpm_string_concat(A, B, C) :- string_concat(A, B, C).

whole(A, B) :-
    text_chars(A, LA),
    text_chars(B, LB),
    N is LA + LB,
    charge_text(N).

%!  zpm_list_concat(:Goal, +Items, +Separator, ?Whole) is det.
%   atomic_list_concat/2,3: in join mode (Items a proper list of atomic
%   terms, Separator atomic), the whole is charged before it is made; in
%   split mode, the parts after.
zpm_list_concat(Goal, Items, Separator, Whole) :-
    (   var(Whole), is_list(Items), atomic(Separator), maplist(atomic, Items)
    ->  items_chars(Items, 0, N0),
        text_chars(Separator, LS),
        length(Items, K),
        N is N0 + LS * max(K - 1, 0),
        charge_text(N),
        call(Goal)
    ;   var(Whole)
    ->  call(Goal)              % an error: an unbound or non-atomic item
    ;   zpm_split(Goal, Items)
    ).

items_chars([], N, N).
items_chars([I|Is], N0, N) :-
    text_chars(I, L),
    N1 is N0 + L,
    items_chars(Is, N1, N).

%   The characters of an atomic term as text ([] has none, as NIL in the
%   python engine; a number the characters of its digits).
text_chars(X, 0) :- X == [], !.
text_chars(X, L) :- string(X), !, string_length(X, L).
text_chars(X, L) :- atom_length(X, L).

%!  charge_text(+Chars) is det.
%   Counts Chars characters against the text budget of the running solve
%   ('$zpm_text' is text(Left) while a solve runs on this thread);
%   beyond it, the solve ends (status memory).
charge_text(0) :- !.
charge_text(N) :-
    (   nb_current('$zpm_text', Budget),
        Budget = text(L0)
    ->  L is L0 - N,
        (   L >= 0
        ->  nb_setarg(1, Budget, L)
        ;   (   nb_getval('$zpm_violation', none)
            ->  nb_linkval('$zpm_violation', memory)
            ;   true
            ),
            throw(error(resource_error(memory), _))
        )
    ;   true
    ).

%!  format_charge(+Sink, +Format, +Args) is det.
%   For a sink format/3 accepts: the numeric arguments of Format's
%   directives charged (format.numeric_arguments of the python engine).
format_charge(Sink, Format, Args) :-
    fresh_sink(Sink, Fresh),
    Fresh \== Sink,
    catch(text_to_string(Format, Text), _, fail),
    !,
    (   is_list(Args) -> As = Args ; As = [Args] ),
    string_codes(Text, Cs),
    numeric_total(Cs, As, 0, N),
    charge_text(N).
format_charge(_, _, _).

%   The text of an atom(A) or string(S) sink after the format, charged.
sink_charge(atom(A)) :- !, made(A).
sink_charge(string(S)) :- !, made(S).
sink_charge(_).

numeric_total([], _, N, N).
numeric_total([C|Cs], As, N0, N) :-
    (   C == 0'~
    ->  directive(Cs, As, N0, N)
    ;   numeric_total(Cs, As, N0, N)
    ).

directive([], _, N, N).
directive([0'*|Cs], As, N0, N) :- !,
    (   As = [A|As1]
    ->  (   integer(A), A > 0 -> N1 is N0 + A ; N1 = N0 ),
        directive_char(Cs, As1, N1, N)
    ;   N = N0
    ).
directive([0'`|Cs0], As, N0, N) :- !,
    (   Cs0 = [_|Cs] -> directive_char(Cs, As, N0, N) ; N = N0 ).
directive(Cs0, As, N0, N) :-
    digits(Cs0, Ds, Cs),
    length(Ds, K),
    (   K =:= 0 -> N1 = N0
    ;   K > 18 -> N1 is N0 + 10^18
    ;   number_codes(V, Ds), N1 is N0 + V
    ),
    directive_char(Cs, As, N1, N).

digits([C|Cs], [C|Ds], Rest) :- C >= 0'0, C =< 0'9, !, digits(Cs, Ds, Rest).
digits(Cs, [], Cs).

directive_char([0':|Cs], As, N0, N) :- !, directive_name(Cs, As, N0, N).
directive_char(Cs, As, N0, N) :- directive_name(Cs, As, N0, N).

directive_name([], _, N, N).
directive_name([D|Cs], As, N0, N) :-
    (   memberchk(D, `acdDefgipqrRsw`)
    ->  ( As = [_|As1] -> true ; As1 = [] ),
        numeric_total(Cs, As1, N0, N)
    ;   memberchk(D, `~nt|+`)
    ->  numeric_total(Cs, As, N0, N)
    ;   N = N0
    ).
