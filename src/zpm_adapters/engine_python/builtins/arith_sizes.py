"""Which integer operations SWI-Prolog refuses, so that the python engine
refuses the same ones (with the same error).

SWI-Prolog (9.2.9, with GMP 6.2.1 on a 64-bit machine) has no rule on the
size of an integer result.  Under its flag ``max_integer_size`` (zpm sets
``MAX_INTEGER_BITS / 8`` = 125,000 bytes) it refuses every single block of
more than that many bytes that GMP asks for while it computes, result or
scratch space (``Resource limit exceeded: an integer of more than 1000000
bits``).  Before that, for ``**``, ``^`` and ``<<``, it estimates the
result's size and, when the estimate exceeds the stack limit (the call's
``max_memory_mb``), raises a stack overflow (``Limit exceeded: ... memory``).
Operations on 64-bit integers whose result fits in 64 bits never reach GMP.

So the python engine computes, for the usual ways of building a huge
integer, the blocks GMP asks for, in 64-bit limbs, as GMP 6.2.1's code
does:

* ``X + Y``, ``X - Y`` (``mpz_add``): max(limbs(X), limbs(Y)) + 1.
* ``X * Y`` (``mpz_mul``): limbs(X) + limbs(Y); ``X * X`` (the same
  integer twice: GMP squares it) of :data:`SQUARE_SCRATCH_LIMBS` limbs or
  more needs more scratch space than the limit (its FFT squaring).
* ``X << N`` (``mpz_mul_2exp``): limbs(X) + N // 64 + 1.
* ``B ^ N``, ``B ** N`` (``mpz_n_pow_ui``): the estimate of the result it
  allocates (the base stripped of its factors of 2 and powered up within
  one or two limbs first), its scratch space, and the squarings on the way.

Not modelled, where the engines may still differ for integers within a few
thousand bits of the limit: products of two integers of more than about
250,000 bits each (GMP's FFT scratch space), and divisions, ``gcd`` and
``lcm`` of integers of more than about 999,000 bits.
"""

from __future__ import annotations

import math

from zpm_domain.errors import IntegerTooLarge
from zpm_domain.limits import MAX_INTEGER_BITS

