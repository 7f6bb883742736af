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
    MaxBytes characters of text in all ('$zpm_text_left', set by
    run_interruptible/6), never given back within it; beyond that it ends
    with status memory, which catch/3 in the goal cannot hide.
*/

%!  zpm_made(:Goal, +Outputs) is nondet.
%   Goal, charged the text of each of Outputs (arguments of Goal) that was
%   unbound at the call, after each solution.
zpm_made(Goal, Outputs) :-
    include(var, Outputs, Free),
    call(Goal),
    made_chars(Free, 0, N),
    charge_text(N).

%!  zpm_split(:Goal, +Parts) is nondet.
%   Goal, which splits a text into the list Parts: each atom or string of
%   Parts charged, when Parts was not a proper list at the call.
zpm_split(Goal, Parts) :-
    (   is_list(Parts), \+ (member(P, Parts), var(P))
    ->  call(Goal)
    ;   call(Goal),
        (   is_list(Parts) -> made_chars(Parts, 0, N), charge_text(N) ; true )
    ).

%!  zpm_concat(:Goal) is nondet.
%   atom_concat/3 or string_concat/3: the whole is charged before it is
%   made when both parts are given, the parts made after each solution
%   otherwise.
zpm_concat(Goal) :-
    Goal =.. [_, A, B, C],
    (   var(C), atomic(A), atomic(B)
    ->  text_chars(A, LA),
        text_chars(B, LB),
        Whole is LA + LB,
        charge_text(Whole),
        call(Goal)
    ;   zpm_made(Goal, [A, B, C])
    ).

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

made_chars([], N, N).
made_chars([X|Xs], N0, N) :-
    (   X \== [], ( atom(X) ; string(X) )
    ->  text_chars(X, L), N1 is N0 + L
    ;   N1 = N0
    ),
    made_chars(Xs, N1, N).

%   The characters of an atomic term as text ([] has none, as NIL in the
%   python engine; a number the characters of its digits).
text_chars(X, 0) :- X == [], !.
text_chars(X, L) :- string(X), !, string_length(X, L).
text_chars(X, L) :- atom_length(X, L).

%!  charge_text(+Chars) is det.
%   Counts Chars characters against the text budget of the running solve
%   (nothing outside a solve); beyond it, the solve ends (status memory).
charge_text(0) :- !.
charge_text(N) :-
    (   nb_current('$zpm_interruptible', true),
        nb_current('$zpm_text_left', L0)
    ->  L is L0 - N,
        (   L >= 0
        ->  nb_setval('$zpm_text_left', L)
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
sink_charge(atom(A)) :- !, made_chars([A], 0, N), charge_text(N).
sink_charge(string(S)) :- !, made_chars([S], 0, N), charge_text(N).
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
