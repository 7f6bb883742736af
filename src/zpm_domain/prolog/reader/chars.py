"""Character classes of the Prolog syntax (SWI-Prolog 9 flavour).

ASCII follows ISO: letters, digits and ``_`` are alphanumeric; the graphic
("symbol") characters are ``#$&*+-./:<=>?@^~\\``; ``!`` ``;`` ``,`` ``|``
are solo characters.  Beyond ASCII the classes come from Unicode: an
identifier-start character that is not uppercase starts an atom, an
uppercase one starts a variable, identifier-continue characters continue
either, and symbols and punctuation (categories ``S*`` and ``P*`` except
``Pc``, so also ``·``) are symbol characters, as in SWI-Prolog.  Anything
else outside quotes is an illegal character.

The reader and the writer share these predicates, so every atom the writer
leaves unquoted reads back as the same atom.
"""

from __future__ import annotations

import unicodedata

SYMBOL_CHARS = frozenset("#$&*+-./:<=>?@^~\\")
SOLO_ATOMS = frozenset({"!", ";", "[]", "{}"})


def is_symbol_char(c: str) -> bool:
    if c < "\x80":
        return c in SYMBOL_CHARS
    category = unicodedata.category(c)
    return category[0] == "S" or (category[0] == "P" and category != "Pc")


def is_alnum(c: str) -> bool:
    """May continue a name or a variable."""
    if c < "\x80":
        return c.isalnum() or c == "_"
    return ("a" + c).isidentifier() and not is_symbol_char(c)


def is_atom_start(c: str) -> bool:
    """Starts an unquoted letter atom (``a``..``z`` or a non-uppercase letter)."""
    if c < "\x80":
        return "a" <= c <= "z"
    return c.isidentifier() and not c.isupper()


def is_var_start(c: str) -> bool:
    if c < "\x80":
        return c == "_" or "A" <= c <= "Z"
    return c.isidentifier() and c.isupper()


def is_letter_atom(name: str) -> bool:
    """``name`` reads back unquoted as a letter-digit atom."""
    if not name or not is_atom_start(name[0]):
        return False
    return all(is_alnum(c) for c in name[1:])


def is_symbol_atom(name: str) -> bool:
    """``name`` reads back unquoted as one symbol-character token."""
    if not name or name == "." or name.startswith("/*"):
        return False
    return all(is_symbol_char(c) for c in name)
