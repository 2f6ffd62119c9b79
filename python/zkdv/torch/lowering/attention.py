"""The kernels the attested step is traced through: attention in its math form, recurrent layers
without oneDNN, and 16-bit attention as CPU flash attention computes it."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

import torch

__all__ = ["kernels"]


@contextlib.contextmanager
def kernels(*, process_wide: bool) -> Iterator[None]:
    """The kernels the attested step is traced through: attention in its math form (the fused
    CPU kernels, flash attention and its backward, have no StableHLO lowering) and recurrent
    layers without oneDNN (``aten.mkldnn_rnn_layer`` has none either; production keeps its
    kernels, and the tolerance covers the rounding between the two). In 16-bit floats the
    math form computes in float32 where CPU flash attention rounds to 16 bits, so attention
    that production runs in flash attention is traced as that kernel computes it
    (:class:`_ReducedFlashAttention`).

    Attention is chosen by a torch function mode, which holds on the tracing thread only, so
    a trace beside training leaves production's kernels alone. oneDNN, and the attention
    backend of a call the mode does not see, can only be set for the whole process: with
    ``process_wide`` (a trace on the training thread) they are, and a step with a recurrent
    layer or ``nn.MultiheadAttention`` is never traced beside training
    (:func:`zkdv.torch.lowering.isolation.concurrent_refusal`)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    attention = _ReducedFlashAttention(torch.backends.cuda.flash_sdp_enabled())
    if not process_wide:
        with attention:
            yield
        return
    # torch.backends.mkldnn.flags(enabled=False), without its side effect on TF32 settings.
    enabled = torch._C._get_mkldnn_enabled()
    torch._C._set_mkldnn_enabled(False)
    try:
        # The math backend also for the attention the mode does not see: a call from inside
        # a function torch dispatched to the mode (nn.MultiheadAttention's), which runs with
        # the mode off. Such a step is never traced beside training.
        with sdpa_kernel(SDPBackend.MATH), attention:
            yield
    finally:
        torch._C._set_mkldnn_enabled(enabled)


def _math_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attn_mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> torch.Tensor:
    """``scaled_dot_product_attention`` as ATen runs it when the math backend is the one
    chosen (``at::scaled_dot_product_attention``: a boolean mask becomes the additive one in
    the query's dtype, then ``_scaled_dot_product_attention_math``), so that the traced
    graph is the one the backend flags gave, op for op.

    Under autocast, as autocast runs ``scaled_dot_product_attention``: its floating inputs
    cast to the autocast type, and everything inside with autocast off. Called directly,
    ``_scaled_dot_product_attention_math`` is no autocast op, and its inner products would be
    cast back to 16 bits after it widened its inputs to float32 (a dropout mask drawn in
    bfloat16 where production draws it in float32: BERT and T5 under bf16 autocast)."""
    kind = query.device.type
    if _autocast_enabled(kind):
        query, key, value, attn_mask = _autocast_cast(kind, query, key, value, attn_mask)
        with torch.autocast(kind, enabled=False):
            return _math_attention(
                query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa
            )
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        device = attn_mask.device
        below = torch.ops.aten.scalar_tensor.default(
            float("-inf"), dtype=query.dtype, device=device
        )
        kept = torch.ops.aten.scalar_tensor.default(
            0.0, dtype=query.dtype, layout=torch.strided, device=device
        )
        attn_mask = torch.ops.aten.where.self(attn_mask, kept, below)
    out, _ = torch.ops.aten._scaled_dot_product_attention_math.default(
        query,
        key,
        value,
        attn_mask,
        dropout_p,
        is_causal,
        None,
        scale=scale,
        enable_gqa=enable_gqa,
    )
    return out


def _autocast_enabled(device: str) -> bool:
    """Whether autocast is on for ``device`` (a device type torch does not know: no)."""
    try:
        return torch.is_autocast_enabled(device)
    except RuntimeError:
        return False


def _autocast_dtype(device: str, tensor: torch.Tensor) -> torch.dtype:
    """The type autocast casts ``tensor`` to as an argument of an op of its lower-precision
    list: the autocast type for a floating tensor of ``device`` but a ``float64`` one, else
    its own."""
    eligible = (
        tensor.is_floating_point()
        and tensor.dtype != torch.float64
        and tensor.device.type == device
    )
    return torch.get_autocast_dtype(device) if eligible else tensor.dtype


