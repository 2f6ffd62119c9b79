"""The traced step's export, StableHLO lowering and AOT Inductor seal, each run in a process of
its own (:mod:`zkdv.torch.lowering.child`, which says why not on a thread), from a thread of
the session's derivation stage while training goes on.

:class:`Lowering` holds one traced step's working directory: :meth:`Lowering.text` lowers the
step (or reads the lowering from the derivation cache, keyed by :meth:`Traced.digest
<zkdv.torch.lowering.tracing.Traced.digest>` and the versions), :meth:`Lowering.package`
seals it (or reads the package from the cache, keyed by the StableHLO text it compiles).
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO

from zkdv import _cache, _progress
from zkdv.torch.lowering import transfer
from zkdv.torch.lowering.export import refusal
from zkdv.torch.lowering.tracing import Traced

__all__ = ["Lowering", "seal"]


def _command(*arguments: str) -> tuple[list[str], dict[str, str]]:
    """The child's command line and environment: run by its path, with this process's module
    path (the child needs torch and zkdv as this process found them)."""
    child = Path(__file__).with_name("child.py")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return [sys.executable, str(child), *arguments], environment


def _run(*arguments: str) -> subprocess.CompletedProcess[str]:
    """The child with ``arguments``, run to its end."""
    command, environment = _command(*arguments)
    return subprocess.run(command, capture_output=True, text=True, check=False, env=environment)


class _Server:
    """The lowering process that serves this process's sessions (``child.py serve``): started
    on the first request, started again after it ended; one request at a time. Its standard
    error goes to a temporary file (no thread reads it: a session finished at the
    interpreter's exit may start the server, when no thread can be started), whose last line
    names a crash."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None
        self._errors: IO[bytes] | None = None
        self._lock = threading.Lock()

    def _started(self) -> subprocess.Popen[str]:
        if self._process is None or self._process.poll() is not None:
            command, environment = _command("serve")
            if self._errors is not None:
                self._errors.close()
            self._errors = tempfile.TemporaryFile()
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._errors,
                text=True,
                env=environment,
            )
        return self._process

    def _last_error(self) -> str | None:
        if self._errors is None:
            return None
        self._errors.seek(0)
        lines = [line for line in self._errors.read().decode(errors="replace").splitlines()]
        lines = [line for line in lines if line.strip()]
        return lines[-1] if lines else None

    def request(self, *request: str) -> dict[str, object]:
        """The reply to ``request``; a process that ended without replying is an error (one
        that ended because it was idle, as this request came, is started again)."""
        with self._lock:
            for _ in range(2):
                process = self._started()
                assert process.stdin is not None and process.stdout is not None
                try:
                    process.stdin.write(json.dumps(list(request)) + "\n")
                    process.stdin.flush()
                    line = process.stdout.readline()
                except OSError:
                    line = ""
                if line:
                    reply: dict[str, object] = json.loads(line)
                    return reply
                code = process.wait()
                if code != 0:
                    break
            last = self._last_error() or f"it exited with {code}"
            raise ValueError(f"zkdv.torch: the lowering process ended: {last}")

    def stop(self) -> None:
        with self._lock:
            if self._process is not None and self._process.poll() is None:
                assert self._process.stdin is not None
                self._process.stdin.close()
                try:
                    self._process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self._process.kill()
            self._process = None
            if self._errors is not None:
                self._errors.close()
                self._errors = None


_SERVER = _Server()
atexit.register(_SERVER.stop)


def _last_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return lines[-1] if lines else f"the process exited with {done.returncode}"


def seal(exported: Path) -> bytes:
    """Compile the exported step saved at ``exported`` into an AOT Inductor package, in the
    lowering process, and return its exact bytes.

    The bytes differ on every compile (serialization ids, temporary paths, kernel names) and
    are specific to the host (``-march=native``), so the one sealed file is committed and is
    what replays it (``torch._inductor.aoti_load_package``) must load.

    Raises:
        ValueError: the step cannot be compiled.
    """
    package = exported.with_name("step.pt2")
    done = _run("seal", str(exported), str(package))
    if done.returncode != 0 or not package.is_file():
        raise ValueError(
            f"zkdv.torch: the attested step cannot be sealed as an AOT Inductor package: "
            f"{_last_line(done)}"
        )
    return package.read_bytes()


