"""Errors in ulps, against mpmath at 200 bits, of the results that
`libm_against_crate.rs` dumps (ZKDV_LIBM_DUMP=FILE): ZKDV's libm.rs, the
`libm` crate, and glibc. Usage: `.venv/bin/python runtime/tests/libm_mpmath.py FILE`.
"""

import struct
import sys

import mpmath

mpmath.mp.prec = 200


def f64(bits: str) -> float:
    return struct.unpack("<d", struct.pack("<Q", int(bits, 16)))[0]


def cbrt(x: mpmath.mpf) -> mpmath.mpf:
    return mpmath.sign(x) * mpmath.cbrt(abs(x))


FUNCTIONS = {
    "exp": lambda x, _: mpmath.exp(x),
    "expm1": lambda x, _: mpmath.expm1(x),
    "ln": lambda x, _: mpmath.log(x),
    "ln_1p": lambda x, _: mpmath.log1p(x),
    "pow": lambda x, y: mpmath.power(x, y),
    "tanh": lambda x, _: mpmath.tanh(x),
    "sin": lambda x, _: mpmath.sin(x),
    "cos": lambda x, _: mpmath.cos(x),
    "tan": lambda x, _: mpmath.tan(x),
    "atan": lambda x, _: mpmath.atan(x),
    "atan2": lambda y, x: mpmath.atan2(y, x),
    "erf": lambda x, _: mpmath.erf(x),
    "erfc": lambda x, _: mpmath.erfc(x),
    "sinh": lambda x, _: mpmath.sinh(x),
    "cosh": lambda x, _: mpmath.cosh(x),
    "asin": lambda x, _: mpmath.asin(x),
    "acos": lambda x, _: mpmath.acos(x),
    "asinh": lambda x, _: mpmath.asinh(x),
    "acosh": lambda x, _: mpmath.acosh(x),
    "atanh": lambda x, _: mpmath.atanh(x),
    "cbrt": lambda x, _: cbrt(x),
}

MAX = mpmath.mpf(sys.float_info.max)


def ulp_error(got: float, exact: mpmath.mpf) -> float:
    """|got - exact| in ulps of the exact value (of its binade, subnormals
    counted in units of 2^-1074); 0 when both overflow the same way."""
    if got != got:
        return 0.0 if exact != exact else float("inf")
    if abs(exact) > MAX:
        return 0.0 if abs(got) == float("inf") and (got > 0) == (exact > 0) else float("inf")
    if exact == 0:
        return 0.0 if got == 0 else float("inf")
    e = max(int(mpmath.floor(mpmath.log(abs(exact), 2))), -1022)
    return float(abs(mpmath.mpf(got) - exact) / mpmath.ldexp(1, e - 52))


def main(path: str) -> None:
    worst: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    for line in open(path):
        name, x, y, z, c, g = line.split()
        x, y = f64(x), f64(y)
        exact = FUNCTIONS[name](mpmath.mpf(x), mpmath.mpf(y))
        if isinstance(exact, mpmath.mpc):
            continue
        w = worst.setdefault(name, [0.0, 0.0, 0.0])
        counts[name] = counts.get(name, 0) + 1
        for i, bits in enumerate((z, c, g)):
            w[i] = max(w[i], ulp_error(f64(bits), exact))
    print("| function | points | ZKDV max ulp | crate max ulp | glibc max ulp |")
    print("|---|---|---|---|---|")
    for name, (z, c, g) in worst.items():
        print(f"| {name} | {counts[name]} | {z:.3f} | {c:.3f} | {g:.3f} |")


if __name__ == "__main__":
    main(sys.argv[1])