LIMB_BITS = 64
MAX_BYTES = MAX_INTEGER_BITS // 8
"""SWI-Prolog's ``max_integer_size``: the largest block GMP may allocate."""
SQUARE_SCRATCH_LIMBS = 7425
"""The smallest integer, in limbs, whose square GMP 6.2.1 (x86-64) computes
with a scratch block larger than :data:`MAX_BYTES` (found by probing
SWI-Prolog: ``X * X`` of 7424 limbs is computed, of 7425 refused)."""
_TMP_LARGE = 0x7F00
"""GMP's temporary blocks above this many bytes are allocated (with a
header of :data:`_TMP_HEADER` bytes); smaller ones live on the C stack."""
_TMP_HEADER = 16
_HALF_LIMB_MAX = (1 << (LIMB_BITS // 2)) - 1
_INT64 = 1 << 63
_PRECHECK_BITS = 10_000


class IntegerRefused(IntegerTooLarge):
    """SWI-Prolog refuses the operation.  ``stack_bytes`` is SWI-Prolog's
    own estimate of the result (``None`` when it makes none), which it
    checks first: above the stack limit (the call's ``max_memory_mb``, or
    always for :data:`ALWAYS`) it raises a stack overflow, and the python
    engine's evaluation, which has the call's limits, raises the memory
    error instead.  (An estimate over the stack limit is never below what
    GMP refuses, so the refusal itself does not depend on the limit.)"""

    def __init__(self, stack_bytes: int | None = None) -> None:
        super().__init__()
        self.stack_bytes = stack_bytes


ALWAYS = -1
"""``stack_bytes`` of an operation beyond any stack limit (an exponent or a
shift that does not fit in 64 bits)."""


def limbs(x: int) -> int:
    """The 64-bit limbs GMP stores ``x`` in."""
    return (abs(x).bit_length() + LIMB_BITS - 1) // LIMB_BITS


def _fits(n_limbs: int) -> bool:
    """GMP may allocate a block of ``n_limbs`` limbs."""
    return n_limbs * 8 <= MAX_BYTES


def _scratch_fits(n_limbs: int) -> bool:
    """GMP may allocate ``n_limbs`` limbs of scratch space (``TMP_ALLOC``)."""
    size = n_limbs * 8
    return size <= _TMP_LARGE or size + _TMP_HEADER <= MAX_BYTES


def _int64(x: int) -> bool:
    return -_INT64 <= x < _INT64


def check_add(x: int, y: int, result: int) -> None:
    """Raise :class:`IntegerRefused` if SWI-Prolog refuses ``x + y`` or
    ``x - y`` (giving ``result``)."""
    if _int64(x) and _int64(y) and _int64(result):
        return
    if not _fits(max(limbs(x), limbs(y)) + 1):
        raise IntegerRefused()


def check_mul(x: int, y: int) -> None:
    """Raise :class:`IntegerRefused` if SWI-Prolog refuses ``x * y`` (``x is
    y``: the same integer, which GMP squares)."""
    if x == 0 or y == 0 or (_int64(x) and _int64(y) and _int64(x * y)):
        return
    if not _fits(limbs(x) + limbs(y)) or (x is y and limbs(x) >= SQUARE_SCRATCH_LIMBS):
        raise IntegerRefused()


def check_shift_left(x: int, n: int) -> None:
    """Raise :class:`IntegerRefused` if SWI-Prolog refuses ``x << n``
    (``n >= 0``)."""
    if x == 0:
        return
    if n >= _INT64:
        raise IntegerRefused(ALWAYS)
    if _int64(x):
        msb = 64 if x == -_INT64 else abs(x).bit_length() - 1
        if n + msb < 63:
            return
    if not _fits(limbs(x) + n // LIMB_BITS + 1):
        bits = abs(x).bit_length() + n
        # SWI-Prolog compares these bits with the stack limit in bytes
        raise IntegerRefused(bits if bits > _PRECHECK_BITS else None)


def check_power(base: int, exp: int) -> None:
    """Raise :class:`IntegerRefused` if SWI-Prolog refuses ``base ^ exp``
    (``exp > 0``, ``base`` not -1, 0 or 1)."""
    if exp >= _INT64:
        raise IntegerRefused(ALWAYS)
    size = abs(base).bit_length()
    estimate = (size - 1 if _int64(base) else size) * exp  # SWI-Prolog's (MSB64 for an int64)
    if estimate >= _INT64:
        raise IntegerRefused(ALWAYS)
    stack_bytes = estimate // 8 if estimate > _PRECHECK_BITS else None
    if _int64(base) and estimate < 63 and _int64(base**exp):
        return
    if not _power_fits(abs(base), exp, squares_itself=not _int64(base) or base < 0):
        raise IntegerRefused(stack_bytes)


def _power_fits(b: int, e: int, *, squares_itself: bool) -> bool:
    """GMP computes ``b ** e`` (``b >= 2``, ``e >= 1``) within the limit:
    ``mpz_pow_ui`` (``squares_itself``: a base that is not a non-negative
    int64) squares for ``e == 2``, else both it and ``mpz_ui_pow_ui`` call
    ``mpz_n_pow_ui``, modelled here."""
    if e == 1:
        return True
    if e == 2 and squares_itself:
        n = limbs(b)
        return _fits(2 * n) and n < SQUARE_SCRATCH_LIMBS
    zero_limbs = ((b & -b).bit_length() - 1) // LIMB_BITS
    rtwos_limbs = zero_limbs * e
    low = (b >> (LIMB_BITS * zero_limbs)) & ((1 << LIMB_BITS) - 1)
    btwos = (low & -low).bit_length() - 1
    rtwos_limbs += e * btwos // LIMB_BITS
    odd = b >> (LIMB_BITS * zero_limbs + btwos)
    bsize = limbs(odd)
    mult = odd
    if bsize == 1:
        blimb = odd
        while blimb <= _HALF_LIMB_MAX:
            e >>= 1
            if e == 0:
                return _fits(5 + rtwos_limbs)
            blimb *= blimb
        e >>= 1  # one more power, into two limbs (GMP's mpn_mul_2)
        mult = blimb * blimb
        bsize = 2
    top_bits = mult.bit_length() - LIMB_BITS * (bsize - 1)
    ralloc = (LIMB_BITS * (bsize - 1) + top_bits) * e // LIMB_BITS + 5
    if not _fits(ralloc + rtwos_limbs):
        return False
    if e == 0:
        return True
    talloc = ralloc // 2 if bsize <= 2 or e % 2 == 0 else ralloc
    if not _scratch_fits(talloc):
        return False
    # the largest squaring is the last, of mult ** (e // 2)
    return e < 2 or _power_limbs(mult, e // 2) < SQUARE_SCRATCH_LIMBS


def _power_limbs(m: int, k: int) -> int:
    """limbs(m ** k) for ``m >= 2``, without computing it (but where the
    logarithm cannot tell)."""
    bits_log = k * math.log2(m)
    near = round(bits_log)
    if abs(bits_log - near) < 1e-6:
        bits = int(m**k).bit_length()
    else:
        bits = math.floor(bits_log) + 1
    return (bits + LIMB_BITS - 1) // LIMB_BITS
