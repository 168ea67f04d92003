"""The built course website for tests/site: the site in both languages, built once per session
(``site``), and a Chinese site built apart with test translations (``build_chinese``)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MATHJAX = REPO / ".venv" / "share" / "minigrad-site" / "mathjax" / "tex-svg-full.js"


def _mathjax() -> Path:
    """The site's MathJax, or a skip saying why the site cannot be built here."""
    if os.environ.get("MINIGRAD_SITE") == "0":
        pytest.skip("MINIGRAD_SITE=0: the site is not built")
    for module in ("sphinx", "myst_nb", "sphinx_book_theme"):
        pytest.importorskip(module, reason="the site's tools are not installed (make site)")
    mathjax = Path(os.environ.get("MINIGRAD_MATHJAX", MATHJAX))
    if not mathjax.is_file():
        pytest.skip(f"no MathJax at {mathjax} (make site installs it)")
    return mathjax


@pytest.fixture(scope="session")
def build():  # type: ignore[no-untyped-def]
    """``site/build.py``, the site's builder, as a module (it is a script, not in a package)."""
    spec = importlib.util.spec_from_file_location("site_build", REPO / "site" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def site() -> Path:
    """The built site's folder, English at its root and Chinese in ``zh/`` (built here, or
    rebuilt from the cache in seconds)."""
    mathjax = _mathjax()
    html = REPO / "build" / "site" / "html"
    env = {key: value for key, value in os.environ.items() if key != "MPLBACKEND"}
    built = subprocess.run([sys.executable, str(REPO / "site" / "build.py"), "--to", str(html)],
                           env={**env, "MINIGRAD_MATHJAX": str(mathjax)}, cwd=REPO,
                           capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, f"make site failed:\n{built.stdout}\n{built.stderr[-4000:]}"
    return html


@pytest.fixture(scope="session")
def build_chinese(site, build):  # type: ignore[no-untyped-def]
    """``build_chinese(folder, translations)``: the Chinese site built into ``folder/html/zh``
    (its Sphinx state in ``folder``) with ``translations`` — {catalog name: {English block:
    Chinese}} — added to the catalogs, as a translator's entries would be. Its notebooks come
    from the cache the ``site`` build filled. Returns (Sphinx's exit status, the site's folder)."""
    mathjax = _mathjax()

    def build_with(folder: Path, translations: dict[str, dict[str, str]]) -> tuple[int, Path]:
        from minigrad.i18n import documents
        from minigrad.i18n.catalog import Catalog, Entry

        real = documents.catalog

        def catalog(language: str, name: str) -> Catalog:
            found = Catalog(entries=dict(real(language, name).entries))
            for english, chinese in translations.get(name, {}).items():
                found.entries[english] = Entry(english, chinese)
            return found

        patch = pytest.MonkeyPatch()
        patch.setattr(documents, "catalog", catalog)
        patch.delenv("MPLBACKEND", raising=False)
        try:
            status = build.build_language("zh", folder / "html" / "zh", mathjax=mathjax,
                                         jobs="auto", work=folder)
        finally:
            patch.undo()
        return status, folder / "html" / "zh"

    return build_with
