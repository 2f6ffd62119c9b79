"""The zoo runner: ``python -m zoo [--ci] [--only NAME...] [--steps N]`` (``scripts/zoo``).

Runs every selected entry honest (it must close cleanly) and, when the honest run closed,
once with each of its framework's tampers (each must be poisoned), every run in its own
subprocess with a timeout.
Prints the table; a run of the whole zoo (no ``--ci``, no ``--only``) also writes it to
``docs/zoo.md``, as does ``--write PATH``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zoo.entries import BY_NAME, ENTRIES, SCALE, Entry
from zoo.harness import TAMPERS, Mode, RunOutcome

ROOT = Path(__file__).resolve().parents[1]

RESULTS = "## Results"
"""The heading after which a whole-zoo run rewrites ``docs/zoo.md``; everything before it is
the page's own text, written there and nowhere else."""


def intro() -> str:
    """``docs/zoo.md`` up to its results (what :func:`page` keeps when it rewrites the page);
    a bare title where the checkout has no such page."""
    path = ROOT / "docs" / "zoo.md"
    if not path.is_file():
        return "# The model zoo\n"
    text = path.read_text()
    at = text.find("\n" + RESULTS + "\n")
    if at < 0:
        raise SystemExit(f"docs/zoo.md has no {RESULTS!r} heading to write the table after")
    return text[:at]


@dataclass
class Row:
    """One entry's line of the table."""

    entry: Entry
    honest: RunOutcome
    tampered: dict[Mode, RunOutcome]
    """The tampered runs, by tamper (none when the honest run did not close)."""
    steps: int
    audit: str | None = None
    resolved: dict[Mode, str] = field(default_factory=dict)
    """With ``--resolve``, per missed tamper: the smallest larger size caught
    (:data:`RESOLVE_FACTORS`), or that none was."""


RESOLVE_FACTORS = (2.0, 4.0, 8.0, 16.0)
"""The factors ``1 + r`` a missed tamper is retried at with ``--resolve``, smallest first."""


