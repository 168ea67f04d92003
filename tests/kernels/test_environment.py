"""How the kernels behave in their environment: without numba, with MINIGRAD_DISABLE_JIT=1,
in a read-only install, and with the thread-pool defaults (each in a fresh process)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import minigrad
from minigrad.kernels import cache
from minigrad import _threads

PACKAGE_DIR = Path(minigrad.__file__).resolve().parent


def _run(code: str, env: dict[str, str] | None = None, cwd: Path | None = None,
         pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("MINIGRAD_DISABLE_JIT", "NUMBA_CACHE_DIR")}
    if pythonpath is not None:
        environment["PYTHONPATH"] = str(pythonpath)
    environment.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environment, cwd=cwd, timeout=300)


CONV_AND_POOL = """
import numpy as np, minigrad as mg
from minigrad import kernels
x = np.arange(2 * 3 * 5 * 5, dtype=np.float32).reshape(2, 3, 5, 5)
w = np.ones((4, 3, 3, 3), dtype=np.float32)
y = kernels.conv2d_forward(x, w, (1, 1), (1, 1))
expected = kernels.reference.conv2d_forward(x, w, (1, 1), (1, 1))
assert np.allclose(y, expected), "conv differs"
values, indices = kernels.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0))
assert values[0, 0, 0, 0] == 6.0 and indices[0, 0, 0, 0] == 6
print(kernels.backend_name())
"""


def test_disable_jit_uses_im2col_without_importing_numba() -> None:
    result = _run(CONV_AND_POOL + "import sys; assert 'numba' not in sys.modules\n",
                  env={"MINIGRAD_DISABLE_JIT": "1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "im2col"
    assert "warn" not in result.stderr.lower()


def test_without_numba_the_package_imports_and_warns_once(tmp_path: Path) -> None:
    # A `numba` package that fails to import stands in for a machine without numba.
    fake = tmp_path / "numba"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('No module named numba (test)')\n")
    code = CONV_AND_POOL + "kernels.avg_pool2d_forward(x, (2, 2), (2, 2), (0, 0))\n"
    result = _run(code, pythonpath=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "im2col"
    warnings = [line for line in result.stderr.splitlines() if "RuntimeWarning" in line]
    assert len(warnings) == 1 and "numba unavailable" in warnings[0]


def test_import_minigrad_does_not_import_numba() -> None:
    result = _run("import sys, minigrad; print('numba' in sys.modules)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_thread_defaults_are_set_but_never_override_the_user() -> None:
    code = ("import os, minigrad; print(os.environ.get('OMP_WAIT_POLICY', 'unset'), "
            "os.environ['OPENBLAS_THREAD_TIMEOUT'], os.environ['NUMBA_THREADING_LAYER'])")
    environment_without = {k: v for k, v in os.environ.items()
                           if k not in (*_threads.DEFAULTS, "OMP_WAIT_POLICY")}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=environment_without, timeout=120)
    # OpenMP's wait policy is PyTorch's business: importing minigrad leaves it unset
    assert result.stdout.split() == ["unset", "20", "workqueue"], result.stderr
    result = _run(code, env={"OMP_WAIT_POLICY": "ACTIVE", "NUMBA_THREADING_LAYER": "omp",
                             "OPENBLAS_THREAD_TIMEOUT": "4"})
    assert result.stdout.split() == ["ACTIVE", "4", "omp"], result.stderr


def test_wide_vectors_on_avx512_cpus_only_and_never_over_the_user() -> None:
    """On AVX-512 CPUs the kernels are compiled for 512-bit vectors (LLVM's default tuning
    asks for 256); a user's NUMBA_CPU_FEATURES wins."""
    import llvmlite.binding as llvm

    host = llvm.get_host_cpu_features()
    code = ("from minigrad.kernels import compiler; import numba; "
            "print(compiler.WIDE_VECTORS, str(numba.config.CPU_FEATURES).endswith("
            "',-prefer-256-bit'))")
    environment = {k: v for k, v in os.environ.items() if k != "NUMBA_CPU_FEATURES"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=environment, timeout=120)
    wide = str(bool(host.get("avx512f")))
    assert result.stdout.split() == [wide, wide], result.stderr
    result = _run(code, env={"NUMBA_CPU_FEATURES": host.flatten()})
    assert result.stdout.split() == ["False", "False"], result.stderr
    # numba already compiled something: its compiler keeps the features it started with
    early = ("import numba; numba.njit(lambda: 1)(); " + code)
    result = subprocess.run([sys.executable, "-c", early], capture_output=True, text=True,
                            env=environment, timeout=120)
    assert result.stdout.split() == ["False", "False"], result.stderr


def test_apply_defaults_only_fills_gaps() -> None:
    environ = {"OPENBLAS_THREAD_TIMEOUT": "4"}
    assert _threads.apply_defaults(environ) == {
        "OPENBLAS_THREAD_TIMEOUT": "4", "NUMBA_THREADING_LAYER": "workqueue"}


def test_numba_cache_goes_to_the_user_cache_when_the_package_is_read_only(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    site = tmp_path / "site"
    shutil.copytree(PACKAGE_DIR, site / "minigrad",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    # Read-only, as a system install would be. (Root writes into read-only folders anyway,
    # so a *file* named __pycache__ also blocks the folder numba would write to.)
    (site / "minigrad" / "kernels" / "__pycache__").write_text("")
    for folder, _, _ in os.walk(site):
        os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR)
    home = tmp_path / "home"
    home.mkdir()
    try:
        code = ("import numpy as np; from minigrad.kernels import jit_pool, cache\n"
                "print(cache.choose_cache_dir())\n"
                "x = np.ones((1, 1, 4, 4))\n"
                "jit_pool.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0))\n")
        result = _run(code, env={"HOME": str(home), "XDG_CACHE_HOME": "",
                                 "PYTHONDONTWRITEBYTECODE": "1", "PYTHONWARNINGS": "default"},
                      cwd=tmp_path, pythonpath=site)
        assert result.returncode == 0, result.stderr
        assert "Warning" not in result.stderr, result.stderr  # falls back silently
        cache_dir = home / ".cache" / "minigrad" / "numba"
        assert result.stdout.strip() == str(cache_dir)
        assert any(p.suffix == ".nbi" for p in cache_dir.rglob("*")), "no cache index written"
        assert not any(p.suffix == ".nbi" for p in site.rglob("*"))
    finally:
        for folder, _, _ in os.walk(site):
            os.chmod(folder, stat.S_IRWXU)


def test_cache_dir_choice_respects_the_user_and_falls_back(tmp_path: Path, monkeypatch) -> None:
    blocked = tmp_path / "a_file"
    blocked.write_text("")
    monkeypatch.setattr(cache, "PACKAGE_DIR", blocked / "kernels")  # cannot hold __pycache__
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    environ = {"NUMBA_CACHE_DIR": "/chosen/by/user"}
    assert cache.choose_cache_dir(environ) == "/chosen/by/user"
    environ = {}
    assert cache.choose_cache_dir(environ) == str(tmp_path / "xdg" / "minigrad" / "numba")
    assert environ["NUMBA_CACHE_DIR"] == str(tmp_path / "xdg" / "minigrad" / "numba")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))  # even the user cache is unusable
    assert "minigrad-numba-" in str(cache.user_cache_dir())
