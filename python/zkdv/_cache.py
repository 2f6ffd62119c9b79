"""The derivation cache: artifacts a session derives from what it commits to, kept on disk so a
later session of the same code reuses them instead of deriving them again.

An entry is named by a key that hashes everything the artifact depends on (for a sealed AOT
Inductor package: the attested StableHLO step, the zkdv, torch and torch-mlir versions, and the
host's instruction set, since the package is compiled for it). Its file holds the blake3 of its
bytes, then the bytes: an entry that does not re-hash to its recorded hash (a torn write, a
disk error, an edit) is removed and derived again, never used.

- Where: ``$ZKDV_CACHE_DIR``, else ``$XDG_CACHE_HOME/zkdv``, else ``~/.cache/zkdv``.
- Off: ``ZKDV_CACHE=0``.
- Bounded: ``$ZKDV_CACHE_MAX_BYTES`` (default 4 GiB); past it the least recently used entries
  are removed after each write.
- Concurrent sessions: an entry is written to a temporary file in the same folder and renamed
  into place, so a reader sees a whole entry or none; two sessions deriving the same entry at
  once both write it, and either file is right.

The cache is a speed-up only: any failure to read or write it is a miss, never an error.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import blake3

__all__ = ["build_id", "cached", "directory", "key"]

_DEFAULT_MAX_BYTES = 4 << 30
_HASH = 32


def directory() -> Path | None:
    """The cache's folder, or ``None`` when ``ZKDV_CACHE=0`` turns the cache off."""
    if os.environ.get("ZKDV_CACHE", "1").strip() == "0":
        return None
    explicit = os.environ.get("ZKDV_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "zkdv"


def key(kind: str, *parts: str | bytes) -> str:
    """The entry name of an artifact of ``kind`` that depends on ``parts`` (hex): a blake3
    over each part, length-prefixed so that no two lists of parts share a key."""
    hasher = blake3.blake3(kind.encode())
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return f"{kind}-{hasher.hexdigest()}"


def _max_bytes() -> int:
    try:
        return int(os.environ.get("ZKDV_CACHE_MAX_BYTES", _DEFAULT_MAX_BYTES))
    except ValueError:
        return _DEFAULT_MAX_BYTES


def _read(path: Path) -> bytes | None:
    try:
        content = path.read_bytes()
    except OSError:
        return None
    recorded, data = content[:_HASH], content[_HASH:]
    if len(recorded) != _HASH or blake3.blake3(data).digest() != recorded:
        try:
            path.unlink(missing_ok=True)  # never trusted: derived again, and written anew
        except OSError:
            pass
        return None
    try:
        os.utime(path)  # recently used
    except OSError:
        pass
    return data


def _write(folder: Path, path: Path, data: bytes) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(blake3.blake3(data).digest())
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        _evict(folder, _max_bytes())
    except OSError:
        return


def _evict(folder: Path, limit: int) -> None:
    """Remove the least recently used entries until the folder holds at most ``limit`` bytes."""
    entries = []
    for entry in folder.iterdir():
        try:
            stat = entry.stat()
        except OSError:
            continue
        if not entry.is_file():
            continue
        if entry.name.startswith(".tmp-"):
            # A write that a killed session left half done: gone after a day.
            if stat.st_mtime < time.time() - 86400:
                entry.unlink(missing_ok=True)
            continue
        entries.append((stat.st_mtime, stat.st_size, entry))
    total = sum(size for _, size, _ in entries)
    for _, size, entry in sorted(entries, key=lambda e: e[0]):
        if total <= limit:
            break
        entry.unlink(missing_ok=True)
        total -= size


def cached(name: str, derive: Callable[[], bytes]) -> bytes:
    """The artifact named ``name`` (from :func:`key`): from the cache when it holds a whole
    entry for it, else ``derive()``'s bytes, which are then stored."""
    folder = directory()
    if folder is None:
        return derive()
    path = folder / name
    found = _read(path)
    if found is not None:
        return found
    data = derive()
    _write(folder, path, data)
    return data


_BUILD_ID: str | None = None


def build_id() -> str:
    """What identifies the passes and runtime this process runs: a blake3 of the native
    extension's file (a development build changes it without changing the version), computed
    once per process."""
    global _BUILD_ID
    if _BUILD_ID is None:
        from zkdv import _native

        try:
            _BUILD_ID = blake3.blake3(Path(_native.__file__).read_bytes()).hexdigest()
        except OSError:
            _BUILD_ID = f"version {_native.__version__}"
    return _BUILD_ID
