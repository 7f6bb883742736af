"""Walks over possibly cyclic terms: ``acyclic_term/1``, ``cyclic_term/1``, ``ground/1``.

A cyclic term (``X = f(X)``) is a finite graph of compounds whose unfolding
is infinite.  The walks here visit each compound of the graph at most once,
so they end on every term.

``ground/1`` walks without bookkeeping for the first ``TRACK_AFTER``
compounds (the usual small term costs nothing extra) and only then starts
recording the compounds it has expanded, which bounds the rest of the walk.
"""

from __future__ import annotations

from zpm_adapters.engine_python.builtins._support import CHECK_EVERY, Machine
from zpm_adapters.engine_python.runtime import Ref, RTerm, det
from zpm_domain.prolog.terms import Struct

TRACK_AFTER = 256
"""Compounds a walk expands before it starts recording visited compounds."""


def is_acyclic(term: RTerm, m: Machine | None = None) -> bool:
    """True when no compound of ``term`` contains itself.

    Depth-first with three states per compound: unseen, on the current path
    (a cycle when met again) and finished (known acyclic, not walked again).
    """
    t = term
    while type(t) is Ref and t.ref is not None:
        t = t.ref
    if type(t) is not Struct:
        return True
    flat = _flat_list_acyclic(t, m)
    if flat is not None:
        return flat
    on_path: set[int] = set()
    done: set[int] = set()
    # Work items: a compound to enter, or (None, compound) to leave it.
    stack: list[tuple[Struct | None, Struct]] = [(t, t)]
    steps = 0
    while stack:
        entering, node = stack.pop()
        if entering is None:
            key = id(node)
            on_path.discard(key)
            done.add(key)
            continue
        key = id(node)
        if key in done:
            continue
        if key in on_path:
            return False
        on_path.add(key)
        stack.append((None, node))
        steps += 1
        if m is not None and steps % CHECK_EVERY == 0:
            m.check_limits()
        for a in node.args:
            while type(a) is Ref and a.ref is not None:
                a = a.ref
            if type(a) is Struct:
                k = id(a)
                if k in on_path:
                    return False
                if k not in done:
                    stack.append((a, a))
    return True


def _flat_list_acyclic(t: RTerm, m: Machine | None) -> bool | None:
    """Whether the list ``t`` is acyclic, when its elements hold no compound
    term and it ends in no compound but a list cell (a list of numbers,
    atoms or variables: only its spine can be cyclic, which Brent's walk
    finds without recording cells); ``None`` for any other term."""
    n = 0
    mark: RTerm | None = None
    next_mark = 1
    check_at = CHECK_EVERY
    while True:
        stop = min(next_mark, check_at)
        while n < stop:  # the hot loop: nothing but the walk
            if type(t) is not Struct or t.name != "[|]" or len(t.args) != 2:
                return None if type(t) is Struct else True
            head, t = t.args
            while type(head) is Ref:
                if head.ref is None:
                    break
                head = head.ref
            if type(head) is Struct:
                return None
            while type(t) is Ref:
                if t.ref is None:
                    break
                t = t.ref
            n += 1
            if t is mark:
                return False
        if n == next_mark:  # Brent: move the mark at powers of two
            mark, next_mark = t, 2 * next_mark
        if n == check_at:
            if m is not None:
                m.check_limits()
            check_at += CHECK_EVERY


def is_ground(term: RTerm, m: Machine | None = None) -> bool:
    """True when ``term`` holds no unbound variable (cyclic terms included)."""
    stack = [term]
    pop, push = stack.pop, stack.extend
    expanded = 0
    seen: set[int] | None = None
    while stack:
        t = pop()
        while type(t) is Ref:
            r = t.ref
            if r is None:
                return False
            t = r
        if type(t) is Struct:
            if seen is not None:
                key = id(t)
                if key in seen:
                    continue
                seen.add(key)
            expanded += 1
            if expanded >= TRACK_AFTER:
                if seen is None:
                    seen = set()
                if m is not None and expanded % CHECK_EVERY == 0:
                    m.check_limits()
            push(t.args)
    return True


@det("acyclic_term", 1)
def acyclic_term(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return is_acyclic(args[0], m)


@det("cyclic_term", 1)
def cyclic_term(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return not is_acyclic(args[0], m)


@det("ground", 1)
def ground(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return is_ground(args[0], m)
