"""Host copies, bit comparisons and device-side sketches of torch tensors.

The framework half of what the session core asks of a frontend: ``host`` is the host copy the
committer and the checks read (``bfloat16`` through ml_dtypes' bit layout), ``same_bits`` the
exact comparison of the continuity check, :class:`DeviceSketches` the update's probe
sketches computed where the update lives, and :class:`HostCopy` their copy to the host, one
transfer per step that the training thread does not wait for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import torch
from torch import nn

from zkdv.session._records import Records, versions

__all__ = [
    "DeviceSketches",
    "HostCopy",
    "all_same_bits",
    "host",
    "host_dtype",
    "matmul_precision",
    "root_versions",
    "same_bits",
    "training_flags",
]


def matmul_precision(tensors: Sequence[torch.Tensor]) -> Literal["f32", "tf32"]:
    """``"tf32"`` when production may multiply ``f32`` operands of ``tensors``' device as
    TensorFloat-32: on a CUDA device, unless torch is told not to for both matrix products and
    convolutions (:func:`_tf32_allowed`; cuDNN's convolutions use it by default). The
    perturbation ensemble of a check then rounds the operands of such products
    (:class:`zkdv.runtime.Program`'s ``matmul``). ``"f32"`` on a CPU."""
    if not any(t.device.type == "cuda" for t in tensors):
        return "f32"
    backends = torch.backends
    matmul = _tf32_allowed([backends.cuda.matmul], backends.cuda.matmul)
    cudnn = _tf32_allowed([getattr(backends.cudnn, "conv", None), backends.cudnn], backends.cudnn)
    return "tf32" if matmul or cudnn else "f32"


def _tf32_allowed(settings: Sequence[Any], legacy: Any) -> bool:
    """Whether torch's TensorFloat-32 switch for one kind of product is on: the first of
    ``settings`` whose ``fp32_precision`` (torch's newer API) says ``"tf32"`` or ``"ieee"``
    decides; where none does, the legacy ``allow_tf32`` of ``legacy``. Reading the legacy flag
    after the newer API was used raises in torch; then, and where neither can be read, TF32 is
    taken to be on, so that an honest run is never checked against exact products."""
    for setting in settings:
        precision = getattr(setting, "fp32_precision", "none") if setting is not None else "none"
        if precision in ("tf32", "ieee"):
            return bool(precision == "tf32")
    try:
        return bool(legacy.allow_tf32)
    except (RuntimeError, AttributeError):
        return True


def root_versions() -> dict[str, str]:
    """The root record's ``versions``: the packages and the host a sealed package needs."""
    return {**versions(("torch", "torch-mlir", "numpy")), "cpu": _cpu_isa()}


def _cpu_isa() -> str:
    """The machine and the vector extensions a sealed package may have been compiled for
    (``-march=native``): the host a replay of that exact file needs."""
    import platform

    flags: set[str] = set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith(("flags", "Features")):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    wanted = ("avx2", "avx512f", "avx512bw", "avx512_bf16", "amx_tile", "fma", "sve", "asimd")
    return " ".join([platform.machine(), *sorted(f for f in wanted if f in flags)])


def host(tensor: torch.Tensor) -> np.ndarray:
    """A host copy of ``tensor`` as numpy (bfloat16 through ml_dtypes' bit layout)."""
    t = tensor.detach().to("cpu", copy=True).contiguous()
    if t.dtype == torch.bfloat16:
        import ml_dtypes

        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def host_dtype(dtype: torch.dtype) -> np.dtype:
    """The numpy dtype :func:`host` gives a tensor of ``dtype``, without copying one (a layout
    needs only the type: copying the whole state to the host for it took 0.4 s at GPT-2
    small's size, and on a GPU it is a device-to-host copy of the state)."""
    if dtype == torch.bfloat16:
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return torch.empty(0, dtype=dtype).numpy().dtype


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether two tensors hold the same bits (a NaN equals the same NaN; -0.0 is not 0.0)."""
    if a.shape != b.shape or a.dtype != b.dtype or a.device != b.device:
        return False
    # Compared as integers of the element's width (a word at a time, not byte by byte).
    bits = _INT_OF_WIDTH.get(a.element_size(), torch.uint8)
    flat_a = a.detach().contiguous().reshape(-1).view(bits)
    flat_b = b.detach().contiguous().reshape(-1).view(bits)
    if a.device.type == "cpu":
        # numpy's comparison reads the two at twice torch.equal's rate on one CPU thread
        # (0.33 s against 0.69 s for GPT-2 small's parameters and Adam state).
        return bool(np.array_equal(flat_a.numpy(), flat_b.numpy()))
    return torch.equal(flat_a, flat_b)


_INT_OF_WIDTH = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def all_same_bits(xs: Sequence[torch.Tensor], ys: Sequence[torch.Tensor]) -> bool:
    """Whether each tensor of ``xs`` holds the same bits as its partner in ``ys``.

    On the CPU each pair is :func:`same_bits`. Elsewhere ``torch.equal`` would wait for the
    device once per pair, every step (the continuity check compares every parameter and
    optimizer-state leaf): there each pair's equality stays on its device and the training
    thread waits once for all of them (:func:`_device_same_bits`)."""
    if len(xs) != len(ys):
        return False
    on_device: list[tuple[torch.Tensor, torch.Tensor]] = []
    for a, b in zip(xs, ys, strict=True):
        if a.shape != b.shape or a.dtype != b.dtype or a.device != b.device:
            return False
        if a.device.type == "cpu":
            if not same_bits(a, b):
                return False
        else:
            on_device.append((a, b))
    return _device_same_bits(on_device)


def _device_same_bits(pairs: Sequence[tuple[torch.Tensor, torch.Tensor]]) -> bool:
    """:func:`same_bits` of every pair (same shapes, dtypes and devices), read back once per
    device: each pair's comparison is a 0-d tensor on its device until the end."""
    verdicts: dict[torch.device, list[torch.Tensor]] = {}
    for a, b in pairs:
        bits = _INT_OF_WIDTH.get(a.element_size(), torch.uint8)
        flat_a, flat_b = a.contiguous().reshape(-1), b.contiguous().reshape(-1)
        same = torch.eq(flat_a.view(bits), flat_b.view(bits)).all()
        verdicts.setdefault(a.device, []).append(same)
    return all(bool(torch.stack(v).all()) for v in verdicts.values())


def training_flags(model: nn.Module) -> tuple[bool, ...]:
    return tuple(module.training for module in model.modules())


class DeviceSketches:
    """The probe sketches of update leaves, computed on their device (probe maps from Rust,
    through the session's :class:`~zkdv.session._records.Records`, cached per leaf)."""

    def __init__(self, records: Records) -> None:
        self._records = records
        self._probes: dict[str, tuple[torch.Tensor, int, int]] = {}

    def __call__(self, path: str, delta: torch.Tensor) -> torch.Tensor:
        """The probe sketch of one update leaf, computed on its device in float64 (and left
        there: :class:`HostCopy` brings a step's sketches to the host together).

        The Rust probe map's columns are contiguous, balanced blocks of the last dimension
        (``long`` blocks of ``q + 1`` coordinates, then blocks of ``q``), so the sketch is the
        weighted leaf summed over two reshapes, one pass and no scatter. The products are
        rounded to the leaf's type and summed in float64 (as the JAX frontend's device sketch
        is; a state check compares the replay's sketches with these within tolerance)."""
        cached = self._probes.get(path)
        if cached is None:
            probe = self._records.probe(path, tuple(delta.shape))
            long, q = probe.blocks
            weight = torch.from_numpy(probe.weights()).to(delta.device, delta.dtype)
            cached = (weight, long, q)
            self._probes[path] = cached
        weight, long, q = cached
        x = (delta.reshape(1) if delta.dim() == 0 else delta) * weight
        lead = x.shape[:-1]
        split = long * (q + 1)
        f64 = torch.float64
        parts = [x[..., :split].reshape(*lead, long, q + 1).sum(-1, dtype=f64)]
        if x.shape[-1] > split:
            parts.append(x[..., split:].reshape(*lead, -1, q).sum(-1, dtype=f64))
        return torch.cat(parts, dim=-1)


class HostCopy:
    """Float64 tensors copied to the host in one transfer per device that the caller does not
    wait for; :meth:`numpy` (on the committer thread) waits for them and returns them.

    Copied one by one, each tensor's ``.cpu()`` would make the training thread wait for the
    device, once per parameter leaf and step: on a GPU the JAX frontend measured that wait at
    about 0.6 ms a leaf (``docs/measurements.md``, "Speed"). Here the tensors of each CUDA
    device are joined there, copied into pinned host memory without blocking, and an event
    recorded after the copy on that device's current stream (the one the copy was queued on)
    marks its end. On the CPU the join is the copy.
    """

    def __init__(self, tensors: Sequence[torch.Tensor]) -> None:
        self._shapes = [tuple(t.shape) for t in tensors]
        by_device: dict[torch.device, list[int]] = {}
        for i, t in enumerate(tensors):
            by_device.setdefault(t.device, []).append(i)
        # Per device: the positions it holds, its host buffer, and the event (None on the CPU)
        # with the joined tensor kept alive until the copy is done.
        self._parts: list[tuple[list[int], torch.Tensor, Any, torch.Tensor | None]] = []
        for device, positions in by_device.items():
            joined = torch.cat([tensors[i].reshape(-1) for i in positions])
            if device.type == "cuda":
                with torch.cuda.device(device):
                    host = torch.empty(joined.shape, dtype=joined.dtype, pin_memory=True)
                    host.copy_(joined, non_blocking=True)
                    event = torch.cuda.Event(blocking=True)
                    event.record(torch.cuda.current_stream(device))
                self._parts.append((positions, host, event, joined))
            else:
                self._parts.append((positions, joined.to("cpu"), None, None))

    def numpy(self) -> list[np.ndarray]:
        """The tensors on the host, in order, each with its shape."""
        out: list[np.ndarray] = [np.empty(0)] * len(self._shapes)
        for positions, host, event, _ in self._parts:
            if event is not None:
                event.synchronize()
            whole = host.numpy()
            offset = 0
            for i in positions:
                size = int(np.prod(self._shapes[i], dtype=np.int64))
                out[i] = whole[offset : offset + size].reshape(self._shapes[i])
                offset += size
        self._parts = [(positions, host, None, None) for positions, host, _, _ in self._parts]
        return out
