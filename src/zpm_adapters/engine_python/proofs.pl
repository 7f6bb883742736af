/*  The python engine's part of the proof interpreters (prolog/zpm_proofs.pl):
    the native call of a goal in a namespace.  Ns:G compiles G in namespace
    Ns as a query would (refused predicates refused); the cut of this clause
    is all a cut in G can reach, so the call is opaque to cut.  The other
    primitives are built-ins of the library (proofs.py, compiler.py).
*/

'$zpm_mi_call'(Ns, G) :-
    Ns:G.
