"""Convolution and pooling as numba kernels: the functions of `reference`, compiled.

Same functions, same arguments, same results as `reference` and `im2col` (the tests check
all three against each other). Importing this module imports numba; `minigrad.kernels`
does that only when a kernel is first needed, and falls back to `im2col` without numba.

This module only gathers the parts, one idea each:

* `jit_gemm` — convolution: windows packed into a small reused buffer by numba loops
  (`jit_pack`), then one BLAS matrix product per chunk of images, the chunks shared out
  between threads; for the input gradient the product's result is added back onto the
  windows ("col2im").
* `jit_winograd` — 3×3 stride-1 layers with 16 or more channels: Winograd's F(2×2, 3×3),
  16 BLAS products on transformed tiles, 2.25× fewer multiply-adds than packing + BLAS.
* `pointwise` — 1×1 kernels without padding: one BLAS product per image on the NCHW
  planes themselves, nothing packed.
* `jit_pool` — max and average pooling, with unrolled kernels for 2×2 windows.

Why packing + BLAS everywhere: earlier versions also had direct numba loops over whole rows
of the padded planes, for stride-1 layers with many channels. Once the packing copied long
rows instead of single values (`jit_pack.pack_stride1`), packing + BLAS was as fast on the
shape those loops were written for (32×16×28×28, 3×3) and faster on the others they served:
1.6× on a 7×7 "same" layer (one thread, benchmarks/README.md).

`minigrad.kernels` sends float32 here and float64 to `im2col`, so each kernel is compiled
once; called directly, these accept both. `cache=True` stores the machine code on disk (see
`minigrad.kernels.cache`), so only the first run on a machine pays the compilation.
"""

from __future__ import annotations

import numpy as np

from minigrad.kernels import jit_gemm, jit_winograd, pointwise
from minigrad.kernels.jit_pool import (avg_pool2d_backward, avg_pool2d_forward,  # noqa: F401
                                       max_pool2d_backward, max_pool2d_forward)
from minigrad.kernels.reference import Pair


def conv2d_forward(x: np.ndarray, w: np.ndarray, stride: Pair, padding: Pair,
                   bias: np.ndarray | None = None) -> np.ndarray:
    if jit_winograd.applies(x.shape, w.shape, stride, padding):
        return jit_winograd.conv2d_forward(x, w, padding, bias)
    if pointwise.applies(w.shape, padding):
        return pointwise.conv2d_forward(x, w, stride, bias)
    return jit_gemm.gemm_conv2d_forward(x, w, stride, padding, bias)


def conv2d_grad_input(grad_output: np.ndarray, w: np.ndarray, input_shape: tuple,
                      stride: Pair, padding: Pair) -> np.ndarray:
    if jit_winograd.applies(input_shape, w.shape, stride, padding):
        return jit_winograd.conv2d_grad_input(grad_output, w, input_shape, padding)
    if pointwise.applies(w.shape, padding):
        return pointwise.conv2d_grad_input(grad_output, w, input_shape, stride)
    return jit_gemm.gemm_conv2d_grad_input(grad_output, w, input_shape, stride, padding)


def conv2d_grad_weight(x: np.ndarray, grad_output: np.ndarray, weight_shape: tuple,
                       stride: Pair, padding: Pair) -> np.ndarray:
    if jit_winograd.applies(x.shape, weight_shape, stride, padding):
        return jit_winograd.conv2d_grad_weight(x, grad_output, weight_shape, padding)
    if pointwise.applies(weight_shape, padding):
        return pointwise.conv2d_grad_weight(x, grad_output, weight_shape, stride)
    return jit_gemm.gemm_conv2d_grad_weight(x, grad_output, weight_shape, stride, padding)
