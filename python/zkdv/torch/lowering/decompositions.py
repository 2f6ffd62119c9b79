"""Decompositions the attested step is traced with: torch's own, of the ops torch-mlir cannot
lower to StableHLO, and ZKDV's, where torch has none (``avg_pool2d_backward``, grouped or
dilated ``convolution_backward``) or where its meta functions type a mixed-precision
normalization's statistics otherwise than its kernels compute them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

__all__ = ["decompositions_of", "default_decompositions"]


def default_decompositions() -> dict[Any, Callable[..., Any]]:
    """torch's own decompositions, applied while tracing, of the ops torch-mlir cannot lower
    to StableHLO (each found on a real model): the backward kernels of ``SiLU`` (Llama's
    MLP), ``Mish``, ``Hardswish`` and the pooling layers (ResNet, MobileNet), nearest
    upsampling (a UNet's), and ZKDV's own
    of ``AvgPool2d``'s (torch has none), of the backward of transposed, grouped or dilated
    convolutions (diffusion UNets, MobileNet, EfficientNet; other convolutions keep their
    kernel), of nearest upsampling's backward (a UNet's) and of ``cumprod`` (a noise
    schedule's)."""
    from torch._decomp import get_decompositions

    aten = torch.ops.aten
    table = get_decompositions(
        [
            aten.silu_backward,
            aten.mish_backward,
            aten.hardswish_backward,
            aten.hardsigmoid_backward,
            aten.max_pool2d_with_indices_backward,
            aten.upsample_nearest2d,
        ]
    )
    table[aten.upsample_nearest2d_backward.default] = _upsample_nearest2d_backward
    table[aten.avg_pool2d_backward.default] = _avg_pool2d_backward
    table[aten.convolution_backward.default] = _convolution_backward
    table[aten.native_batch_norm.default] = _native_batch_norm
    table[aten.native_batch_norm_backward.default] = _native_batch_norm_backward
    table[aten.native_layer_norm.default] = _native_layer_norm
    table[aten.native_group_norm.default] = _native_group_norm
    table[aten.cumprod.default] = _cumprod
    table.update(_foreach_decompositions())
    return table


_FOREACH = ("lerp", "add", "sub", "mul", "div", "copy")
"""The ``aten._foreach_*`` ops decomposed into one op per tensor: the ones an averaged model's
update uses (``get_ema_multi_avg_fn``'s ``_foreach_lerp_``, timm's ``_foreach_mul_`` then
``_foreach_add_(alpha=...)``, SWA's ``_foreach_sub``). Each takes tensor lists and numbers,
or lists of either, item by item; ``addcmul`` and ``addcdiv`` are not among them (their
single-tensor forms take the value by keyword only)."""


def _foreach_decompositions() -> dict[Any, Callable[..., Any]]:
    """``aten._foreach_<op>`` (and its in-place form) as ``aten.<op>`` on each tensor of its
    lists: torch-mlir lowers no ``_foreach`` op, and torch decomposes none of them. A list
    argument (of tensors or of numbers) is taken item by item, any other as it is."""
    aten = torch.ops.aten
    table: dict[Any, Callable[..., Any]] = {}
    for name in _FOREACH:
        for inplace in (False, True):
            suffix = "_" if inplace else ""
            packet = getattr(aten, f"_foreach_{name}{suffix}", None)
            single = getattr(aten, f"{name}{suffix}", None)
            if packet is None or single is None:
                continue
            for overload in packet.overloads():
                table[getattr(packet, overload)] = _per_tensor(single, inplace)
    return table


def _per_tensor(single: Any, inplace: bool) -> Callable[..., Any]:
    def item(value: Any, i: int) -> Any:
        return value[i] if isinstance(value, list | tuple) else value

    def decomposed(*args: Any, **kwargs: Any) -> Any:
        results = [
            single(*(item(a, i) for a in args), **{k: item(v, i) for k, v in kwargs.items()})
            for i in range(len(args[0]))
        ]
        return None if inplace else results

    return decomposed


def _upsample_nearest2d_backward(
    grad_output: torch.Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales_h: float | None = None,
    scales_w: float | None = None,
) -> torch.Tensor:
    """``aten.upsample_nearest2d_backward`` (a diffusion UNet's ``Upsample2D``) in ops
    torch-mlir lowers, which it does not: each input pixel's gradient is the sum of the
    gradients of the output pixels that copied it, as two products with 0/1 matrices,
    ``A_h @ grad @ A_w^T``, where ``A[i, o]`` says whether output row ``o`` copied input row
    ``i``. Output index ``o`` copies input ``min(floor(o * scale), in - 1)``, the scale
    ``1 / scales`` when given, else ``in / out``, in ``float32`` as ATen's CPU kernel computes
    it."""

    def copied(n_in: int, n_out: int, scales: float | None) -> torch.Tensor:
        scale = 1.0 / scales if scales else n_in / n_out
        out = torch.arange(n_out, device=grad_output.device, dtype=torch.float32)
        source = torch.floor(out * scale).to(torch.int64).clamp(max=n_in - 1)
        rows = torch.arange(n_in, device=grad_output.device)
        return (rows.unsqueeze(1) == source.unsqueeze(0)).to(grad_output.dtype)

    a_h = copied(int(input_size[2]), int(output_size[0]), scales_h)
    a_w = copied(int(input_size[3]), int(output_size[1]), scales_w)
    return torch.matmul(torch.matmul(a_h, grad_output), a_w.transpose(0, 1))


def _cumprod(x: torch.Tensor, dim: int, dtype: torch.dtype | None = None) -> torch.Tensor:
    """``aten.cumprod`` in ops torch-mlir lowers (it lowers no cumulative product): each
    prefix's product, as the product over the last axis of ``x`` broadcast against a lower
    triangular mask (1 past the prefix): the same factors as ATen's running product,
    multiplied in another order, so a value may round differently by an ulp or so (``n^2``
    values for an axis of ``n``: a noise schedule's thousand steps take a million)."""
    if dtype is not None:
        x = x.to(dtype)
    if x.dim() == 0:
        return x.clone()
    moved = x.movedim(dim, -1)
    n = moved.shape[-1]
    index = torch.arange(n, device=x.device)
    prefix = index.unsqueeze(0) <= index.unsqueeze(1)  # [i, j]: j in the prefix of i
    factors = torch.where(prefix, moved.unsqueeze(-2), torch.ones((), dtype=x.dtype))
    return factors.prod(-1).movedim(-1, dim)


# -- mixed-precision normalization ---------------------------------------------------------------
#
# Under autocast a normalization layer gets a bfloat16 or float16 input and keeps its float32
# parameters and running statistics. ATen's kernels then compute in float32 and return the
# batch statistics they save for the backward pass (mean and inverse standard deviation) in
# float32, but the operators' meta functions, which tracing uses, type those statistics like
# the input: the traced program rounded them to bfloat16 between the forward and the backward
# pass. BatchNorm's input gradient is a difference of nearly equal terms where a channel has
# few values (ResNet-18's last stage at 32x32: two per channel), so that rounding, amplified,
# was the gradient (issue 19). Traced here on the float32 input instead: the same statistics
# in float32, the output rounded to the input's type as the kernel rounds it.

_LOW_PRECISION = (torch.bfloat16, torch.float16)


def _mixed(input: torch.Tensor, *params: torch.Tensor | None) -> bool:
    """Whether ATen normalizes ``input`` in mixed precision: a 16-bit float input with
    float32 parameters (every one given)."""
    given = [p for p in params if p is not None]
    return (
        input.dtype in _LOW_PRECISION
        and bool(given)
        and all(p.dtype == torch.float32 for p in given)
    )


def _native_batch_norm(
    input: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    running_mean: torch.Tensor | None,
    running_var: torch.Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> Any:
    """``aten.native_batch_norm``: in training mode on the CPU, as ATen's CPU kernel computes
    it (:func:`_cpu_batch_norm_training`), on a float32 input or in mixed precision; in mixed
    precision otherwise on the float32 input (the running statistics updated in place as the
    kernel updates them), statistics kept in float32."""
    mixed = _mixed(input, weight, bias, running_mean, running_var)
    if training and input.device.type == "cpu" and input.dim() >= 2:
        given = [t for t in (weight, bias, running_mean, running_var) if t is not None]
        if mixed or (input.dtype == torch.float32 and all(t.dtype == input.dtype for t in given)):
            out, mean, invstd = _cpu_batch_norm_training(
                input.float(), weight, bias, running_mean, running_var, momentum, eps, mixed
            )
            return out.to(input.dtype), mean, invstd
    if not mixed:
        return NotImplemented
    out, mean, invstd = torch.ops.aten.native_batch_norm.default(
        input.float(), weight, bias, running_mean, running_var, training, momentum, eps
    )
    return out.to(input.dtype), mean, invstd


def _cpu_batch_norm_training(
    x: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    running_mean: torch.Tensor | None,
    running_var: torch.Tensor | None,
    momentum: float,
    eps: float,
    mixed: bool,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Training-mode BatchNorm of the float32 ``x`` as ATen's CPU kernels compute it
    (``aten/src/ATen/native/Normalization.cpp`` and ``cpu/batch_norm_kernel.cpp``), with
    ``mixed`` for a 16-bit input upcast to ``x`` (its statistics are summed in float32, a
    float32 input's in float64). Updates the running statistics in place; returns the float32
    output, the batch mean and the inverse standard deviation.

    - ``mean = sum(x) / n``; ``var_sum = sum((x - mean)**2)``, each square in float32;
      ``invstd = 1 / sqrt(var_sum / n + eps)``, the quotient in float32 and the root in
      float64; the running statistics in float32 with the unbiased variance ``var_sum / (n-1)``
      (its product with the momentum in float64 for a float32 input);
    - per channel ``alpha = invstd * weight`` and ``beta = bias - mean * alpha``, then
      ``x * alpha + beta``, the last two fused multiply-adds, here in float64, where the
      product of two float32 values is exact.

    The textbook form ``(x - mean) * invstd * weight + bias``, which torch-mlir lowers, gives
    exactly 0 where a channel's values are equal (a BatchNorm over two values per channel
    whose bfloat16 inputs tie: ResNet-18's last stage at 32x32); the kernel gives the rounding
    error of ``mean * alpha``, and the ReLU after it passed a gradient through one and not the
    other, a false alarm no perturbation of the replay reproduces (issue 19). Sums keep the
    replay's order (the perturbation ensemble covers theirs); the rest matches the kernel bit
    for bit (``python/tests/test_torch_models.py``)."""
    f64 = torch.float64
    dims = [0, *range(2, x.dim())]
    per_channel = [1, -1] + [1] * (x.dim() - 2)
    n = x.numel() // x.shape[1]
    if mixed:
        mean = x.sum(dims) / n
        centered = x - mean.reshape(per_channel)
        var_sum = (centered * centered).sum(dims)
    else:
        mean = (x.to(f64).sum(dims) / n).float()
        centered = x - mean.reshape(per_channel)
        var_sum = (centered * centered).to(f64).sum(dims).float()
    invstd = (1.0 / torch.sqrt((var_sum / n).to(f64) + eps)).float()
    rate = float(np.float32(momentum))
    keep = float(np.float32(1.0) - np.float32(momentum))
    if running_mean is not None:
        running_mean.copy_(rate * mean + keep * running_mean)
    if running_var is not None:
        unbiased = var_sum / (n - 1)
        if mixed:
            running_var.copy_(rate * unbiased + keep * running_var)
        else:
            running_var.copy_((rate * unbiased.to(f64) + (keep * running_var).to(f64)).float())
    alpha = invstd if weight is None else invstd * weight
    beta = -(mean.to(f64) * alpha.to(f64))
    if bias is not None:
        beta = bias.to(f64) + beta
    beta = beta.float()
    out = x.to(f64) * alpha.to(f64).reshape(per_channel) + beta.to(f64).reshape(per_channel)
    return out.float(), mean, invstd


def _native_batch_norm_backward(
    grad_out: torch.Tensor,
    input: torch.Tensor,
    weight: torch.Tensor | None,
    running_mean: torch.Tensor | None,
    running_var: torch.Tensor | None,
    save_mean: torch.Tensor | None,
    save_invstd: torch.Tensor | None,
    train: bool,
    eps: float,
    output_mask: Sequence[bool],
) -> Any:
    """``aten.native_batch_norm_backward`` in mixed precision on the CPU in training mode, as
    the kernel computes it (``batch_norm_cpu_backward_contiguous_internal``), in float32 from
    the 16-bit input and output gradient, rounded once: with ``k = dotp * invstd**2 / n`` and
    ``dotp = sum((x - mean) * dy)``, ``dx = (dy - sum(dy) / n - (x - mean) * k) * invstd * w``;
    ``dweight = dotp * invstd``, ``dbias = sum(dy)``. The input gradient is then the kernel's
    bit for bit where its sums are (single-pixel channels); ``NotImplemented`` (torch-mlir's
    lowering) otherwise."""
    mixed = _mixed(input, weight, running_mean, running_var, save_mean, save_invstd)
    cpu = input.device.type == "cpu" and grad_out.dtype == input.dtype
    if not (mixed and train and cpu) or save_mean is None or save_invstd is None:
        return NotImplemented
    dims = [0, *range(2, input.dim())]
    per_channel = [1, -1] + [1] * (input.dim() - 2)
    n = input.numel() // input.shape[1]
    x, dy = input.float(), grad_out.float()
    centered = x - save_mean.reshape(per_channel)
    total = dy.sum(dims)
    dotp = (centered * dy).sum(dims)
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        k = dotp * save_invstd * save_invstd / n
        inner = dy - (total / n).reshape(per_channel) - centered * k.reshape(per_channel)
        grad_input = inner * save_invstd.reshape(per_channel)
        if weight is not None:
            grad_input = grad_input * weight.reshape(per_channel)
        grad_input = grad_input.to(input.dtype)
    if output_mask[1]:
        grad_weight = dotp * save_invstd
    if output_mask[2]:
        grad_bias = total
    return grad_input, grad_weight, grad_bias


def _native_layer_norm(
    input: torch.Tensor,
    normalized_shape: Sequence[int],
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    eps: float,
) -> Any:
    """``aten.native_layer_norm`` in mixed precision, statistics kept in float32."""
    if not _mixed(input, weight, bias):
        return NotImplemented
    out, mean, rstd = torch.ops.aten.native_layer_norm.default(
        input.float(), normalized_shape, weight, bias, eps
    )
    return out.to(input.dtype), mean, rstd


def _native_group_norm(
    input: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    n: int,
    c: int,
    hxw: int,
    group: int,
    eps: float,
) -> Any:
    """``aten.native_group_norm`` in mixed precision, statistics kept in float32."""
    if not _mixed(input, weight, bias):
        return NotImplemented
    out, mean, rstd = torch.ops.aten.native_group_norm.default(
        input.float(), weight, bias, n, c, hxw, group, eps
    )
    return out.to(input.dtype), mean, rstd


def _convolution_backward(
    grad_output: torch.Tensor,
    input: torch.Tensor,
    weight: torch.Tensor,
    bias_sizes: Sequence[int] | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    output_mask: Sequence[bool],
) -> Any:
    """``aten.convolution_backward`` of a transposed, grouped or dilated convolution in ops
    torch-mlir lowers; ``NotImplemented`` (the op kept, as before) for any other convolution.

    A transposed convolution's backward fails in torch-mlir's lowering ("failed to legalize
    operation 'torch.constant.bool'", ``nn.ConvTranspose2d`` in a diffusion UNet). It is the
    adjoint of a convolution with the same stride, padding, dilation and groups, whose weight
    layout (input channels first) is that convolution's (output channels first), so:

    - the input gradient is that convolution of ``grad_output`` by ``weight``;
    - the weight gradient is the weight gradient of that convolution applied to
      ``grad_output``, whose output gradient is the transposed convolution's input;
    - the bias gradient is ``grad_output`` summed over all but its channels.

    torch-mlir's StableHLO lowering of the weight gradient of a grouped convolution (depthwise
    in MobileNet and EfficientNet) fails ("unresolved target materialization from
    tensor<16x16x3x3xf32> to tensor<16x1x3x3xf32>"), and that of a dilated one too. Here:

    - the input gradient is the transposed convolution of ``grad_output`` by ``weight``, with
      the same groups, the output padding making up the rows the forward stride skipped;
    - the weight gradient is one grouped convolution of the input, batch and channels
      swapped so that each group's batch is its channels, by ``grad_output`` likewise: the
      forward's stride is its dilation, the forward's dilation its stride, and the positions
      past the kernel (left by the stride's remainder) are cropped;
    - the bias gradient is ``grad_output`` summed over all but its channels."""
    aten = torch.ops.aten
    spatial = input.dim() - 2
    if transposed:
        zeros = [0] * spatial
        grad_input = grad_weight = grad_bias = None
        if output_mask[0]:
            grad_input = aten.convolution.default(
                grad_output, weight, None, stride, padding, dilation, False, zeros, groups
            )
        if output_mask[1]:
            grad_weight = aten.convolution_backward.default(
                input,
                grad_output,
                weight,
                None,
                stride,
                padding,
                dilation,
                False,
                zeros,
                groups,
                [False, True, False],
            )[1]
        if output_mask[2]:
            grad_bias = grad_output.sum([0, *range(2, 2 + spatial)])
        return grad_input, grad_weight, grad_bias
    if groups == 1 and all(d == 1 for d in dilation):
        return NotImplemented

    def per_dim(values: Sequence[int]) -> list[int]:
        return list(values) * spatial if len(values) == 1 else list(values)

    stride, padding, dilation = per_dim(stride), per_dim(padding), per_dim(dilation)
    batch, in_sizes, out_sizes = input.shape[0], input.shape[2:], grad_output.shape[2:]
    c_out, per_in, kernel = weight.shape[0], weight.shape[1], weight.shape[2:]
    per_out = c_out // groups
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        skipped = [
            in_sizes[i]
            - ((out_sizes[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1) + 1)
            for i in range(spatial)
        ]
        grad_input = aten.convolution.default(
            grad_output, weight, None, stride, padding, dilation, True, skipped, groups
        )
    if output_mask[1]:
        dims = range(3, 3 + spatial)
        # images[i, (g, n)] = input[n, g * per_in + i]; filters[(g, o), n] = grad_output[n, (g, o)]
        images = input.reshape(batch, groups, per_in, *in_sizes).permute(2, 1, 0, *dims)
        images = images.reshape(per_in, groups * batch, *in_sizes)
        filters = grad_output.reshape(batch, groups, per_out, *out_sizes).permute(1, 2, 0, *dims)
        filters = filters.reshape(c_out, batch, *out_sizes)
        full = aten.convolution.default(
            images, filters, None, dilation, padding, stride, False, [0] * spatial, groups
        )
        for i in range(spatial):
            full = full.narrow(2 + i, 0, kernel[i])
        grad_weight = full.transpose(0, 1)
    if output_mask[2]:
        grad_bias = grad_output.sum([0, *range(2, 2 + spatial)])
    return grad_input, grad_weight, grad_bias


def _avg_pool2d_backward(
    grad_output: torch.Tensor,
    self: torch.Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> torch.Tensor:
    """``aten.avg_pool2d_backward`` in ops torch-mlir lowers (torch has no decomposition of
    it): each output gradient divided by its window's divisor, spread over the window by a
    transposed convolution with a kernel of ones, and the padding cropped.

    The divisor is counted as ATen's CPU kernel counts it: the window's positions inside the
    padded input (``count_include_pad``) or inside the input, found by summing a mask of ones
    over each window (computed by ops, not a constant tensor, which the runtime would not
    read)."""
    from torch.nn import functional

    kh, kw = (kernel_size[0], kernel_size[-1]) if kernel_size else (1, 1)
    sh, sw = (stride[0], stride[-1]) if stride else (kh, kw)
    ph, pw = (padding[0], padding[-1]) if padding else (0, 0)
    height, width = self.shape[-2], self.shape[-1]
    out_h, out_w = grad_output.shape[-2], grad_output.shape[-1]
    # Windows may reach past the padded input (ceil_mode): zeros there.
    beyond_h = max(0, (out_h - 1) * sh + kh - (height + 2 * ph))
    beyond_w = max(0, (out_w - 1) * sw + kw - (width + 2 * pw))
    dtype, device = grad_output.dtype, self.device
    ones = torch.ones(1, 1, kh, kw, dtype=dtype, device=device)
    if divisor_override:
        scaled = grad_output / divisor_override
    else:
        mask = torch.ones(1, 1, height, width, dtype=dtype, device=device)
        mask = functional.pad(mask, (pw, pw, ph, ph), value=1.0 if count_include_pad else 0.0)
        mask = functional.pad(mask, (0, beyond_w, 0, beyond_h))
        counts = functional.conv2d(mask, ones, stride=(sh, sw))[0, 0, :out_h, :out_w]
        scaled = grad_output / counts
    lead = grad_output.shape[:-2]
    spread = functional.conv_transpose2d(scaled.reshape(-1, 1, out_h, out_w), ones, stride=(sh, sw))
    full_h, full_w = spread.shape[-2], spread.shape[-1]
    spread = functional.pad(
        spread, (0, max(0, width + 2 * pw - full_w), 0, max(0, height + 2 * ph - full_h))
    )
    return spread[..., ph : ph + height, pw : pw + width].reshape(*lead, height, width)


def decompositions_of(name: str) -> dict[Any, Callable[..., Any]]:
    """torch's own decompositions of every overload of ``aten.<name>`` (none if it has none)."""
    from torch._decomp import decomposition_table

    packet = getattr(torch.ops.aten, name, None)
    if packet is None:
        return {}
    overloads = [getattr(packet, o) for o in packet.overloads()]
    return {o: decomposition_table[o] for o in overloads if o in decomposition_table}
