"""`minigrad graph`: figures from a script or an expression, and a clear message for bad input."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from minigrad import cli

LESSON01 = """\
from minigrad import Value
a, b, c = Value(2.0, "a"), Value(3.0, "b"), Value(1.0, "c")
u = a * b
v = u + c
L = v**2 + u
count = 3
"""

MLP = """\
import minigrad as mg
mg.manual_seed(0)
x = mg.randn(4, 3)
W1 = mg.randn(5, 3, requires_grad=True)
b1 = mg.zeros(5, requires_grad=True)
W2 = mg.randn(1, 5, requires_grad=True)
hidden = (x @ W1.T + b1).relu()
loss = (hidden @ W2.T).mean()
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["graph", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def scripts(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lesson01.py").write_text(LESSON01)
    (tmp_path / "mlp.py").write_text(MLP)
    (tmp_path / "broken.py").write_text(
        "import minigrad as mg\nx = mg.ones(2)\ny = x @ mg.ones(3)\n")
    return tmp_path


def test_a_script_variable_becomes_an_svg_with_its_gradients(scripts, capsys):
    code, out, err = run(capsys, "lesson01.py", "--root", "L", "--backward", "--out", "l.svg")
    assert code == 0 and "wrote l.svg" in out and err == ""
    svg = (scripts / "l.svg").read_text()
    ElementTree.fromstring(svg)
    for text in ("grad 45", "grad 30", "grad 14", "grad 15", "data 55"):
        assert text in svg


def test_the_trace_prints_lesson01_line_by_line(scripts, capsys):
    code, out, _ = run(capsys, "lesson01.py", "--root", "L", "--trace")
    assert code == 0
    assert "u.grad = 1 + 14 = 15" in out and "3 × 15 = 45" in out and "2 × 15 = 30" in out
    assert not list(scripts.glob("*.svg"))  # --trace alone writes no file


@pytest.mark.parametrize("out_name, magic", [("mlp.png", b"\x89PNG"), ("mlp.dot", b"digraph"),
                                             ("mlp.html", b"<!DOCTYPE html>"),
                                             ("mlp.gif", b"GIF8")])
def test_every_format_of_a_tensor_graph(scripts, capsys, out_name, magic):
    code, _, err = run(capsys, "mlp.py", "--root", "loss", "--kind", "backward", "--out",
                       out_name, "--theme", "dark", "--font-size", "16", "--rankdir", "TB",
                       "--dpi", "60")
    assert code == 0, err
    assert (scripts / out_name).read_bytes().startswith(magic)


def test_a_tensor_forward_graph_from_a_script(scripts, capsys):
    code, _, err = run(capsys, "mlp.py", "--root", "loss", "--out", "forward.dot")
    assert code == 0, err
    source = (scripts / "forward.dot").read_text()
    assert "W1 (5, 3)" in source and "hidden (4, 5)" in source and "relu" in source


def test_script_names_label_the_tensors(scripts, capsys):
    run(capsys, "mlp.py", "--root", "loss", "--kind", "backward", "--out", "g.dot")
    source = (scripts / "g.dot").read_text()
    assert "W1 (5, 3)" in source and "b1 (5,)" in source


def test_a_script_model_s_parameters_are_named_after_it(scripts, capsys):
    (scripts / "model.py").write_text(
        "import minigrad as mg\nimport minigrad.nn as nn\nmg.manual_seed(0)\n"
        "model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))\n"
        "head = model[2].bias\nloss = model(mg.randn(2, 3)).sum()\n")
    code, _, err = run(capsys, "model.py", "--root", "loss", "--kind", "backward", "--out", "m.dot")
    assert code == 0, err
    source = (scripts / "m.dot").read_text()
    assert "model.0.weight (4, 3)" in source and "model.2.weight (1, 4)" in source
    assert "head (1,)" in source  # a variable of its own wins over the dotted name


def test_an_expression_with_value_and_mg_in_scope(scripts, capsys):
    code, _, err = run(capsys, "-e", "(Value(2.0, 'a') * Value(3.0, 'b')).tanh()",
                       "--out", "e.svg", "--backward")
    assert code == 0, err
    assert "grad 1" in (scripts / "e.svg").read_text()
    code, _, err = run(capsys, "-e", "(mg.ones(2, requires_grad=True) * 3).sum()", "--trace")
    assert code == 0, err


@pytest.mark.parametrize("argv, message", [
    (["lesson01.py", "--root", "Lx"], "no variable named 'Lx' in lesson01.py. Did you mean 'L'?"),
    (["lesson01.py", "--root", "count"], "'count' in lesson01.py is an int, not a minigrad Value"),
    (["broken.py", "--root", "y"], "line 3: y = x @ mg.ones(3)"),
    (["lesson01.py", "--root", "L", "--out", "slides.pdf"], "unknown output format '.pdf'"),
    (["lesson01.py"], "Add --root NAME"),
    (["missing.py", "--root", "L"], "no such script: missing.py"),
    (["-e", "1 + 1"], "minigrad graph: the expression is an int, not a minigrad Value or Tensor; "
                      "-e must compute one"),
    (["-e", "("], "-e has a syntax error, column 1: '(' was never closed"),
    (["-e", "x = Value(1.0) +"], "-e has a syntax error"),
    (["-e", "1 / 0"], "ZeroDivisionError"),
])
def test_bad_input_gets_one_clear_message(scripts, capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert err.startswith("minigrad graph: ") and message in err
    assert "Traceback (most recent call last)" not in err


@pytest.mark.parametrize("out, message", [
    ("notes.txt/g.svg", "cannot write notes.txt/g.svg: notes.txt is a file, not a folder"),
    ("notes.txt/g.html", "cannot write notes.txt/g.html: notes.txt is a file, not a folder"),
    pytest.param("/sys/g.svg", "cannot write /sys/g.svg: Permission denied",
                 marks=pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="Linux only")),
    pytest.param("/proc/x/g.svg", "cannot write /proc/x/g.svg: No such file or directory",
                 marks=pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="Linux only")),
])
def test_an_output_that_cannot_be_written_is_one_line(scripts, capsys, out, message):
    (scripts / "notes.txt").write_text("not a folder")
    code, stdout, err = run(capsys, "lesson01.py", "--root", "L", "--backward", "--out", out)
    assert code == 1 and stdout == ""
    assert err.startswith("minigrad graph: " + message)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_script_in_latin_1_is_read_with_its_coding_line(scripts, capsys):
    (scripts / "latin.py").write_bytes(
        "# -*- coding: latin-1 -*-\nfrom minigrad import Value\n"
        "côté = Value(2.0)\nL = côté * côté  # carré\n".encode("latin-1"))
    code, _, err = run(capsys, "latin.py", "--root", "L", "--out", "latin.dot")
    assert code == 0, err
    assert "côté" in (scripts / "latin.dot").read_text(encoding="utf-8")


def test_a_script_that_is_not_in_its_encoding_is_one_line(scripts, capsys):
    (scripts / "bad.py").write_bytes(b"x = 1  # \xff\xfe not utf-8\n")
    code, _, err = run(capsys, "bad.py", "--root", "x")
    assert code == 1 and err.startswith("minigrad graph: cannot read bad.py as Python source")
    assert "Traceback" not in err


def test_a_big_graph_warns_and_suggests_collapse(scripts, capsys):
    (scripts / "deep.py").write_text(
        "import minigrad as mg\nx = mg.ones(3, requires_grad=True)\ny = x\n"
        "for _ in range(40):\n    y = (y * 1.01).tanh()\nloss = y.sum()\n")
    code, _, err = run(capsys, "deep.py", "--root", "loss", "--kind", "backward", "--out", "d.dot")
    assert code == 0
    assert "warning: this drawing has" in err and "--collapse" in err
