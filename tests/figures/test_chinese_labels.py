"""Figures with Chinese labels: every figure text has a translation in minigrad/i18n/zh/figures.po
(a changed English label fails until it is translated again), the bundled subset of Noto Sans
CJK SC draws every character the Chinese catalogs use, matplotlib draws the Chinese figures with
no missing glyph, and assets/zh/ holds exactly the figures whose labels carry words."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

from minigrad import i18n
from minigrad.figures import find_figures, make_figures
from minigrad.figures.words import figure_texts, words
from minigrad.i18n import fonts
from minigrad.i18n.catalog import Catalog
from minigrad.i18n.documents import catalog_path
from support.catalogs import assert_in_step

ROOT = Path(__file__).resolve().parents[2]
FAST = ["lesson01_tangent", "lesson02_gates", "lesson03_modes", "lesson04_view_version",
        "lesson05_linear_shapes", "lesson06_stride_dilation", "lesson07_avg_pool_spread"]


@pytest.fixture
def english():
    i18n.use("en")
    yield
    i18n.use(None)


def test_every_figure_text_has_a_chinese_translation() -> None:
    texts = figure_texts()
    assert len(texts) > 50
    assert_in_step("figures", texts, "python -m minigrad.i18n.update")


def test_a_changed_label_is_found_untranslated(tmp_path: Path) -> None:
    catalog = Catalog.read(catalog_path("zh", "figures"))
    assert catalog.translate("absolute error") == "绝对误差"
    assert catalog.translate("absolute errors") == "absolute errors"  # English comes back


def test_words_fill_in_numbers_in_either_language(english) -> None:
    assert words("version {number}", number=3) == "version 3"
    i18n.use("zh")
    assert words("version {number}", number=3) == "版本 3"
    assert words("a label no catalog has") == "a label no catalog has"


def test_the_font_draws_every_character_the_chinese_catalogs_use() -> None:
    used = fonts.catalog_characters()
    assert "梯" in used  # the figures' catalog at least
    assert fonts.uncovered(used) == [], (
        "characters no bundled font draws; run python -m minigrad.i18n.fonts")
    drawn = fonts.subset_characters()
    assert {ord(char) for char in "，。：（）梯度"} <= drawn


def test_the_font_is_a_small_subset_with_its_licence() -> None:
    assert fonts.FONT.is_file() and fonts.FONT.stat().st_size < 400_000
    licence = fonts.LICENCE.read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence and "Adobe" in licence
    from fontTools.ttLib import TTFont

    with TTFont(str(fonts.FONT), lazy=True) as font:
        assert font["name"].getDebugName(1) == fonts.FAMILY


def test_the_script_makes_the_same_subset(tmp_path: Path) -> None:
    try:
        source, number = fonts.find_source()
    except FileNotFoundError:
        pytest.skip("no full Noto Sans CJK SC here (apt-get install fonts-noto-cjk)")
    out = fonts.make_subset(source, number, fonts.wanted_characters(), tmp_path / "font.otf")
    assert fonts._cmap(str(out)) == fonts.subset_characters()


def test_chinese_figures_draw_with_no_missing_glyph(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*missing from font.*")
        written = make_figures(tmp_path, FAST, language="zh")
    assert [path.name for path in written] == [f"{name}.png" for name in FAST]
    from minigrad.i18n import language

    assert language._chosen is None  # the language is the environment's again


def test_an_english_figure_stays_english_and_a_chinese_one_is_chinese(english) -> None:
    import matplotlib.pyplot as plt

    from minigrad.figures.plots import plot_loss_curve
    from minigrad.figures.registry import _language

    ax = plot_loss_curve([3.0, 2.0, 1.0])
    assert (ax.get_title(), ax.get_xlabel()) == ("Training loss", "step")
    plt.close(ax.figure)
    with _language("zh"), warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*missing from font.*")
        ax = plot_loss_curve([3.0, 2.0, 1.0])
        assert (ax.get_title(), ax.get_xlabel()) == ("训练损失", "步")
        ax.figure.canvas.draw()
        plt.close(ax.figure)
    assert i18n.current() == "en"


def test_assets_zh_holds_the_figures_whose_labels_carry_words() -> None:
    worded = {fig.filename for fig in find_figures() if fig.words}
    assert len(worded) >= 20
    assert {path.name for path in (ROOT / "assets" / "zh").iterdir()} == worded
    assert all(name.endswith(".png") for name in worded)


def test_the_figures_command_draws_chinese_into_assets_zh_by_default(tmp_path, monkeypatch,
                                                                     capsys) -> None:
    from minigrad.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["figures", "--lang", "zh", "--only", "lesson03_modes",
                 "--only", "lesson01_graph"]) == 0
    assert sorted(path.name for path in (tmp_path / "assets" / "zh").iterdir()) == \
        ["lesson03_modes.png"]  # a graph without words is shared, not drawn again


def test_bold_chinese_labels_have_a_bold_face(tmp_path: Path) -> None:
    """Lesson 04's and 07's figures draw bold labels: with the regular face alone matplotlib
    logged "findfont: Failed to find font weight bold" (on the Chinese site, as a warning in
    the page, which fails its build). A fresh interpreter, so matplotlib's font cache is new."""
    import subprocess
    import sys

    code = ("from pathlib import Path; from minigrad.figures import make_figures; "
            f"make_figures(Path({str(tmp_path)!r}), ['lesson04_view_version', "
            "'lesson07_max_pool_routing'], language='zh')")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "MPLBACKEND": "Agg"})
    assert run.returncode == 0, run.stderr[-2000:]
    assert "findfont" not in run.stderr, run.stderr[-2000:]
    from fontTools.ttLib import TTFont

    with TTFont(str(fonts.BOLD), lazy=True) as font:
        assert font["name"].getDebugName(1) == fonts.FAMILY
        assert font["OS/2"].usWeightClass == 700
