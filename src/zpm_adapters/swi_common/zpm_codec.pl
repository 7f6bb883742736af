/*  Part of zpm_support (included): the token codec, see codec.py.
*/

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
    pop_args(A, S0, [], Args, S1), !,
    text_name(N, A, Name),
    compound_name_arguments(T, Name, Args),
    decode(Ts, [T|S1], V, Term).

%   pop_args(+K, +Stack0, +Args0, -Args, -Stack): the top K terms of Stack0
%   (the last argument on top) in argument order, in front of Args0.
pop_args(0, S, Args, Args, S).
pop_args(K, [X|S0], Acc, Args, S) :-
    K > 0, K1 is K - 1,
    pop_args(K1, S0, [X|Acc], Args, S).

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
    name_text(N, Name), C1 is C0 + 1, enc(S, Ts, C1, C).
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


%   A compound named [] (as X =.. [[], a] builds it) travels as the name
%   "[]" both ways; the atom '[]' is not a functor name SWI-Prolog builds.
name_text(N, "[]") :- N == [], !.
name_text(N, Name) :- atom_string(N, Name).

text_name('[]', A, []) :- A > 0, !.
text_name(N, _, N).

push_args([], S, S).
push_args([X|Xs], S0, [t(X)|S]) :- push_args(Xs, S0, S).
