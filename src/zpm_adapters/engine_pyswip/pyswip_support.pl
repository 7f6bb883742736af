/*  Runs one goal text for the pyswip binding of zpm.

    zpm_pyswip_once(+Text, +Inputs, -Result): Text is read as a term in
    module user; Inputs is a flat list [Name1, Value1, Name2, Value2, ...]
    binding the variables of Text by name.  Result is one of
      false                 the goal failed
      [true, Outputs]       Outputs: [Name, Value, ...] for the other named
                            variables whose names do not start with '_'
      [error, Message]      the goal (or reading Text) raised; Message is
                            the printed message text of the exception
*/
:- module(zpm_pyswip, [zpm_pyswip_once/3]).

zpm_pyswip_once(Text, Inputs, Result) :-
    catch(run(Text, Inputs, Result), E, error_result(E, Result)).

run(Text, Inputs, Result) :-
    term_string(Goal, Text, [variable_names(Bindings), module(user)]),
    bind_inputs(Inputs, Bindings),
    (   call(user:Goal)
    ->  outputs(Bindings, Inputs, Outputs),
        Result = [true, Outputs]
    ;   Result = false
    ).

bind_inputs([], _).
bind_inputs([Name, Value|Rest], Bindings) :-
    (   memberchk(Name=Var, Bindings) -> Var = Value ; true ),
    bind_inputs(Rest, Bindings).

outputs([], _, []).
outputs([Name=Value|Bs], Inputs, Out) :-
    (   ( sub_atom(Name, 0, 1, _, '_') ; input_name(Name, Inputs) )
    ->  Out = Rest
    ;   Out = [Name, Value|Rest]
    ),
    outputs(Bs, Inputs, Rest).

input_name(Name, [Name, _|_]) :- !.
input_name(Name, [_, _|Rest]) :- input_name(Name, Rest).

error_result(E, [error, Message]) :-
    (   catch(message_text(E, Message), _, fail)
    ->  true
    ;   term_string(E, Message)
    ).

message_text(E, Message) :-
    '$messages':translate_message(E, Lines, []),
    with_output_to(string(Text), print_message_lines(current_output, '', Lines)),
    split_string(Text, "", "\n", [Message]).
