"""The derivation stage: the one place a session derives the programs it commits.

A frontend lowers its step and hands the stage the lowered step, StableHLO text whose
arguments and results have the roles the pipelines' options name. The stage

- runs the declared pipelines on it (``passes/src/pipelines.rs``: the attested program, the
  replay variant), through the derivation cache (:mod:`zkdv._cache`, keyed by the text, the
  pipeline and the build of the passes), in :func:`pipeline`;
- computes the attested program's precision and the tolerance of its checks, and parses the
  programs for the Rust runtime, in :func:`derive`, whose :class:`Derived` is what the
  program record and the checks are made of;
- runs that work beside training when the frontend's production does not need it
  (:class:`Stage`, one thread per session): a PyTorch step runs eagerly, so its derivation,
  like its lowering, is off the training thread; a check or a record that comes before its
  program is ready waits for it, and a failure is the session's.

JAX's production program is the rewritten step itself, compiled before its first step runs,
so a JAX session derives on the training thread, through the same :func:`pipeline` and
:func:`derive`.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from zkdv import _cache, _progress, passes, runtime
from zkdv.config import Tolerance, ZKDVConfig

__all__ = ["Deferred", "Derived", "Registered", "Stage", "Task", "derive", "pipeline"]


def pipeline(text: str, spec: str, source: str) -> str:
    """``text`` through the pipeline ``spec`` (``"zkdv-attested-pipeline=..."``): from the
    derivation cache, or run now and stored."""
    name = _cache.key("derived", _cache.build_id(), spec, text)

    def run() -> bytes:
        derived, _ = passes.run_passes(text, [spec], source)
        return derived.encode()

    return _cache.cached(name, run).decode()


@dataclass(frozen=True)
class Derived:
    """The committed programs of one lowered step, and what its checks need of them."""

    name: str
    attested_text: str
    replay_text: str | None
    """The replay variant (what a state check, and an auditor, replays), when derived."""
    precision: dict[str, Any]
    """The attested program's precision (:func:`zkdv.passes.precision`)."""
    tolerance: Tolerance
    attested: runtime.Program
    replay: runtime.Program | None

    @property
    def flips(self) -> bool:
        """Whether the attested program computes in a float narrower than ``f32`` (its
        precision has narrow results): a state check may then admit discrete flips."""
        return int(self.precision.get("narrow_results", 0)) > 0


def derive(
    name: str,
    attested_text: str,
    replay_text: str | None,
    *,
    config: ZKDVConfig,
    matmul: Literal["f32", "tf32"],
    parse_replay: bool = True,
) -> Derived:
    """The precision, tolerance and runtime programs of a step's derived programs.

    Args:
        name: The step's name (diagnostics name the programs after it).
        attested_text, replay_text: The derived programs (:func:`pipeline`).
        config: The session's configuration (its base tolerance and policy).
        matmul: The precision the production backend gives an ``f32`` product
            (:class:`zkdv.runtime.Program`).
        parse_replay: Parse the replay variant for the runtime too (a frontend whose state
            checks replay it).
    """
    precision = passes.precision(attested_text, f"<{name}: attested>")
    tolerance = config.base_tolerance.for_program(config.tolerance_policy, precision)
    with _progress.stage("parsing the attested and replay programs for the runtime"):
        attested = runtime.Program(attested_text, "main", f"<{name}: attested>", matmul=matmul)
        replay = (
            runtime.Program(replay_text, "main", f"<{name}: replay>", matmul=matmul)
            if parse_replay and replay_text is not None
            else None
        )
    return Derived(name, attested_text, replay_text, precision, tolerance, attested, replay)


class Task[T]:
    """Work submitted to the :class:`Stage`, and its result.

    :meth:`result` runs the work on the caller's thread when the stage has not begun it (a
    session closed at the interpreter's exit, whose stage thread no longer takes work, still
    gets its program), waits for it when it is under way, and returns its result or raises
    its error."""

    def __init__(self, work: Callable[[], T]) -> None:
        self._work: Callable[[], T] | None = work
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._value: T | None = None
        self._error: BaseException | None = None

    def run(self) -> None:
        """Do the work, unless another thread took it already."""
        with self._lock:
            work, self._work = self._work, None
        if work is None:
            return
        try:
            self._value = work()
        except BaseException as error:  # the caller of result() gets it
            self._error = error
        finally:
            self._done.set()

    def error(self) -> BaseException | None:
        """The work's error once it finished with one (``None`` before, and after a result)."""
        return self._error if self._done.is_set() else None

    def ready(self) -> T | None:
        """The work's result once it finished with one (``None`` before, and after an error):
        never waits."""
        return self._value if self._done.is_set() and self._error is None else None

    def wait(self) -> None:
        """Wait until the work finished (running it here if no thread began it), whatever its
        outcome."""
        self.run()
        self._done.wait()

    def result(self) -> T:
        self.wait()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set by run(), T may be None


class Stage:
    """The session's derivation thread: work submitted here runs in order, beside training.

    One thread: the lowering processes it starts use the machine's cores already, and a
    second program (another batch layout) waits behind the first instead of competing with it
    and with training. A daemon thread: work it has not begun is done by whoever needs its
    result (:meth:`Task.result`), so nothing waits on it at the interpreter's exit."""

    def __init__(self, name: str = "zkdv-derive") -> None:
        self._name = name
        self._queue: queue.SimpleQueue[Task[Any] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit[T](self, work: Callable[[], T]) -> Task[T]:
        """Queue ``work`` for the derivation thread; the task holds its result or its error."""
        task = Task(work)
        with self._lock:
            if self._thread is None:
                thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
                try:
                    thread.start()
                except RuntimeError:
                    # At the interpreter's exit no thread starts: whoever needs the result
                    # does the work (Task.result).
                    return task
                self._thread = thread
            self._queue.put(task)
        return task

    def _serve(self) -> None:
        while (task := self._queue.get()) is not None:
            task.run()

    def close(self) -> None:
        """End the thread once the work under way is done; work not begun is left to whoever
        needs its result."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join()


class Deferred:
    """A program record written once, when it is first needed: by the committer thread, before
    the record of the first step that runs the program, once the program is derived (on the
    :class:`Stage`, while training goes on as far as the admission slots allow). Written
    there, its place among the records does not depend on how long the derivation took."""

    def __init__(self, write: Callable[[], int]) -> None:
        self._write: Callable[[], int] | None = write
        self._seq: int | None = None
        self._lock = threading.Lock()

    def __call__(self) -> int:
        """The record's sequence number, writing the record first if it is not yet written."""
        with self._lock:
            if self._seq is None:
                assert self._write is not None
                self._seq = self._write()
                self._write = None  # releases what the record was built from
            return self._seq

    @property
    def written(self) -> bool:
        """Whether the record is written."""
        return self._seq is not None


@dataclass(frozen=True, eq=False)
class Registered:
    """A program as a session registered it, what each frontend's program extends: its record,
    written when first needed (:class:`Deferred`), and its derivation, waited for when first
    read (:class:`Task`; its error is raised there)."""

    record: Deferred
    derived: Task[Derived]

    @property
    def seq(self) -> int:
        """The sequence number of its program record (written on first use)."""
        return self.record()

    @property
    def tolerance(self) -> Tolerance:
        """The tolerance of its checks (the session's, adjusted to its precision)."""
        return self.derived.result().tolerance

    @property
    def attested(self) -> runtime.Program:
        """The attested program, parsed for the Rust runtime."""
        return self.derived.result().attested
