"""Type stubs of the Rust extension ``zkdv._native``."""

from collections.abc import Callable
from os import PathLike
from typing import Any, Literal

import numpy as np

__version__: str

def cli(argv: list[str]) -> int:
    """Run the ``zkdv`` command line ``argv`` (program name first); its exit status."""
    ...

def release_memory() -> None:
    """Give the memory the extension freed back to the system now (``mi_collect``)."""
    ...

def allocator_options() -> str:
    """mimalloc's version and options, as it prints them."""
    ...

PROTOCOL_VERSION: int
CHUNK_BYTES: int

class TranscriptError(Exception):
    record: int | None
    offset: int | None

class TensorCommitment:
    @property
    def digest(self) -> bytes: ...
    @property
    def root(self) -> bytes: ...
    @property
    def leaf_count(self) -> int: ...
    @property
    def byte_len(self) -> int: ...

class BatchCommitment:
    rows: int
    width: int
    window: int
    root: bytes
    digest: bytes

class ProbeMap:
    def __init__(self, seed: bytes, path: str, shape: list[int], ratio: float) -> None: ...
    @property
    def d(self) -> int: ...
    @property
    def k(self) -> int: ...
    @property
    def column(self) -> np.ndarray: ...
    @property
    def sign(self) -> np.ndarray: ...
    @property
    def scale(self) -> np.ndarray: ...
    def to_dense(self) -> np.ndarray: ...
    def sketch(self, dtype: str, data: np.ndarray) -> np.ndarray: ...
    def weights(self) -> np.ndarray: ...
    @property
    def blocks(self) -> tuple[int, int]: ...

class Challenge:
    state: bool
    update: bool
    parameter_index: int
    optimizer_state_index: int | None
    def update_indices(self) -> list[int]: ...

class StepReceipt:
    seq: int
    hash: bytes
    challenge: Challenge

class TranscriptWriter:
    def __init__(
        self,
        directory: str | PathLike[str],
        root: dict[str, Any],
        *,
        sign: bool = False,
        challenge_key: bytes | None = None,
        signing_key: bytes | None = None,
    ) -> None: ...
    @property
    def root(self) -> dict[str, Any]: ...
    @property
    def steps(self) -> int: ...
    @property
    def closed(self) -> bool: ...
    def put_artifact(self, data: bytes, extension: str) -> dict[str, Any]: ...
    def put_evidence(self, leaves: list[tuple[str, Any]]) -> dict[str, Any]: ...
    def append_program(self, body: dict[str, Any]) -> int: ...
    def append_production(self, body: dict[str, Any]) -> int: ...
    def append_step(self, body: dict[str, Any]) -> StepReceipt: ...
    def append_snapshot(self, body: dict[str, Any]) -> int: ...
    def append_check(self, body: dict[str, Any]) -> int: ...
    def challenge(self, step: int) -> Challenge: ...
    def close(self, failure: dict[str, Any] | None = None) -> dict[str, Any]: ...

def commit_tensor(dtype: str, shape: list[int], data: np.ndarray) -> TensorCommitment: ...
def commit_tree(leaves: list[tuple[str, bytes]]) -> bytes: ...

_NativeArray = np.ndarray | tuple[str, list[int], np.ndarray]
"""An array as the binding reads it: a C-contiguous native-endian array of float32, float64,
int32, int64, uint32, uint64 or bool, or any dtype as ``(tag, shape, flat uint8 view)``."""

