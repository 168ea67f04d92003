"""What a Gradescope bundle installs: this minigrad as a wheel, and the pinned libraries grading
needs (:data:`GRADING_DEPENDENCIES`), nothing else (no JupyterLab).

:func:`build_wheel` works from a checkout (``pip wheel`` of a copy of the source tree) and from
a pip install (the installed distribution's own files, listed in its ``RECORD``, zipped back
into a wheel with a fresh ``RECORD``). :func:`lock_file` pins the grading libraries to the
versions installed here, with the sha256 of every file the index holds for them when the
index can be reached (then ``setup.sh`` installs with ``pip --require-hashes``); else pins
alone, and says so.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Callable, Optional

DISTRIBUTION = "minigrad-course"
#: What ``minigrad grade`` imports, in the grader and in graded code (numba: the convolution
#: kernels of lessons 05-08; tqdm: the progress bar of class runs).
GRADING_DEPENDENCIES = ("numpy", "numba", "llvmlite", "tqdm")
INDEX_JSON = "https://pypi.org/pypi/{name}/{version}/json"


def build_wheel(scratch: Path) -> Path:
    """A wheel of this minigrad, in ``scratch``: from its source tree when it runs from one,
    else rebuilt from the installed distribution's files."""
    import minigrad

    tree = Path(minigrad.__file__).resolve().parents[1]
    if (tree / "pyproject.toml").is_file():
        return _wheel_from_tree(tree, scratch)
    return wheel_from_installed(scratch)


def _wheel_from_tree(tree: Path, scratch: Path) -> Path:
    """``pip wheel`` of a copy of the source tree (so that no build folder is left in it);
    offline when setuptools is installed here."""
    copy = scratch / "source"
    shutil.copytree(tree, copy, ignore=shutil.ignore_patterns(
        ".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__",
        ".pytest_cache", ".ipynb_checkpoints"))
    command = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
               str(scratch / "wheels"), str(copy)]
    try:
        import setuptools  # noqa: F401  (then the build needs no network)
        command.insert(5, "--no-build-isolation")
    except ImportError:
        pass
    done = subprocess.run(command, capture_output=True, text=True)
    wheels = sorted((scratch / "wheels").glob("minigrad*.whl"))
    if done.returncode != 0 or len(wheels) != 1:
        raise RuntimeError(f"pip wheel failed: {done.stderr.strip()[-800:]}")
    return wheels[0]


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"sha256={digest.decode()}"


def wheel_from_installed(scratch: Path, project: str = DISTRIBUTION,
                         compression: int = zipfile.ZIP_DEFLATED) -> Path:
    """The installed ``project`` zipped back into its wheel: every file its RECORD lists
    inside site-packages (not the console scripts, which pip writes again, nor compiled
    ``.pyc`` files), each checked against the hash RECORD gives, and a new RECORD."""
    try:
        distribution = metadata.distribution(project)
    except metadata.PackageNotFoundError:
        raise RuntimeError(f"{project} is not installed here") from None
    files = distribution.files or []
    info = next((item for item in files if item.name == "WHEEL"
                 and item.parent.name.endswith(".dist-info")), None)
    if info is None:
        raise RuntimeError(f"{project} was not installed from a wheel (no WHEEL file)")
    tags = [line.split(":", 1)[1].strip() for line in
            (distribution.read_text("WHEEL") or "").splitlines() if line.startswith("Tag:")]
    name = distribution.metadata["Name"].replace("-", "_")
    target = scratch / f"{name}-{distribution.version}-{tags[0] if tags else 'py3-none-any'}.whl"
    dist_info = str(info.parent)
    records = []
    scratch.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", compression) as wheel:
        for item in files:
            path = str(item)
            if "__pycache__" in item.parts or path.endswith(".pyc") \
                    or path in (f"{dist_info}/RECORD", f"{dist_info}/INSTALLER",
                                f"{dist_info}/REQUESTED", f"{dist_info}/direct_url.json"):
                continue
            if path.startswith(".."):  # outside site-packages: a data file, or a script
                path = _data_path(Path(item.locate()), distribution, name)
                if not path:
                    continue
            data = Path(item.locate()).read_bytes()
            if item.hash is not None and _record_hash(data) != f"{item.hash.mode}={item.hash.value}":
                raise RuntimeError(f"{path} differs from what was installed: reinstall "
                                   f"{project}, or give a wheel with --wheel")
            wheel.writestr(path, data)
            records.append(f"{path},{_record_hash(data)},{len(data)}")
        records.append(f"{dist_info}/RECORD,,")
        wheel.writestr(f"{dist_info}/RECORD", "\n".join(records) + "\n")
    return target


def _data_path(installed: Path, distribution: metadata.Distribution, name: str) -> str:
    """Where a file installed outside site-packages goes in the wheel: under the
    ``.data/data/`` folder when it lies in the environment's prefix (pip installs it there
    again), "" for a console script (pip writes those from entry_points.txt) or elsewhere."""
    site = Path(distribution.locate_file("")).resolve()
    prefix = site.parents[2] if site.parent.name.startswith("python") else site.parent
    installed = installed.resolve()
    if not installed.is_relative_to(prefix) or installed.parent == prefix / "bin":
        return ""
    return f"{name}-{distribution.version}.data/data/{installed.relative_to(prefix).as_posix()}"


def _index_hashes(name: str, version: str) -> list[str]:
    """The sha256 of every file the package index holds for ``name==version``."""
    with urllib.request.urlopen(INDEX_JSON.format(name=name, version=version),
                                timeout=20) as answer:
        release = json.load(answer)
    return sorted({item["digests"]["sha256"] for item in release.get("urls", [])})


def lock_file(hashes: Optional[Callable[[str, str], list[str]]] = _index_hashes
              ) -> tuple[str, bool]:
    """(``requirements.lock`` text, whether every line has hashes): the grading libraries
    pinned to the versions installed here."""
    lines = ["# The libraries `minigrad grade` needs, pinned to the versions the instructor's",
             "# minigrad ran with (written by `minigrad gradescope`)."]
    pins: list[tuple[str, str, list[str]]] = []
    for name in GRADING_DEPENDENCIES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            raise RuntimeError(f"{name} is not installed here: minigrad grade needs it") from None
        found: list[str] = []
        if hashes is not None:
            try:
                found = hashes(name, version)
            except (OSError, ValueError, KeyError):
                found = []
        pins.append((name, version, found))
    # pip checks hashes for all or none: a lock with some missing would not install.
    complete = all(found for _, _, found in pins)
    for name, version, found in pins:
        lines.append(f"{name}=={version}" + "".join(f" \\\n    --hash=sha256:{digest}"
                                                    for digest in (found if complete else [])))
    return "\n".join(lines) + "\n", complete
