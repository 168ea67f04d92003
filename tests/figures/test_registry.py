"""`minigrad figures` writes real figure files, and the registry is easy to extend."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from minigrad import cli, figures  # noqa: E402
from minigrad.figures import registry  # noqa: E402
from minigrad.figures.lesson01 import lesson01_graph  # noqa: E402

LESSON_01_02 = {"epsilon_error.png", "lesson01_graph.svg", "lesson02_backward_order.svg",
                "moons_boundary.png"}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def assert_real_png(path: Path) -> None:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path.name} is not a PNG"
    width = int.from_bytes(data[16:20], "big")
    height = int.from_bytes(data[20:24], "big")
    assert 200 <= width <= 2000 and 150 <= height <= 2000, (width, height)
    assert len(data) < 300_000, f"{path.name} is {len(data)} bytes; keep the repository small"


def assert_real_svg(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    assert "<svg" in text and text.rstrip().endswith("</svg>")
    return text


def test_the_lesson_01_and_02_figures_are_registered() -> None:
    figures.find_figures()  # imports every lesson's module, which registers its figures
    assert LESSON_01_02 <= set(figures.FIGURES)
    for name, fig in figures.FIGURES.items():
        assert fig.filename == name and Path(name).suffix in (".png", ".svg")


def test_every_figure_is_written_and_real(tmp_path: Path) -> None:
    written = figures.make_figures(tmp_path / "assets")
    assert {path.name for path in written} == set(figures.FIGURES)
    for path in written:
        assert path.parent == tmp_path / "assets" and path.stat().st_size > 0
        if path.suffix == ".png":
            assert_real_png(path)
        else:
            assert_real_svg(path)


def test_the_lesson_01_graph_shows_the_hand_computed_numbers(tmp_path: Path) -> None:
    (path,) = figures.make_figures(tmp_path, only=["lesson01_graph"])
    text = assert_real_svg(path)
    for number in ("55", "45", "30", "14", "15"):  # L; ∂L/∂a, ∂L/∂b, ∂L/∂c = ∂L/∂v; ∂L/∂u
        assert number in text


def test_the_worked_graph_helper_has_the_lesson_01_gradients() -> None:
    loss = lesson01_graph()
    assert loss.data == 55.0
    leaves = {node.label: node.grad for node in _leaves(loss)}
    assert leaves == {"a": 45.0, "b": 30.0, "c": 14.0}


def _leaves(root):
    from minigrad.scalar.value import topological_order

    return [node for node in topological_order(root) if not node.parents]


def test_only_accepts_the_stem_or_the_file_name(tmp_path: Path) -> None:
    written = figures.make_figures(tmp_path, only=["epsilon_error", "epsilon_error.png"])
    assert [path.name for path in written] == ["epsilon_error.png"]
    assert_real_png(written[0])


def test_an_unknown_figure_is_refused_with_the_list_of_names(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no figure named 'nope'.*epsilon_error"):
        figures.make_figures(tmp_path, only=["nope"])
    assert not any(tmp_path.iterdir())


def test_the_command_line_writes_into_the_folder(tmp_path: Path, capsys) -> None:
    target = tmp_path / "out"
    status = cli.main(["figures", "--to", str(target), "--only", "lesson02_backward_order"])
    assert status == 0
    text = assert_real_svg(target / "lesson02_backward_order.svg")
    assert "45" in text
    assert "lesson02_backward_order.svg" in capsys.readouterr().out


def test_the_command_line_reports_an_unknown_name(tmp_path: Path, capsys) -> None:
    assert cli.main(["figures", "--to", str(tmp_path), "--only", "nope"]) == 2
    assert "no figure named 'nope'" in capsys.readouterr().err


def test_the_command_line_lists_the_figures(capsys) -> None:
    assert cli.main(["figures", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in LESSON_01_02)


def test_a_new_figure_is_one_decorated_function(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(registry, "FIGURES", {})

    @figures.figure("extra.svg", lesson=3, description="a test figure")
    def _extra(path: Path) -> None:
        path.write_text("<svg></svg>")

    assert [path.name for path in figures.make_figures(tmp_path)] == ["extra.svg"]
    with pytest.raises(ValueError, match="registered twice"):
        figures.figure("extra.svg", lesson=3, description="again")(_extra)
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        figures.figure("extra.jpg", lesson=3, description="wrong format")


def test_a_figure_that_writes_nothing_is_an_error(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(registry, "FIGURES", {})
    figures.figure("empty.png", lesson=1, description="writes nothing")(lambda path: None)
    with pytest.raises(RuntimeError, match="did not write"):
        figures.make_figures(tmp_path)


ASSETS = Path(__file__).resolve().parents[2] / "assets"


def test_assets_hold_exactly_the_registered_figures() -> None:
    assert {path.name for path in ASSETS.iterdir() if path.suffix in (".png", ".svg")} \
        == {fig.filename for fig in figures.find_figures()}, (
            "run `make assets` after adding or removing a figure")


@pytest.fixture(scope="module")
def drawn_as_make_assets(tmp_path_factory) -> dict[str, Path]:  # type: ignore[no-untyped-def]
    """Every figure drawn once, as `make assets` draws them (graphs laid out by
    graphviz-pure even where a system dot is installed, which lays out differently):
    file name -> the file."""
    import sys

    from minigrad.viz.render import find_renderer

    pure = Path(sys.executable).parent / "graphviz-pure"
    with pytest.MonkeyPatch.context() as patch:
        if pure.exists():
            patch.setenv("MINIGRAD_DOT", str(pure))
        if find_renderer().name != "graphviz-pure":
            pytest.skip("assets are rendered with graphviz-pure, which is not installed here")
        written = figures.make_figures(tmp_path_factory.mktemp("assets"))
    return {path.name: path for path in written}


def test_committed_graph_figures_are_up_to_date(drawn_as_make_assets) -> None:  # type: ignore[no-untyped-def]
    """The SVG graphs are deterministic for one renderer: a stale asset means `make assets`."""
    graphs = sorted(name for name in drawn_as_make_assets if name.endswith(".svg"))
    assert graphs
    for name in graphs:
        assert drawn_as_make_assets[name].read_bytes() == (ASSETS / name).read_bytes(), (
            f"assets/{name} is stale: run `make assets`")


def test_every_text_of_the_svg_figures_fits_inside_its_picture() -> None:
    """A legend or label wider than the picture loses its end in viewers that clip to the
    viewBox (lesson04_leaves' legend lost the ')' of "(grad_fn)")."""
    import re

    checked = 0
    for path in sorted(ASSETS.glob("*.svg")):
        svg = path.read_text(encoding="utf-8")
        width = float(re.search(r'viewBox="[\d.]+ [\d.]+ ([\d.]+) [\d.]+"', svg).group(1))
        translate = re.search(r'translate\(([\d.]+) ', svg)
        offset = float(translate.group(1)) if translate else 0.0
        for anchor, x, length, text in re.findall(
                r'<text[^>]*text-anchor="(\w+)"[^>]*\bx="([-\d.]+)"[^>]*textLength="([\d.]+)"'
                r'[^>]*>([^<]*)<', svg):
            start = float(x) - {"start": 0.0, "middle": 0.5, "end": 1.0}[anchor] * float(length)
            assert -0.5 <= offset + start and offset + start + float(length) <= width + 0.5, (
                path.name, text)
            checked += 1
    assert checked > 100


def test_committed_png_figures_are_what_the_code_draws(drawn_as_make_assets) -> None:  # type: ignore[no-untyped-def]
    """Every PNG a lesson shows is drawn again here and compared pixel by pixel with the
    committed one: a figure whose code or numbers changed since `make assets` differs in
    0.07–0.2 % of its pixels (three did); anti-aliasing noise stays under 0.02 %."""
    import matplotlib.image as image

    pngs = sorted(name for name in drawn_as_make_assets if name.endswith(".png"))
    assert len(pngs) > 10
    stale = []
    for name in pngs:
        drawn, committed = image.imread(drawn_as_make_assets[name]), image.imread(ASSETS / name)
        if drawn.shape != committed.shape:
            stale.append(f"{name} ({committed.shape[:2]} → {drawn.shape[:2]})")
            continue
        differing = float((np.abs(drawn - committed).max(axis=-1) > 0.1).mean())
        if differing > 2e-4:
            stale.append(f"{name} ({differing:.2%} of its pixels)")
    assert not stale, f"stale: {', '.join(stale)}: run `make assets`"