def commit_tensor_tree(leaves: list[tuple[str, _NativeArray]]) -> bytes: ...
def window_hashes(row: np.ndarray, window: int) -> np.ndarray: ...
def commit_batch(words: np.ndarray, window: int) -> BatchCommitment: ...
def verify(path: str | PathLike[str]) -> dict[str, Any]: ...
def inspect(path: str | PathLike[str]) -> dict[str, Any]: ...
def read_records(path: str | PathLike[str]) -> list[dict[str, Any]]: ...
def read_evidence(path: str | PathLike[str]) -> list[tuple[str, str, list[int], bytes]]: ...
def save_state(path: str | PathLike[str], leaves: list[tuple[str, Any]]) -> None: ...
def unpack_batch(
    leaves: list[tuple[list[int], str]], min_width: int, packed: np.ndarray
) -> tuple[tuple[int, int], list[bytes]]: ...
def derive_challenge(
    key: bytes,
    record_hash: bytes,
    step: int,
    sampling: dict[str, Any],
    parameters: int,
    optimizer_state: int,
) -> Challenge: ...
def key_commitment(key: bytes) -> bytes: ...
def run_passes(
    text: str, passes: list[str], source_name: str = "<input>"
) -> tuple[str, list[str]]: ...
def precision(text: str, source_name: str = "<input>") -> dict[str, Any]: ...
def pipelines() -> list[dict[str, Any]]: ...
def program_tolerance(
    tolerance: dict[str, Any], policy: str, precision: dict[str, Any]
) -> dict[str, Any]: ...
def tolerance_compare(
    tolerance: dict[str, Any],
    committed: np.ndarray,
    recomputed: np.ndarray,
    spread: np.ndarray | None = None,
) -> tuple[int, float, float, float, float, float, bool] | None: ...
def tolerance_scaled_to(tolerance: dict[str, Any], scale: float) -> dict[str, Any]: ...
def tolerance_state_bounds(
    tolerance: dict[str, Any],
    committed: np.ndarray,
    recomputed: np.ndarray,
    groups: list[tuple[int, bool, int, bool]],
    spread: np.ndarray | None = None,
    flips: bool = False,
) -> np.ndarray: ...
def tolerance_compare_state(
    tolerance: dict[str, Any],
    committed: np.ndarray,
    recomputed: np.ndarray,
    update: np.ndarray,
    groups: list[tuple[int, bool, int, bool]],
    spread: np.ndarray | None = None,
    flips: bool = False,
    scales: list[float] | None = None,
) -> (
    tuple[
        tuple[int, float, float, float, float, float, bool],
        int,
        tuple[int, Literal["scale", "mean"], float, float] | None,
        float | None,
    ]
    | None
): ...
def state_group_row(shape: list[int]) -> int: ...
def tolerance_ensemble(
    tolerance: dict[str, Any],
    nominal: np.ndarray,
    member: Callable[[int], np.ndarray],
    groups: list[tuple[int, bool, int, bool]],
    compared: tuple[np.ndarray, np.ndarray, bool] | None = None,
) -> tuple[np.ndarray, list[float], int]: ...
def tolerance_leaf_statistics(
    tolerance: dict[str, Any],
    committed: np.ndarray,
    recomputed: np.ndarray,
    groups: list[tuple[int, bool, int, bool]],
    spread: np.ndarray | None = None,
    flips: bool = False,
    scales: list[float] | None = None,
) -> list[tuple[int, Literal["scale", "mean"], float, float]]: ...
def tolerance_margins(
    tolerance: dict[str, Any],
    committed: np.ndarray,
    recomputed: np.ndarray,
    spread: np.ndarray | None = None,
) -> np.ndarray: ...
def tolerance_needs_spread(
    tolerance: dict[str, Any], committed: np.ndarray, recomputed: np.ndarray
) -> bool: ...
def tolerance_spread(
    tolerance: dict[str, Any],
    nominal: np.ndarray,
    member: Callable[[int], np.ndarray],
    committed: np.ndarray | None = None,
) -> tuple[np.ndarray, int]: ...
def set_runtime_profiling(enabled: bool) -> None: ...
def take_runtime_profile() -> list[tuple[str, int, float, int]]: ...

class RuntimeError(Exception): ...

class Program:
    def __init__(self, text: str, func: str = "main", source_name: str = "<program>") -> None: ...
    @property
    def arguments(self) -> list[tuple[str, list[int]]]: ...
    def run(
        self,
        inputs: list[_NativeArray],
        max_ops: int | None = None,
        max_elements: int | None = None,
        ensemble: int | None = None,
        matmul: str | None = None,
    ) -> list[np.ndarray | tuple[str, list[int], bytes]]: ...
