/*  Part of zpm_support (included): format/3 as every zpm engine has it.

    Two things differ from SWI-Prolog's own format/3:

    * an unbound variable prints as _G<n>, the variables of Args numbered
      from 1 in the order term_variables/2 lists them (SWI-Prolog would print
      _<address>, a different text in every process);
    * the directives SWI-Prolog has beyond those of the python engine
      (~@ ~k ~W ~I ~N ~E ~G) raise existence_error(format_character, D) when
      they are reached, as unknown directives do, after the directives
      before them had their say.

    Errors are SWI-Prolog's own: the call runs first as it is, into a fresh
    sink of the same kind, and only its text is made again with the named
    variables.  Its text counts against the solve's memory (zpm_text.pl).
*/

zpm_format(Sink, Format, Args) :-
    format_charge(Sink, Format, Args),
    format_text(Sink, Format, Args),
    sink_charge(Sink).

format_text(Sink, Format, Args) :-
    (   catch(text_to_string(Format, Text), _, fail),
        sub_string(Text, Before, _, _, "~"),
        extra_directive(Text, Before, D)
    ->  sub_string(Text, 0, Before, _, Prefix),
        fresh_sink(Sink, Fresh),
        catch(format(Fresh, Prefix, Args), error(format('too many arguments'), _), true),
        throw(error(existence_error(format_character, D), context(format/2, _)))
    ;   true
    ),
    term_variables(Args, Vars),
    (   Vars == []
    ->  format(Sink, Format, Args)
    ;   fresh_sink(Sink, Fresh),
        \+ \+ format(Fresh, Format, Args),
        copy_term(Args-Vars, Named-Copies),
        name_variables(Copies, 1),
        format(Sink, Format, Named)
    ).

%   extra_directive(+Text, +At, -D): the "~" at offset At of Text starts a
%   directive (not an escaped "~~") whose character D is one of the extras.
%   sub_string/5 enumerates the "~" offsets in order; the first extra found
%   is the first one the format would reach, as "~~" pairs are skipped by
%   requiring an odd run of tildes before the directive.
extra_directive(Text, At, D) :-
    tildes_before(Text, At, 0, Run),
    Run mod 2 =:= 0,
    Start is At + 1,
    skip_argument(Text, Start, Pos),
    (   sub_string(Text, Pos, 1, _, ":") -> Pos1 is Pos + 1 ; Pos1 = Pos ),
    sub_atom(Text, Pos1, 1, _, D),
    extra(D), !.

tildes_before(Text, At, Run0, Run) :-
    (   At > 0, Prev is At - 1, sub_string(Text, Prev, 1, _, "~")
    ->  Run1 is Run0 + 1, tildes_before(Text, Prev, Run1, Run)
    ;   Run = Run0
    ).

skip_argument(Text, Start, Pos) :-
    (   sub_string(Text, Start, 1, _, "*")
    ->  Pos is Start + 1
    ;   sub_string(Text, Start, 1, _, "`")
    ->  Pos is Start + 2
    ;   digits_end(Text, Start, Pos)
    ).

digits_end(Text, At, End) :-
    (   sub_atom(Text, At, 1, _, C), char_type(C, digit(_))
    ->  Next is At + 1, digits_end(Text, Next, End)
    ;   End = At
    ).

extra('@').
extra(k).
extra('W').
extra('I').
extra('N').
extra('E').
extra('G').

fresh_sink(Sink, Fresh) :-
    (   compound(Sink), functor(Sink, Kind, Arity), memberchk(Kind/Arity,
            [atom/1, string/1, codes/1, codes/2, chars/1, chars/2])
    ->  functor(Fresh, Kind, Arity)
    ;   Fresh = Sink
    ).

name_variables([], _).
name_variables(['$VAR'(Name)|Vs], N) :-
    format(atom(Name), '_G~d', [N]),
    N1 is N + 1,
    name_variables(Vs, N1).
