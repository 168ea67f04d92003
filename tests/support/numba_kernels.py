"""The float32 rows of `minigrad.kernels`' dispatch table, callable in any dtype.

`minigrad.kernels` sends float64 to `im2col`; the kernel tests also run the numba algorithms
in float64 (tighter tolerances), so these functions take the algorithm the table gives
*float32* for the shape and call it with the arrays as they are.
"""

from __future__ import annotations

import numpy as np

from minigrad import kernels

FLOAT32 = np.dtype(np.float32)


def conv2d_forward(x, w, stride, padding, bias=None):
    algorithm = kernels.conv_algorithm(FLOAT32, x.shape, w.shape, stride, padding)
    return algorithm.conv2d_forward(x, w, stride, padding, bias)


def conv2d_grad_input(grad_output, w, input_shape, stride, padding):
    algorithm = kernels.conv_algorithm(FLOAT32, tuple(input_shape), w.shape, stride, padding)
    return algorithm.conv2d_grad_input(grad_output, w, tuple(input_shape), stride, padding)


def conv2d_grad_weight(x, grad_output, weight_shape, stride, padding):
    algorithm = kernels.conv_algorithm(FLOAT32, x.shape, tuple(weight_shape), stride, padding)
    return algorithm.conv2d_grad_weight(x, grad_output, tuple(weight_shape), stride, padding)


def max_pool2d_forward(x, kernel, stride, padding):
    return kernels.pool_algorithm(FLOAT32).max_pool2d_forward(x, kernel, stride, padding)


def max_pool2d_backward(grad_output, indices, input_shape):
    return kernels.pool_algorithm(FLOAT32).max_pool2d_backward(grad_output, indices,
                                                               tuple(input_shape))


def avg_pool2d_forward(x, kernel, stride, padding):
    return kernels.pool_algorithm(FLOAT32).avg_pool2d_forward(x, kernel, stride, padding)


def avg_pool2d_backward(grad_output, input_shape, kernel, stride, padding):
    return kernels.pool_algorithm(FLOAT32).avg_pool2d_backward(grad_output, tuple(input_shape),
                                                               kernel, stride, padding)
