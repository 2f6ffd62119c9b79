"""What measuring a state's perturbation ensemble costs on the host, beside the replays.

A state check that needs its spread runs its replay once per member and hands each member's
values (a flat ``float64`` array as long as the compared state: about 250M values at GPT-2
small's size) to ``zkdv.Tolerance.measure_ensemble``, which widens the spread and the leaves'
member scales. This bench times that part alone: members are precomputed arrays (no replay),
the whole ensemble is measured, and it prints the seconds a member costs and the peak resident
memory above the inputs. Run it against another tree with ``PYTHONPATH`` to compare.

Usage: ``scripts/bench ensemble [--values N]`` (default 100,000,000).
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

import zkdv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=100_000_000)
    n = parser.parse_args().values
    tolerance = zkdv.Tolerance(abs=1e-6, rel=1e-5, spread=32.0, replays=8)
    rng = np.random.default_rng(0)
    nominal = rng.standard_normal(n)
    members = [nominal + 1e-7 * rng.standard_normal(n) for _ in range(2)]
    groups = [(n // 4, True, 1000, False)] * 4
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    start = time.perf_counter()
    tolerance.measure_ensemble(nominal, lambda m: members[m % 2], groups)
    took = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(
        f"{tolerance.replays} members over {n:,} values: {took / tolerance.replays:.2f} s a "
        f"member; peak {peak:.2f} GB, {peak - base:+.2f} GB above the inputs"
    )


if __name__ == "__main__":
    main()