def _autocast_cast(device: str, *tensors: torch.Tensor | None) -> list[Any]:
    """``tensors`` as autocast casts the arguments of an op of its lower-precision list
    (:func:`_autocast_dtype`; ``None`` as it is)."""
    out: list[Any] = []
    for t in tensors:
        if isinstance(t, torch.Tensor) and _autocast_dtype(device, t) != t.dtype:
            t = t.to(_autocast_dtype(device, t))
        out.append(t)
    return out


# -- attention in 16-bit floats ------------------------------------------------------------------
#
# On CPU, scaled_dot_product_attention in bfloat16 or float16 (under autocast, which casts its
# inputs to 16 bits) runs flash attention (aten/src/ATen/native/cpu/FlashAttentionKernel.cpp).
# It computes in float32 but rounds to 16 bits in the middle: the unnormalized probabilities
# before they multiply V, and in the backward pass the recomputed probabilities before they
# multiply the output gradient and the score gradient before it multiplies K and Q. The math
# form, which tracing used, upcasts the inputs to float32 and rounds only its results: a
# quarter to half of the elements of the output and of the gradients of Q, K and V differed,
# and where a weight's gradient is nearly zero (Llama's attention projections at
# initialization) Adam turned the difference into an update of the other sign, which the
# ensemble, perturbing the program's own roundings, could not see (issue 19: a false alarm at
# step 0 of bf16 autocast + AdamW on Llama). Traced here as the kernel computes one block of
# keys (up to 512; longer sequences it splits, rescaling in float32): bit-identical to it on
# the models measured.


def _additive_mask(mask: torch.Tensor | None) -> torch.Tensor | None:
    """The attention mask as the float32 term the kernel adds to the scaled scores."""
    if mask is None:
        return None
    if mask.dtype == torch.bool:
        return torch.where(mask, 0.0, float("-inf"))
    return mask.float()


def _scores(
    q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor | None, scale: float
) -> torch.Tensor:
    """``scale * q @ k.T + mask`` in float32 (16-bit products are exact in float32)."""
    scores = torch.matmul(q.float(), k.float().transpose(-2, -1)) * scale
    return scores if mask is None else scores + mask


def _causal(scores: torch.Tensor, fill: float) -> torch.Tensor:
    """``scores`` with the keys after each query (top-left aligned) set to ``fill``."""
    rows, columns = scores.shape[-2], scores.shape[-1]
    keep = torch.ones(rows, columns, dtype=torch.bool, device=scores.device).tril()
    return scores.masked_fill(~keep, fill)


def _runs_cpu_flash(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None,
    dropout_p: float,
    dtypes: tuple[torch.dtype, torch.dtype, torch.dtype] | None = None,
) -> bool:
    """Whether torch runs ``scaled_dot_product_attention`` of these 16-bit inputs on CPU in
    flash attention (``use_flash_attention_cpp`` in ATen's ``sdp_utils_cpp.cpp``, flash
    attention being enabled: its conditions restated, as the backend choice cannot be asked
    of the fake tensors tracing uses). ``dtypes``: those of ``q``, ``k`` and ``v`` once cast
    (as autocast would; casting changes nothing else the choice reads)."""
    qt, kt, vt = dtypes or (q.dtype, k.dtype, v.dtype)
    if qt not in (torch.bfloat16, torch.float16) or not qt == kt == vt:
        return False
    if q.is_nested or dropout_p > 0.0 or not q.dim() == k.dim() == v.dim() == 4:
        return False
    if not q.size(0) == k.size(0) == v.size(0) or not q.size(1) == k.size(1) == v.size(1):
        return False
    if not q.size(3) == k.size(3) == v.size(3) or 0 in (q.size(2), k.size(2), q.size(3)):
        return False
    if not q.stride(-1) == k.stride(-1) == v.stride(-1) == 1:
        return False
    if mask is None:
        return True
    if mask.requires_grad or mask.size(-2) not in (q.size(2), 1):
        return False
    if mask.size(-1) not in (k.size(2), 1):
        return False
    return mask.dim() == 2 or (
        mask.dim() == 4 and mask.size(0) in (1, q.size(0)) and mask.size(1) in (1, q.size(1))
    )


