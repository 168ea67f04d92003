"""Where numba keeps its compiled kernels (`cache=True`), chosen before numba is imported.

numba writes its cache next to the source file (`minigrad/kernels/__pycache__`). When the
package is installed somewhere read-only (a system site-packages, a shared class server, a
container image), that fails; so, unless the user chose with ``NUMBA_CACHE_DIR``, we point
numba at a per-user directory: ``$XDG_CACHE_HOME/minigrad/numba`` (``~/.cache/...``), or a
folder in the temporary directory when even the home directory is read-only.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def user_cache_dir() -> Path:
    """~/.cache/minigrad/numba (or $XDG_CACHE_HOME/...), else <tmp>/minigrad-numba-<user>."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    candidate = Path(base) / "minigrad" / "numba"
    if _writable(candidate):
        return candidate
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"minigrad-numba-{uid}"


def choose_cache_dir(environ: "os._Environ[str] | dict[str, str]" = os.environ) -> str | None:
    """Set NUMBA_CACHE_DIR when the package folder cannot hold the cache; returns the folder
    numba will use (None: numba's own default, next to the sources)."""
    if environ.get("NUMBA_CACHE_DIR"):
        return environ["NUMBA_CACHE_DIR"]
    if _writable(PACKAGE_DIR / "__pycache__"):
        return None
    folder = user_cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    environ["NUMBA_CACHE_DIR"] = str(folder)
    return str(folder)