def _sources() -> str:
    """A hash of the code the lowering process runs (a development build changes it without
    changing zkdv's version): part of the cache keys of what it derives."""
    h = hashlib.blake2b(digest_size=16)
    for name in ("child.py", "export.py", "rewrites.py", "seal.py", "decompositions.py"):
        h.update(Path(__file__).with_name(name).read_bytes())
    return h.hexdigest()


class Lowering:
    """One traced step on its way to StableHLO and to a sealed package.

    Args:
        traced: The traced step.
        versions: What the lowering depends on besides the step (torch's, torch-mlir's and
            zkdv's versions, the host's instruction set): part of each cache key.
    """

    def __init__(self, traced: Traced, versions: dict[str, str]) -> None:
        self.traced = traced
        self._versions = repr(sorted(versions.items())) + _sources()
        self._directory: Path | None = None
        self._text: str | None = None
        self._lock = threading.Lock()

    def _workdir(self) -> Path:
        if self._directory is None:
            self._directory = Path(tempfile.mkdtemp(prefix="zkdv-lowering-"))
        return self._directory

    def _lower(self) -> str:
        """Export and lower the step in the lowering process (which keeps the exported program
        for the seal: :meth:`package`)."""
        directory = self._workdir()
        try:
            (directory / "step.bin").write_bytes(
                transfer.pack(self.traced.graph, self.traced.inputs)
            )
        except Exception as error:
            raise ValueError(
                "zkdv.torch: the traced step cannot be handed to the lowering process: "
                f"{type(error).__name__}: {error}"
            ) from error
        with _progress.stage(
            "exporting the attested step and lowering it to StableHLO "
            "(torch-mlir, in a process of its own)"
        ):
            reply = _SERVER.request("lower", str(directory))
        if reply.get("refused"):
            refused = json.loads((directory / "refused.json").read_text())
            raise refusal(self.traced.graph, refused["ops"], refused["detail"])
        if "error" in reply or not (directory / "step.mlir").is_file():
            why = reply.get("error")
            raise ValueError(f"zkdv.torch: the attested step cannot be lowered to StableHLO: {why}")
        return (directory / "step.mlir").read_text()

    def text(self) -> str:
        """The step in StableHLO (MLIR generic form): from the cache, or lowered now."""
        with self._lock:
            if self._text is None:
                name = _cache.key("torch-lowering", self.traced.digest(), self._versions)
                self._text = _cache.cached(name, lambda: self._lower().encode()).decode()
            return self._text

    def package(self) -> bytes:
        """The sealed AOT Inductor package of the step: from the cache (keyed by what it
        compiles, the StableHLO step, and the versions and host that compile it), or compiled
        now (tens of seconds to minutes). Its bytes differ on every compile, so the one
        committed is the one a replay must load."""
        text = self.text()

        def compile() -> bytes:
            with (
                self._lock,
                _progress.stage("sealing the AOT Inductor package (training goes on meanwhile)"),
            ):
                directory = self._workdir()
                exported = directory / "exported.pt2"
                if not exported.is_file():
                    if not (directory / "step.bin").is_file():
                        # The lowering came from the cache: hand the step over for the seal.
                        packed = transfer.pack(self.traced.graph, self.traced.inputs)
                        (directory / "step.bin").write_bytes(packed)
                    reply = _SERVER.request("export", str(directory))
                    if "error" in reply or not exported.is_file():
                        raise ValueError(
                            "zkdv.torch: the attested step cannot be exported for its seal: "
                            f"{reply.get('error')}"
                        )
                return seal(exported)

        return _cache.cached(_cache.key("seal", text, self._versions), compile)

    def close(self) -> None:
        """Remove the working directory."""
        with self._lock:
            if self._directory is not None:
                shutil.rmtree(self._directory, ignore_errors=True)
                self._directory = None