def run_once(
    entry: Entry,
    mode: str,
    steps: int,
    work: Path,
    timeout: float,
    seal: bool,
    retain: str | None = None,
    size: float | None = None,
) -> RunOutcome:
    """Run ``entry`` once in a subprocess; a timeout or a crash becomes an error outcome.
    ``retain``: the evidence the session retains for an audit (``"all"`` or
    ``"checkpoints"``), if any. ``size``: the tamper's relative size, if not its precision's
    (:func:`zoo.harness.update_size`)."""
    suffix = "" if size is None else f"-{size:g}"
    directory = work / f"{entry.name}-{mode}{suffix}"
    out = work / f"{entry.name}-{mode}{suffix}.json"
    env = dict(os.environ)
    env.pop("ZKDV_ZOO_RETAIN", None)
    if retain:
        env["ZKDV_ZOO_RETAIN"] = retain
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    env.setdefault("JAX_PLATFORMS", "cpu")
    if entry.devices > 1:
        flag = f"--xla_force_host_platform_device_count={entry.devices}"
        env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {flag}".strip()
    command = [sys.executable, "-m", "zoo.worker", entry.name, mode, str(steps)]
    command += [str(directory), str(out)] + (["--seal"] if seal else [])
    command += [] if size is None else ["--size", repr(size)]
    try:
        result = subprocess.run(
            command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return RunOutcome(status="error", message=f"timed out after {timeout:.0f} s")
    if result.returncode != 0 or not out.exists():
        tail = [line for line in result.stderr.strip().splitlines() if line.strip()]
        reason = tail[-1] if tail else f"exit status {result.returncode}"
        return RunOutcome(status="error", message=f"crashed ({result.returncode}): {reason}")
    data = json.loads(out.read_text())
    if data.get("worst_margin") == "inf":
        data["worst_margin"] = float("inf")
    outcome = RunOutcome(**data)
    if outcome.status == "error":
        outcome.message += _diagnostic(result.stderr)
    return outcome


def _diagnostic(stderr: str) -> str:
    """The first MLIR diagnostic (``error: ...``) a failed run printed, shortened to the
    operation it names: torch-mlir prints the reason a lowering failed, not its exception."""
    for line in stderr.splitlines():
        if line.startswith("error:"):
            named = re.search(r'name = "([^"]+)"', line)
            text = line[len("error:") :].split(":")[0].strip()
            return f" [{text}: {named.group(1)}]" if named else f" [{line[:200]}]"
    return ""


def run_entry(
    entry: Entry,
    steps: int,
    work: Path,
    timeout: float,
    seal: bool,
    audit: str | None = None,
    resolve: bool = False,
) -> Row:
    """The honest run, then, if it closed, one run per tamper of the entry's framework; with
    ``audit`` (a retention mode), the honest run retains its evidence so and ``zkdv audit``
    replays every step of it; with ``resolve``, a missed tamper is retried larger
    (:func:`resolution`)."""
    honest = run_once(entry, "honest", steps, work, timeout, seal and entry.seal, retain=audit)
    tampered: dict[Mode, RunOutcome] = {}
    audited = None
    if honest.status == "closed":
        if audit:
            audited = audit_run(work / f"{entry.name}-honest", timeout)
        for mode in TAMPERS[entry.framework]:
            tampered[mode] = run_once(entry, mode, steps, work, timeout, seal=False)
    resolved = {
        mode: resolution(entry, mode, steps, work, timeout)
        for mode, run in tampered.items()
        if resolve and run.status == "closed"
    }
    return Row(entry, honest, tampered, steps, audited, resolved)


def resolution(entry: Entry, mode: Mode, steps: int, work: Path, timeout: float) -> str:
    """The smallest of :data:`RESOLVE_FACTORS` at which ``mode`` is caught, as
    ``caught from xF`` (the factor before it was not), or ``not caught up to xF``."""
    for factor in RESOLVE_FACTORS:
        run = run_once(entry, mode, steps, work, timeout, seal=False, size=factor - 1)
        if run.status == "poisoned":
            return f"caught from x{factor:g}"
        if run.status == "error":
            return f"x{factor:g}: error: {run.message}"
    return f"not caught up to x{RESOLVE_FACTORS[-1]:g}"


def zkdv_command() -> list[str]:
    """The ``zkdv`` command: the cargo binary when one is built (release first), else the
    one the Python package carries (``python -m zkdv``, the same Rust code in the extension),
    as on a machine with the extension and no Rust toolchain."""
    for profile in ("release", "debug"):
        cli = ROOT / "target" / profile / "zkdv"
        if cli.exists():
            return [str(cli)]
    return [sys.executable, "-m", "zkdv"]


def audit_run(directory: Path, timeout: float) -> str:
    """``zkdv audit --fraction 1`` of each transcript under ``directory`` (one per DDP rank):
    ``pass`` or ``FAILED``, with the worst snapshot comparison's noise (root mean square, in
    noise units), the worst leaf's and the drift per snapshot, or why the audit could not
    run."""
    transcripts = sorted(p.parent for p in directory.rglob("records.cborl"))
    if not transcripts:
        return "error: no transcript"
    cli = zkdv_command()
    cells = []
    for transcript in transcripts:
        command = [*cli, "audit", str(transcript), "--fraction", "1", "--seed", "zoo"]
        try:
            result = subprocess.run(
                command + ["--json"], capture_output=True, text=True, timeout=timeout
            )
            data = json.loads(result.stdout)
        except (subprocess.TimeoutExpired, json.JSONDecodeError) as error:
            cells.append(f"error: {type(error).__name__}")
            continue
        report = data.get("report")
        if report is None:
            cells.append(f"error: {data.get('error', result.stderr.strip()[-200:])}")
            continue
        worst, drift = report["noise"]["worst_rms"], report["noise"]["drift"]
        leaf = report["noise"].get("worst_leaf_rms", 0.0)
        noise = f"noise {worst:.3g}, leaf {leaf:.3g}, drift {drift:.3g}"
        failure = report.get("failure")
        if data.get("passed"):
            cells.append(f"pass ({noise})")
        elif failure is not None:
            cells.append(f"FAILED at step {failure['step']}: {failure['what']} ({noise})")
        else:
            cells.append(f"FAILED: an expectation ({noise})")
    return "; ".join(cells)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def verdict(row: Row) -> str:
    """``pass``, ``FALSE ALARM: ...`` or ``error: ...``."""
    honest = row.honest
    if honest.status == "closed":
        return "pass"
    if honest.status == "poisoned":
        return f"FALSE ALARM: {honest.message}"
    return f"error: {honest.message}"


def _outliers(outcome: RunOutcome) -> str:
    """``"; N outliers"`` when the run's state checks admitted any, else nothing."""
    return f"; {outcome.outliers} outliers" if outcome.outliers else ""


def caught(row: Row) -> str:
    """Per tamper, what it changed and ``yes`` or ``no`` (with how the run ended); ``n.a.``
    without tampered runs."""
    if not row.tampered:
        return "n.a."
    return "; ".join(
        f"{run.tamper}: {_caught(run)}"
        + (f", {row.resolved[mode]}" if mode in row.resolved else "")
        for mode, run in row.tampered.items()
    )


def _caught(run: RunOutcome) -> str:
    if run.status == "poisoned":
        return "yes"
    if run.status == "closed":
        return f"no (closed cleanly; worst margin {_number(run.worst_margin)}{_outliers(run)})"
    return f"no: error: {run.message}"


def green(row: Row, modes: tuple[Mode, ...] | None = None) -> bool:
    """Whether the entry passed honestly and the tampers ``modes`` (all of its own by
    default; those it does not run are ignored) were caught."""
    runs = [run for mode, run in row.tampered.items() if modes is None or mode in modes]
    return (
        row.honest.status == "closed"
        and bool(runs)
        and all(run.status == "poisoned" for run in runs)
    )


def summary(rows: list[Row]) -> str:
    """How many entries are green (:func:`green`) with the update tamper and with every
    tamper, in f32 and in narrower compute dtypes, and how many honest runs raised a false
    alarm."""
    groups = [
        (label, [row for row in rows if (row.entry.precision != "f32") == narrow])
        for label, narrow in (("f32", False), ("bf16/f16", True))
    ]
    groups = [(label, group) for label, group in groups if group]

    def count(modes: tuple[Mode, ...] | None) -> str:
        return ", ".join(
            f"{sum(green(row, modes) for row in group)} of {len(group)} in {label}"
            for label, group in groups
        )

    alarms = sum(row.honest.status == "poisoned" for row in rows)
    return (
        f"Honest pass and the update tamper caught: {count(('update',))}; "
        f"and every tamper caught: {count(None)}. "
        f"False alarms: {alarms} of {len(rows)} honest runs."
    )


def _number(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "-"
    return "inf" if value == float("inf") else f"{value:.{digits}g}"


def table(rows: list[Row]) -> str:
    """The markdown table of ``rows``."""
    lines = [
        "| entry | framework | precision | honest | worst honest margin | tampers caught "
        "| s/step | first step s | close s | recipe |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    audited = any(row.audit is not None for row in rows)
    if audited:
        caught_column = " | tampers caught "
        lines[0] = lines[0].replace(caught_column, " | audit of every step" + caught_column)
        lines[1] += " --- |"
    for row in rows:
        honest = row.honest
        first = honest.step_seconds[0] if honest.step_seconds else None
        cells = [
            row.entry.name,
            row.entry.framework,
            row.entry.precision,
            verdict(row),
            _number(honest.worst_margin) + _outliers(honest),
            *([row.audit or "n.a."] if audited else []),
            caught(row),
            _number(RunOutcome.median_step(honest.step_seconds)),
            _number(first),
            _number(honest.close_seconds if honest.status == "closed" else None),
            row.entry.notes,
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def page(rows: list[Row], steps: int, seconds: float, planned: int | None = None) -> str:
    """``docs/zoo.md``: the introduction, how the table was made, the table. ``planned``:
    the number of entries of a run still in progress."""
    progress = "" if planned is None else f" (run in progress: {len(rows)} of {planned})"
    minutes = seconds / 60
    return (
        intro() + f"\n{RESULTS}\n\n{steps} steps per run; {len(rows)} entries in {minutes:.1f} "
        f"minutes{progress}; {_versions()}. {summary(rows)}\n\n" + table(rows) + "\n"
    )


def _versions() -> str:
    names = ["torch", "torchvision", "transformers", "jax", "flax", "optax"]
    found = []
    for name in names:
        try:
            from importlib.metadata import version

            found.append(f"{name} {version(name)}")
        except Exception:  # a missing library is simply not listed
            continue
    return ", ".join(found)


def select(args: Any) -> list[Entry]:
    """The entries ``--only``, ``--ci`` or ``--scale`` name, else all of them but the scale
    tier's."""
    if args.only:
        unknown = [name for name in args.only if name not in BY_NAME]
        if unknown:
            raise SystemExit(f"unknown entries: {', '.join(unknown)} (known: {sorted(BY_NAME)})")
        return [BY_NAME[name] for name in args.only]
    if args.ci:
        return [entry for entry in ENTRIES if entry.ci]
    if args.scale:
        return list(SCALE)
    return list(ENTRIES)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="The entries, their tampers and what the zoo has found: docs/zoo.md.",
    )
    parser.add_argument("--ci", action="store_true", help="the CI subset, without sealing")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run these entries only")
    parser.add_argument("--steps", type=int, default=None, help="steps per run (default 4; CI 3)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per run")
    parser.add_argument("--write", type=Path, help="write the page here too")
    parser.add_argument("--list", action="store_true", help="list the entries and exit")
    parser.add_argument(
        "--scale",
        action="store_true",
        help="the scale tier only (124M parameters: give --timeout 3600; about 20 GB of memory)",
    )
    parser.add_argument(
        "--resolve",
        action="store_true",
        help="retry a missed tamper at x2, x4, x8 and x16 until one is caught",
    )
    parser.add_argument(
        "--audit",
        nargs="?",
        const="all",
        choices=["all", "checkpoints"],
        metavar="MODE",
        help="retain the honest runs' evidence (retain=MODE: all, the default, or checkpoints: "
        "a full state before the first step and after the last) and audit every step "
        "(zkdv audit --fraction 1)",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="work in DIR and keep it (transcripts, with --audit the honest runs' evidence)",
    )
    args = parser.parse_args()
    if args.list:
        for entry in ENTRIES + SCALE:
            tier = "ci" if entry.ci else "scale" if entry.scale else ""
            print(f"{entry.name:28} {entry.framework:6} {tier:5} {entry.notes}")
        return
    entries = select(args)
    steps = args.steps or (3 if args.ci else 4)
    timeout = args.timeout or (240.0 if args.ci else 600.0)
    seal = not args.ci
    targets = [args.write] if args.write else []
    if not args.ci and not args.only and not args.scale:
        targets.append(ROOT / "docs" / "zoo.md")
    if targets:
        intro()  # a page without its results heading fails now, not after the runs
    rows: list[Row] = []
    start = time.perf_counter()
    if args.keep is not None:
        if args.keep.exists() and any(args.keep.iterdir()):
            parser.error(f"--keep {args.keep}: not empty (a run's transcripts go in a new one)")
        args.keep.mkdir(parents=True, exist_ok=True)
        work_context: contextlib.AbstractContextManager[str] = contextlib.nullcontext(
            str(args.keep)
        )
    else:
        work_context = tempfile.TemporaryDirectory(prefix="zkdv-zoo-")
    with work_context as work:
        for entry in entries:
            began = time.perf_counter()
            row = run_entry(
                entry, steps, Path(work), timeout, seal, audit=args.audit, resolve=args.resolve
            )
            rows.append(row)
            audit = f"; audit: {row.audit}" if row.audit is not None else ""
            print(
                f"{entry.name}: {verdict(row)}{audit}; tampers caught: {caught(row)} "
                f"({time.perf_counter() - began:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
            # The page so far, so an interrupted run still leaves the rows it finished.
            if len(rows) < len(entries):
                for target in targets:
                    partial = page(rows, steps, time.perf_counter() - start, len(entries))
                    target.write_text(partial)
    seconds = time.perf_counter() - start
    print(table(rows))
    print(f"\n{summary(rows)}")
    print(f"\n{len(rows)} entries in {seconds:.0f} s", file=sys.stderr)
    for target in targets:
        target.write_text(page(rows, steps, seconds))
        print(f"wrote {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
