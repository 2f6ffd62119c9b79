"""A training session at the size people train, against the plain loop: ``scripts/bench scale``.

One GPT-style decoder per frontend (``python/tests/torch_steps.py`` and its Flax twin in
``python/tests/jax_steps.py``; ``--size 124m``, the default, is GPT-2 small's shape: 124M
parameters, the LM head tied to the token embedding, 2 sequences of 128 tokens), AdamW with
gradient clipping at norm 1, f32. Each frontend runs in a child process of its own, in this
order, one model and one optimizer state throughout:

1. the plain loop (torch eager, or ``jax.jit``): a warm-up step, then ``--steps`` timed steps;
2. a ZKDV session at p = 0 (no check): its first step (the derivation, not timed; the bench
   waits for its record), then ``--steps`` timed steps, the committer's queue drained inside
   the timed span; then ``close()``;
3. the plain loop again (``--steps`` steps): the plain figure is the median of both blocks, so
   a machine that slows down during the run shows as a spread, not as ZKDV's cost;
4. a session checking every step (``DEBUGCheckEvery(1)``: a state and an update check at each
   step), ``--checks`` timed steps, the checks drained inside the timed span: a check's cost
   in plain steps is what such a step costs on average beyond a p = 0 step.

Reported per frontend: seconds per step of each variant and the ratios to the plain loop; the
p = 0.01 ratio derived from them (each step checked with probability 0.01 per kind, a checked
step costing what the ``DEBUGCheckEvery(1)`` block measured; an upper bound, as if the two
kinds never fell on one step); and the process's peak resident memory after the plain block
and after each session (``ru_maxrss``, which only grows); and each check of the checked
session part by part (:class:`CheckParts`): its seconds, its nominal replay, the ensemble
members its spread needed, its state and update checks; and the op kinds the checks' runtime
runs spent their time on (``zkdv.runtime.take_profile``).

torch runs on one CPU thread (``torch.set_num_threads(1)``) and JAX on XLA's defaults; the
derivation cache is the user's (``ZKDV_CACHE_DIR``), so a second run does not seal again.

With ``--retain MODE`` a p = 0 session that retains evidence (``retain=MODE``: ``steps`` or
``checkpoints``, whose full states then come every 120 steps, none inside the timed block)
runs after the p = 0 block, timed the same way, with the bytes it kept per step.

With ``--audit K`` a last session of ``K`` steps retains its evidence (``retain="checkpoints"``:
a full state before the first step and after the last), and once the child has exited (the
two would not fit in memory together at 124M), ``zkdv audit --steps 1 --jobs 1``
(``target/release/zkdv``) replays it in a process of its own: one segment of ``K`` steps, its
update sketches and the final state compared (with the ensemble's spread where a comparison
needs it). Reported: the audit's verdict, its seconds in plain steps, and its peak resident
memory against the training process's.

Run: ``scripts/bench scale [--frontend torch|jax|both] [--size small|124m] [--steps K]
[--checks K] [--retain steps|checkpoints] [--audit K]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import first_step

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "python" / "tests"
ZKDV = ROOT / "target" / "release" / "zkdv"
# The decoder's sizes are the first-step bench's (``small``: 3.4M parameters; ``124m``).
SIZES: dict[str, dict[str, Any]] = first_step.SIZES


def _peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def _timed(step: Callable[[int], None], steps: int, first: int) -> list[float]:
    times = []
    for i in range(steps):
        start = time.perf_counter()
        step(first + i)
        times.append(time.perf_counter() - start)
    return times


def _wait_committed(proof: Any, steps: int) -> None:
    while proof._committer.transitions < steps and proof._flow.error is None:
        time.sleep(0.01)


class CheckParts:
    """Where each check of the checked session goes, timed by wrapping (in this child only)
    the checker's ``run``, ``state_check`` and ``update_check`` and the runtime's
    ``Program.run``: per check, its runtime replays (``replay``: the frontend's nominal replay
    before the state check compares; ``state``: the ensemble members its spread needed;
    ``update``: the attested program) and the seconds of each phase; and, over all those
    replays, the runtime's op profile (``zkdv.runtime.take_profile``: each op kind's own
    seconds)."""

    def __init__(self) -> None:
        self.checks: list[dict[str, Any]] = []
        self.ops: list[tuple[str, int, float, int]] = []
        self._undo: list[Callable[[], None]] = []

    def __enter__(self) -> CheckParts:
        import threading

        from zkdv import runtime
        from zkdv.session import _checker

        local = threading.local()

        def patch(owner: Any, name: str, wrapper: Callable[..., Any]) -> None:
            original = getattr(owner, name)
            setattr(owner, name, wrapper(original))
            self._undo.append(lambda: setattr(owner, name, original))

        def run(original: Callable[..., Any]) -> Callable[..., Any]:
            def timed(checker: Any, job: Any) -> Any:
                local.check = {"replays": [], "phase": "replay"}
                start = time.perf_counter()
                try:
                    return original(checker, job)
                finally:
                    check = local.__dict__.pop("check")
                    check["total"] = time.perf_counter() - start
                    del check["phase"]
                    self.checks.append(check)

            return timed

        def phase(name: str) -> Callable[..., Callable[..., Any]]:
            def wrapper(original: Callable[..., Any]) -> Callable[..., Any]:
                def timed(checker: Any, *args: Any) -> Any:
                    check = getattr(local, "check", None)
                    if check is not None:
                        check["phase"] = name
                    start = time.perf_counter()
                    try:
                        return original(checker, *args)
                    finally:
                        if check is not None:
                            check[name] = time.perf_counter() - start

                return timed

            return wrapper

        def program_run(original: Callable[..., Any]) -> Callable[..., Any]:
            def timed(program: Any, *args: Any, **kwargs: Any) -> Any:
                start = time.perf_counter()
                try:
                    return original(program, *args, **kwargs)
                finally:
                    check = getattr(local, "check", None)
                    if check is not None:
                        seconds = time.perf_counter() - start
                        member = kwargs.get("ensemble")
                        check["replays"].append((check["phase"], member, seconds))

            return timed

        patch(_checker.Checker, "run", run)
        patch(_checker.Checker, "state_check", phase("state"))
        patch(_checker.Checker, "update_check", phase("update"))
        patch(runtime.Program, "run", program_run)
        runtime.take_profile()  # nothing from before
        runtime.set_profiling(True)
        self._undo.append(lambda: runtime.set_profiling(False))
        return self

    def __exit__(self, *exc: object) -> None:
        from zkdv import runtime

        while self._undo:
            self._undo.pop()()
        self.ops = [tuple(op) for op in runtime.take_profile()]


def torch_child(
    size: dict[str, Any], steps: int, checks: int, retain: str | None, audit: tuple[int, str]
) -> dict[str, Any]:
    import torch

    import zkdv

    sys.path.insert(0, str(TESTS))
    import torch_steps

    torch.set_num_threads(1)
    torch_steps.GPT.update(size)
    torch.manual_seed(0)
    model = torch_steps.Gpt()
    parameters = sum(p.numel() for p in model.parameters())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

    def body(seed: int, backward: Callable[[torch.Tensor], None]) -> None:
        backward(torch_steps.loss_of(model, torch_steps.batch(seed)))
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()

    def plain(seed: int) -> None:
        body(seed, lambda loss: loss.backward())

    def session(
        policy: Any, directory: str, keep: str | None = None
    ) -> tuple[Any, Callable[[int], None]]:
        proof = zkdv.torch.ZKDV(directory, zkdv.ZKDVConfig(sampling_policy=policy), retain=keep)
        proof.start(rolling_window=8, probe_ratio=0.01)
        prepared, _ = proof.prepare(model, optimizer)

        @proof.attest
        def attested(m: Any, opt: Any, batch: tuple) -> None:
            (ids,) = batch
            proof.backward(torch_steps.loss_of(lambda x: proof.forward(m, x), ids))
            torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
            opt.step()
            opt.zero_grad()

        def checked(seed: int) -> None:
            with proof.transaction(batch=(torch_steps.batch(seed),)):
                body(seed, proof.backward)

        return proof, checked

    return _measure(parameters, plain, session, steps, checks, retain, audit)


def jax_child(
    size: dict[str, Any], steps: int, checks: int, retain: str | None, audit: tuple[int, str]
) -> dict[str, Any]:
    import jax
    import jax.numpy as jnp
    import numpy as np
    import optax
    from flax.training import train_state

    import zkdv

    sys.path.insert(0, str(TESTS))
    import jax_steps

    jax_steps.GPT.update(size)
    model = jax_steps.Gpt()
    length, vocab, rows = int(size["length"]), int(size["vocab"]), int(size["batch"])
    params = model.init(jax.random.key(0), jnp.zeros((1, length), jnp.int32))["params"]
    parameters = sum(x.size for x in jax.tree.leaves(params))
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-4))

    def batch(seed: int) -> np.ndarray:
        return np.random.default_rng(seed).integers(0, vocab, (rows, length + 1), dtype=np.int32)

    step_body = jax_steps.next_token_step

    holder: dict[str, Any] = {
        "plain": train_state.TrainState.create(apply_fn=model.apply, params=params, tx=tx)
    }
    plain_step = jax.jit(step_body)

    def plain(seed: int) -> None:
        holder["plain"] = jax.block_until_ready(plain_step(holder["plain"], batch(seed)))

    def session(
        policy: Any, directory: str, keep: str | None = None
    ) -> tuple[Any, Callable[[int], None]]:
        proof = zkdv.jax.ZKDV(directory, zkdv.ZKDVConfig(sampling_policy=policy), retain=keep)
        proof.start(rolling_window=8, probe_ratio=0.01)
        holder["proof"] = zkdv.jax.contrib.TrainState.create(
            proof=proof, apply_fn=model.apply, params=holder["plain"].params, tx=tx
        )
        train = proof.jit(step_body)

        def checked(seed: int) -> None:
            holder["proof"] = jax.block_until_ready(train(holder["proof"], batch(seed)))

        return proof, checked

    return _measure(parameters, plain, session, steps, checks, retain, audit)


def _audit(directory: str) -> dict[str, Any]:
    """``zkdv audit`` of one drawn step in a process of its own: verdict, seconds, peak memory."""
    if not ZKDV.exists():
        raise SystemExit(f"{ZKDV} is missing: cargo build --release -p zkdv-tools --bin zkdv")
    command = [str(ZKDV), "audit", directory, "--steps", "1", "--jobs", "1", "--json"]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        # wait4: this child's own peak, not the largest of every child reaped so far.
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text, errors = out.read(), err.read()
    peak = usage.ru_maxrss / 2**20
    if code not in (0, 1):
        raise SystemExit(f"zkdv audit failed (exit {code}): {errors[-2000:]}")
    report = json.loads(text)
    return {
        "passed": bool(report.get("passed")),
        "seconds": seconds,
        "peak_gb": peak,
        "transitions": report.get("report", {}).get("transitions"),
    }


def _measure(
    parameters: int,
    plain: Callable[[int], None],
    session: Callable[..., tuple[Any, Callable[[int], None]]],
    steps: int,
    checks: int,
    retain: str | None,
    audit: tuple[int, str],
) -> dict[str, Any]:
    """Time the blocks; with ``audit = (K, directory)`` (``K > 0``), leave a ``K``-step session
    retained for an audit in ``directory``."""
    import zkdv

    plain(0)  # the plain first step (compilation, allocation), not timed
    times: dict[str, list[float]] = {"plain": _timed(plain, steps, 1)}
    peaks = {"plain": _peak_gb()}
    with tempfile.TemporaryDirectory(prefix="zkdv-bench-scale-") as tmp:
        never = zkdv.SamplingPolicy(state_check_probability=0, update_check_probability=0)
        proof, step = session(never, f"{tmp}/p0")
        step(100)  # the first step: the derivation, not timed
        _wait_committed(proof, 1)
        start = time.perf_counter()
        times["p=0"] = _timed(step, steps, 101)
        proof.join()
        drained = time.perf_counter() - start - sum(times["p=0"])
        times["p=0"][-1] += drained
        proof.close()
        peaks["p=0"] = _peak_gb()
        kept = None
        if retain:
            name = f"p=0 retain={retain}"
            proof, step = session(never, f"{tmp}/kept", retain)
            step(400)
            _wait_committed(proof, 1)
            proof.join()
            size_before = sum(f.stat().st_size for f in Path(f"{tmp}/kept").rglob("*"))
            start = time.perf_counter()
            times[name] = _timed(step, steps, 401)
            proof.join()
            times[name][-1] += time.perf_counter() - start - sum(times[name])
            size_after = sum(f.stat().st_size for f in Path(f"{tmp}/kept").rglob("*"))
            kept = (size_after - size_before) / steps
            proof.close()
            peaks[name] = _peak_gb()
        times["plain"] += _timed(plain, steps, 200)
        parts: list[dict[str, Any]] = []
        if checks:
            with CheckParts() as timing:
                proof, step = session(zkdv.SamplingPolicy.DEBUGCheckEvery(1), f"{tmp}/every")
                step(300)
                _wait_committed(proof, 1)
                proof.join()
                start = time.perf_counter()
                times["checked"] = _timed(step, checks, 301)
                proof.join()
                times["checked"][-1] += time.perf_counter() - start - sum(times["checked"])
                count = len(proof.checks)
                proof.close()
            parts = timing.checks
            ops = timing.ops
            peaks["checked"] = _peak_gb()
            failed = [c for c in proof.checks if c.verdict != "pass"]
            if failed:
                raise SystemExit(f"an honest check failed: {failed[0]}")
        else:
            count = 0
            ops = []
        audit_steps, audit_directory = audit
        if audit_steps:
            proof, step = session(never, audit_directory, "checkpoints")
            for i in range(audit_steps):
                step(500 + i)
            proof.close()
    return {
        "parameters": parameters,
        "times": times,
        "peaks": peaks,
        "checks": count,
        "kept_per_step": kept,
        "parts": parts,
        "ops": ops,
    }


def _parts_line(i: int, check: dict[str, Any], base: float) -> str:
    """One check of :class:`CheckParts`: its runtime replays and phases, in seconds."""
    replays = check["replays"]
    nominal = [t for phase, member, t in replays if phase == "replay" and member is None]
    members = [t for phase, member, t in replays if phase == "state" and member is not None]
    attested = [t for phase, _, t in replays if phase == "update"]
    others = [t for phase, member, t in replays if phase == "state" and member is None]
    fields = [
        f"check {i + 1}: {check['total']:.1f} s ({check['total'] / base:.1f} plain steps)",
        "nominal replay " + ", ".join(f"{t:.1f}" for t in nominal + others) + " s",
        (f"{len(members)} members " + ", ".join(f"{t:.1f}" for t in members) + " s")
        if members
        else "no member",
    ]
    if "state" in check:
        fields.append(f"state check {check['state']:.1f} s")
    if "update" in check:
        fields.append(
            f"update check {check['update']:.1f} s (attested "
            + ", ".join(f"{t:.1f}" for t in attested)
            + " s)"
        )
    return "; ".join(fields)


def report(frontend: str, result: dict[str, Any]) -> None:
    times = result["times"]
    # Medians, but a checked block's mean (below).
    median = {
        name: (statistics.mean if name == "checked" else statistics.median)(values)
        for name, values in times.items()
    }
    base = median["plain"]
    print(f"\n{frontend}: {result['parameters'] / 1e6:.1f}M parameters, AdamW, clipping, f32")
    print(f"  {'variant':<22} {'s/step':>8} {'ratio':>6}   min..max")
    for name, values in times.items():
        print(
            f"  {name:<22} {median[name]:8.3f} {median[name] / base:6.3f}   "
            f"{min(values):.3f}..{max(values):.3f}"
        )
    if "checked" in times:
        # The checks run beside training and the block ends when the last one is done: a
        # checked step's cost is the block's mean, not a median that leaves the drain out.
        check = (median["checked"] - median["p=0"]) / base
        estimate = median["p=0"] / base + 2 * 0.01 * check
        print(f"  a checked step (state + update check) costs {check:.1f} plain steps beyond p = 0")
        print(f"  p = 0.01, derived: at most {estimate:.3f}x the plain loop")
        for i, check in enumerate(result.get("parts", [])):
            print("  " + _parts_line(i, check, base))
        ops = result.get("ops") or []
        total = sum(seconds for _, _, seconds, _ in ops)
        if total:
            top = ", ".join(
                f"{name.removeprefix('stablehlo.')} {seconds:.1f} s ({seconds / total:.0%})"
                for name, _, seconds, _ in ops[:8]
            )
            print(f"  the checks' runtime ops, {total:.1f} s in all: {top}")
    print(
        "  peak resident memory: "
        + ", ".join(f"{k} {v:.2f} GB" for k, v in result["peaks"].items())
    )
    peaks = result["peaks"]
    print(f"  peak, p = 0 session / plain block: {peaks['p=0'] / peaks['plain']:.2f}")
    if result.get("kept_per_step") is not None:
        retained = [n for n in times if n.startswith("p=0 retain=")][0]
        print(
            f"  {retained}: {median[retained] / median['p=0']:.3f}x the p = 0 session, "
            f"{result['kept_per_step'] / 2**20:.2f} MiB kept per step"
        )
    audit = result.get("audit")
    if audit:
        print(
            f"  zkdv audit (one segment, {audit['transitions']} steps replayed): passed, "
            f"{audit['seconds']:.1f} s = {audit['seconds'] / base:.0f} plain steps, "
            f"peak {audit['peak_gb']:.2f} GB = {audit['peak_gb'] / peaks['plain']:.2f}x the "
            "plain block's process"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frontend", choices=["torch", "jax", "both"], default="both")
    parser.add_argument("--size", choices=sorted(SIZES), default="124m")
    parser.add_argument("--steps", type=int, default=5, help="timed steps per block")
    parser.add_argument("--checks", type=int, default=3, help="checked steps (0: none)")
    parser.add_argument("--retain", choices=["steps", "checkpoints"], default=None)
    parser.add_argument(
        "--audit", type=int, default=0, metavar="K", help="audit a K-step session (0: none)"
    )
    parser.add_argument("--child", choices=["torch", "jax"], help=argparse.SUPPRESS)
    parser.add_argument("--audit-dir", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    size = SIZES[args.size]
    if args.child:
        child = torch_child if args.child == "torch" else jax_child
        audit = (args.audit, args.audit_dir)
        print(json.dumps(child(size, args.steps, args.checks, args.retain, audit)))
        return
    frontends = ["torch", "jax"] if args.frontend == "both" else [args.frontend]
    for frontend in frontends:
        with tempfile.TemporaryDirectory(prefix="zkdv-bench-scale-audit-") as kept:
            command = [sys.executable, "-W", "ignore", __file__, "--child", frontend]
            command += ["--size", args.size, "--steps", str(args.steps)]
            command += ["--checks", str(args.checks)]
            if args.retain:
                command += ["--retain", args.retain]
            if args.audit:
                command += ["--audit", str(args.audit), "--audit-dir", f"{kept}/audited"]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                sys.stderr.write(done.stderr[-4000:])
                raise SystemExit(f"the {frontend} child failed (exit {done.returncode})")
            result = json.loads(done.stdout.strip().splitlines()[-1])
            if args.audit:
                result["audit"] = _audit(f"{kept}/audited")
                if not result["audit"]["passed"]:
                    raise SystemExit(f"the {frontend} audit of an honest run failed")
        report(frontend, result)


if __name__ == "__main__":
    main()