class _FlashAttention(torch.autograd.Function):
    """CPU flash attention's forward and backward in 16-bit floats, as the kernel rounds."""

    @staticmethod
    def forward(
        ctx: Any,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        mask: torch.Tensor | None,
        is_causal: bool,
        scale: float,
    ) -> torch.Tensor:
        with torch.autocast("cpu", enabled=False):
            low = q.dtype
            scores = _scores(q, k, mask, scale)
            if is_causal:
                scores = _causal(scores, float("-inf"))
            top = scores.amax(-1, keepdim=True)
            top = torch.where(top == float("-inf"), 0.0, top)
            weights = torch.exp(scores - top)
            total = weights.sum(-1, keepdim=True)
            total = torch.where(total == 0, 1.0, total)
            unscaled = torch.matmul(weights.to(low).float(), v.float())
            out = (unscaled * (1 / total)).to(low)
            lse = top + torch.log(total)
        ctx.save_for_backward(q, k, v, out, lse, mask)
        ctx.is_causal, ctx.scale = is_causal, scale
        return out

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[Any, ...]:
        q, k, v, out, lse, mask = ctx.saved_tensors
        scale = ctx.scale
        with torch.autocast("cpu", enabled=False):
            low = q.dtype
            grad_out = grad_out.to(low).float()
            rowsum = (grad_out * out.float()).sum(-1, keepdim=True)
            weights = torch.exp(_scores(q, k, mask, scale) - lse)
            if ctx.is_causal:
                weights = _causal(weights, 0.0)
            grad_v = torch.matmul(weights.to(low).float().transpose(-2, -1), grad_out)
            grad_scores = weights * (torch.matmul(grad_out, v.float().transpose(-2, -1)) - rowsum)
            grad_scores = grad_scores.to(low).float()
            grad_q = torch.matmul(grad_scores, k.float()) * scale
            grad_k = torch.matmul(grad_scores.transpose(-2, -1), q.float()) * scale
        return grad_q.to(low), grad_k.to(low), grad_v.to(low), None, None, None


class _ReducedFlashAttention(torch.overrides.TorchFunctionMode):
    """While tracing, ``scaled_dot_product_attention`` in 16-bit floats on CPU that production
    would run in flash attention (the backend torch chooses with production's settings) is
    :class:`_FlashAttention`; any other is its math form (:func:`_math_attention`)."""

    def __init__(self, flash_enabled: bool) -> None:
        super().__init__()
        self.flash_enabled = flash_enabled

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if func is torch.nn.functional.scaled_dot_product_attention:
            call = self._flash(*args, **kwargs) if self.flash_enabled else None
            if call is not None:
                return _FlashAttention.apply(*call)
            return _math_attention(*args, **kwargs)
        return func(*args, **kwargs)

    @staticmethod
    def _flash(
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        attn_mask: torch.Tensor | None = None,
        dropout_p: float = 0.0,
        is_causal: bool = False,
        scale: float | None = None,
        enable_gqa: bool = False,
    ) -> tuple[Any, ...] | None:
        """The arguments of :class:`_FlashAttention` (inputs cast as autocast casts them),
        or None where production would not run CPU flash attention in 16 bits."""
        tensors = [query, key, value] + ([attn_mask] if attn_mask is not None else [])
        if not all(isinstance(t, torch.Tensor) and t.device.type == "cpu" for t in tensors):
            return None
        autocast = _autocast_enabled("cpu")
        # The choice is made on the types autocast would give, and only a call that runs
        # flash attention is cast here (a cast of another would be a dead op of the graph).
        q, k, v = (_autocast_dtype("cpu", t) if autocast else t.dtype for t in tensors[:3])
        if not _runs_cpu_flash(query, key, value, attn_mask, dropout_p, (q, k, v)):
            return None
        if autocast:
            query, key, value, attn_mask = _autocast_cast("cpu", query, key, value, attn_mask)
        if scale is None:
            scale = 1.0 / math.sqrt(query.size(-1))  # the kernel's, in double
        return query, key, value, _additive_mask(attn_mask), is_causal, float(scale)
