"""How close a kernel's result must be to the reference loops', by dtype: float32 sums keep
about 7 digits; float64 ones differ from the loops' order of addition in the last few bits."""

from __future__ import annotations

import numpy as np


def kernel_tolerance(dtype: type) -> dict:
    """`np.testing.assert_allclose` keywords for a result in ``dtype``."""
    if np.dtype(dtype) == np.float32:
        return {"rtol": 1e-4, "atol": 1e-4}
    return {"rtol": 1e-11, "atol": 1e-11}
