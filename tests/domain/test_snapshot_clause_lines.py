"""A snapshot ends its clause texts as one block when none ends in a symbol
character (``snapshot_format._clause_lines``): the lines are those
``end_clause`` gives each text, whatever the texts end in."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from zpm_domain.memory.snapshot_format import _clause_lines
from zpm_domain.prolog.writer import end_clause

TEXTS = st.lists(
    st.text(alphabet="ab(),'. =@#$&*+-/:<>?^~\\\né∀λ_1\"", min_size=1, max_size=8),
    max_size=12,
)


@given(TEXTS)
def test_the_lines_are_each_text_ended_as_a_clause(texts: list[str]) -> None:
    want = [end_clause(text) for text in texts]
    got = _clause_lines(texts)
    assert "\n".join(got) == "\n".join(want)


def test_texts_that_end_in_symbol_characters_get_a_space() -> None:
    texts = ["p(a)", "x = @@", "a = ..", "r = ∀", "s = é", "z = ."]
    assert "\n".join(_clause_lines(texts)) == "p(a).\nx = @@ .\na = .. .\nr = ∀ .\ns = é.\nz = . ."
    assert _clause_lines(["p(a)", "s = é"]) == ["p(a).\ns = é."], "one block"
