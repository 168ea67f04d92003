"""`minigrad slides`: one self-contained reveal.js deck per lesson, built from the registry's
figures, the syllabus' numbers, the lesson's code, its backward pass as steps (fragments) and
the reading (notes, summary), with no raw LaTeX and nothing fetched from the network. (In a
browser: tests/course/test_slides_browser.py.)"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from minigrad.cli import main
from minigrad.course.catalog import LESSONS
from minigrad.course.reading import plain_math, reading_text, section_notes
from minigrad.course.slide_content import (SLIDES, Arithmetic, Code, Drawing, Numbers, Picture,
                                           Steps)
from minigrad.course.slides import deck_html
from minigrad.figures import FIGURES, find_figures


@pytest.fixture(scope="module")
def decks() -> dict[int, str]:
    return {lesson.number: deck_html(lesson) for lesson in LESSONS}


def _markup(page: str) -> str:
    """The deck without the inlined reveal.js (whose code builds links at run time)."""
    return re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)


def _visible_text(page: str) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)
    return re.sub(r"<[^>]+>", " ", page)


def test_every_lesson_has_figures_numbers_and_a_stepper() -> None:
    find_figures()
    assert set(SLIDES) == {lesson.number for lesson in LESSONS}
    for number, slides in SLIDES.items():
        kinds = {type(slide) for slide in slides}
        assert {Numbers, Steps} <= kinds <= {Picture, Numbers, Steps, Drawing, Code, Arithmetic}
        for slide in slides:
            if isinstance(slide, Picture):
                assert slide.figure in FIGURES, (number, slide.figure)


def test_every_slide_names_a_section_of_its_reading() -> None:
    for lesson in LESSONS:
        markdown = reading_text(lesson)
        for slide in SLIDES[lesson.number]:
            assert section_notes(markdown, slide.notes), (lesson.number, slide.title)


def test_a_deck_is_one_file_that_fetches_nothing(decks: dict[int, str]) -> None:
    for number, page in decks.items():
        assert not re.search(r"""(src|href)\s*=\s*["'](?!data:|#)""", _markup(page)), number
        assert "<link" not in page and "@import" not in page, number
        styles = "".join(re.findall(r"<style>(.*?)</style>", page, flags=re.S))
        assert not re.search(r"url\((?!data:|#)", styles), number
        assert "Reveal.initialize(" in page and "RevealNotes" in page  # inlined, not linked
        assert "http://" not in _visible_text(page) and "https://" not in _visible_text(page)


def test_a_deck_shows_no_raw_latex(decks: dict[int, str]) -> None:
    for number, page in decks.items():
        text = _visible_text(page)
        for raw in ("\\(", "\\)", "$$", "\\frac", "\\partial", "\\lambda", "\\top", "\\sum"):
            assert raw not in text, (number, raw)
        assert not re.search(r"\$[^$\s]", text), number


def test_a_deck_holds_its_figures_numbers_stepper_and_notes(decks: dict[int, str]) -> None:
    for number, page in decks.items():
        slides = SLIDES[number]
        for slide in slides:
            if isinstance(slide, Picture):  # drawn for the slide: inline SVG, labels as text
                label = html.escape(slide.title)
                assert f'<svg role="img" aria-label="{label}" class="mg-figure"' in page
            if isinstance(slide, Numbers):
                assert html.escape(slide.lines[0].split("  ")[0]) in page
            if isinstance(slide, (Drawing, Code)):
                assert f"<h2>{html.escape(slide.title)}</h2>" in page
        assert page.count('class="mg-steps" data-steps=') == sum(
            isinstance(s, (Steps, Arithmetic)) for s in slides)
        assert page.count("<section class=") >= len(slides) + 2  # title and summary
        assert "<img" not in _markup(page) and "data:image/png" not in page, number
        assert page.count('<aside class="notes">') >= len(slides)


def test_the_worked_numbers_are_the_syllabus_numbers(decks: dict[int, str]) -> None:
    assert "L = 49 + 6 = 55" in decks[1] and "= 45" in decks[1]
    assert "out = 27" in decks[3] and "4.5" in decks[3]
    assert "E = 0.298371109" in decks[5] and "0.000438568" in decks[5]


def _slide_notes(page: str) -> list[list[str]]:
    """Each slide's notes as text paragraphs, in deck order ([] for a slide without notes)."""
    found = []
    for section in re.findall(r"<section class=.*?</section>", _markup(page), flags=re.S):
        notes = re.search(r'<aside class="notes">(.*?)</aside>', section, flags=re.S)
        found.append([html.unescape(_visible_text(paragraph))
                      for paragraph in re.findall(r"<p>(.*?)</p>", notes[1], flags=re.S)]
                     if notes else [])
    return found


def test_notes_are_the_readings_prose_with_no_markdown_left(decks: dict[int, str]) -> None:
    for number, page in decks.items():
        notes = _slide_notes(page)
        assert len(notes) >= len(SLIDES[number]) + 2
        for paragraphs in notes:
            for paragraph in paragraphs:
                for residue in ("](", ".png)", ".svg)", "**", "$", "\\", "```", "|---"):
                    assert residue not in paragraph, (number, residue, paragraph[:200])
                assert not paragraph.rstrip().endswith(":"), (number, paragraph[-120:])


def test_no_two_slides_of_a_deck_carry_the_same_notes(decks: dict[int, str]) -> None:
    for number, page in decks.items():
        notes = [" ".join(paragraphs) for paragraphs in _slide_notes(page)[1:len(SLIDES[number]) + 1]]
        assert all(notes), number  # every lesson slide has notes
        assert len(set(notes)) == len(notes), number


def test_notes_keep_the_maths_and_code_the_reading_shows() -> None:
    from minigrad.course.reading import _paragraphs

    body = ("For a product the rule is:\n\n```python\ndef f(out, g):\n    a.grad += b * g\n```\n\n"
            "Then:\n\n$$\n\\frac{dy}{dx} = 2x\n$$\n\n![A picture\nof two lines](../assets/x.png)\n\n"
            "All four:\n\n| | value |\n|---|---|\n| $w_{00}$ | 6 |\n| $w_{01}$ | 9 |\n")
    assert _paragraphs(body) == [
        "For a product the rule is: `def f(out, g):`  `a.grad += b * g`",
        "Then: dy/dx = 2x", "Figure: A picture of two lines", "All four: w₀₀, 6; w₀₁, 9."]


def test_plain_math_turns_latex_into_unicode() -> None:
    assert plain_math(r"$\sum_{n,i,j} \delta[n,i,j]$") == "Σₙ,ᵢ,ⱼ δ[n,i,j]"
    assert plain_math(r"$\sum_{m=0}^{k-1}$ and `a * b` *here*") == "Σₘ₌₀ᵏ⁻¹ and `a * b` here"
    assert plain_math(r"$w = 2 \Rightarrow \ell$") == "w = 2 ⇒ ℓ"
    assert plain_math(r"$\partial L/\partial w_1$") == "∂L/∂w₁"
    assert plain_math(r"$\frac{\partial L}{\partial x}$ is $J^\top v$") == "∂L/∂x is Jᵀv"
    assert plain_math(r"$$\lambda \le 10^{-6}$$") == "λ ≤ 10⁻⁶"
    assert plain_math(r"**Forward.** $u = a\,b$") == "Forward. u = a b"


def test_the_command_writes_a_deck_and_adds_the_lecturers_picture(tmp_path: Path,
                                                                  capsys) -> None:
    own = tmp_path / "my_graph.svg"
    assert main(["graph", "-e", "(Value(2.0, 'a') * Value(3.0, 'b')).tanh()", "--slide",
                 "--out", str(own)]) == 0
    out = tmp_path / "deck.html"
    assert main(["slides", "01", "--out", str(out), "--add", str(own)]) == 0
    page = out.read_text(encoding="utf-8")
    assert 'class="picture-slide added-slide"' in page and "my graph" in page
    assert page.rstrip().endswith("</html>")


def test_the_command_refuses_what_is_not_a_picture(tmp_path: Path, capsys) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    assert main(["slides", "1", "--out", str(tmp_path / "d.html"), "--add", str(notes)]) == 1
    assert "is not a picture" in capsys.readouterr().err
    assert main(["slides", "9", "--out", str(tmp_path / "d.html")]) == 1


def test_the_wheel_carries_reveal_js_and_its_licence() -> None:
    """Every vendored file matches a package-data pattern of pyproject.toml (and the sdist's
    MANIFEST.in grafts the folder), so a pip install has reveal.js offline."""
    import fnmatch
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["minigrad.course"]
    course = root / "minigrad" / "course"
    vendored = [path.relative_to(course).as_posix()
                for path in (course / "vendor").rglob("*") if path.is_file()]
    assert {"vendor/revealjs/LICENSE", "vendor/revealjs/reveal.js",
            "vendor/revealjs/plugin/notes.js", "vendor/revealjs/theme/black.css"} <= set(vendored)
    for name in vendored:
        assert any(fnmatch.fnmatchcase(name, pattern) and name.count("/") == pattern.count("/")
                   for pattern in patterns), name
    assert "graft minigrad/course/vendor" in (root / "MANIFEST.in").read_text()
    assert "MIT" in (course / "vendor" / "revealjs" / "LICENSE").read_text() or \
        "Permission is hereby granted" in (course / "vendor" / "revealjs" / "LICENSE").read_text()


def test_add_takes_a_stepper_a_title_and_a_position(tmp_path: Path) -> None:
    from minigrad.scalar import Value
    from minigrad.viz import backward_steps

    a, b = Value(2.0, "a"), Value(3.0, "b")
    stepper = backward_steps((a * b).tanh()).save(tmp_path / "my_steps.html")
    out = tmp_path / "deck.html"
    assert main(["slides", "1", "--out", str(out), "--add", str(stepper),
                 "--title", "Backward of tanh(a·b)", "--at", "2"]) == 0
    page = out.read_text(encoding="utf-8")
    sections = re.findall(r"<section class=.*?</section>", _markup(page), flags=re.S)
    assert "added-slide" in sections[1] and "<h2>Backward of tanh(a·b)</h2>" in sections[1]
    steps = len(backward_steps((a * b).tanh()))
    assert sections[1].count('class="mg-step ') == steps >= 2
    assert sections[1].count("<svg") == steps and "fragment" in sections[1]
    assert "title-slide" in sections[0]


def test_add_refuses_a_position_outside_the_deck_and_a_title_without_add(tmp_path: Path,
                                                                       capsys) -> None:
    own = tmp_path / "g.svg"
    assert main(["graph", "-e", "Value(2.0, 'a') * 3", "--slide", "--out", str(own)]) == 0
    assert main(["slides", "1", "--out", str(tmp_path / "d.html"), "--add", str(own),
                 "--at", "40"]) == 1
    assert "--at 40: the deck has" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["slides", "1", "--title", "orphan", "--add", str(own)])
    assert "give --add FILE first" in capsys.readouterr().err
    page = tmp_path / "not_steps.html"
    page.write_text("<html><body>hello</body></html>")
    assert main(["slides", "1", "--out", str(tmp_path / "d.html"), "--add", str(page)]) == 1
    assert "not a stepper page of minigrad.viz" in capsys.readouterr().err


def test_a_dark_drawing_on_a_light_deck_is_inverted_not_a_black_box(tmp_path: Path) -> None:
    dark = tmp_path / "dark.svg"
    light = tmp_path / "light.svg"
    assert main(["graph", "-e", "Value(2.0, 'a') * 3", "--slide", "--theme", "dark",
                 "--out", str(dark)]) == 0
    assert main(["graph", "-e", "Value(2.0, 'a') * 3", "--slide", "--out", str(light)]) == 0
    from minigrad.course.slides import Added

    lesson = LESSONS[0]
    on_light = deck_html(lesson, [Added(dark, "dark"), Added(light, "light")])
    assert on_light.count('class="mg-invert"') == 1
    assert re.search(r'aria-label="dark" class="mg-invert"', on_light)
    on_dark = deck_html(lesson, [Added(dark, "dark"), Added(light, "light")], theme="dark")
    assert re.search(r'aria-label="light" class="mg-invert"', on_dark)
    assert on_dark.count('class="mg-invert"') == 1 and '<html lang="en" class="dark">' in on_dark


def test_a_pdf_without_chromium_says_how_to_get_one(tmp_path: Path, capsys,
                                                   monkeypatch) -> None:
    monkeypatch.setenv("MINIGRAD_CHROMIUM", "no-such-browser-here")
    assert main(["slides", "2", "--out", str(tmp_path / "deck.pdf")]) == 1
    error = capsys.readouterr().err
    assert "apt-get install chromium" in error and "?print-pdf" in error
    assert not (tmp_path / "deck.pdf").exists()
    assert main(["slides", "2", "--out", str(tmp_path / "deck.txt")]) == 1
    assert "--out must be an .html or a .pdf file" in capsys.readouterr().err


def test_the_readmes_slide_commands_run_as_written(tmp_path: Path, monkeypatch, capsys) -> None:
    """Each line of the README's Slides recipe, run in a folder holding the examples (the
    PDF line only where playwright and a Chromium are installed)."""
    import shlex
    import shutil

    from minigrad.course.deck_pdf import find_chromium

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Slides", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, flags=re.S)[1].replace("\\\n", " ")
    shutil.copytree(root / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert len(commands) >= 6 and any("--backward" in line for line in commands)
    try:
        import playwright  # noqa: F401
        can_print = find_chromium() is not None
    except ImportError:
        can_print = False
    for line in commands:
        words = shlex.split(line)
        assert words[0] == "minigrad"
        if words[-1].endswith(".pdf") and not can_print:
            continue
        assert main(words[1:]) == 0, (line, capsys.readouterr().err)
        out = Path(words[words.index("--out") + 1])
        assert out.is_file() and out.stat().st_size > 1000, line
    page = Path("deck.html").read_text(encoding="utf-8")
    assert "<h2>My graph</h2>" in page and "my steps" in page


def test_the_arithmetic_steppers_are_the_lessons_own_numbers(decks: dict[int, str]) -> None:
    from minigrad.course.arithmetic import conv_numbers, conv_steps, pool_steps

    y, grad_w, grad_x, grad_b = conv_numbers()
    assert y[0, 1] == 47 and grad_w.tolist() == [[6, 9], [15, 18]] and grad_b == 3
    assert grad_x.tolist() == [[1, 4, 4], [2, 9, 10], [-3, -1, 4]]
    captions = [" ".join(step.caption) for step in conv_steps()]
    assert "y[0,1] = Σₘₙ w[m,n]·x[m, 1+n] = 1·2 + 2·3 + 3·5 + 4·6 = 47" in captions[0]
    assert "∂L/∂w[0,1] = Σᵢⱼ δ[i,j]·x[i+0, j+1] = 1·2 + 2·3 + (−1)·5 + 1·6 = 9" in captions[2]
    assert any("∂L/∂x[1,1] = 1·4 + 2·3 + (−1)·2 + 1·1 = 9" in text for text in captions)
    assert "∂L/∂b = Σ δ = 1 + 2 − 1 + 1 = 3" in captions[-1]
    pool = [" ".join(step.caption) for step in pool_steps()]
    assert len(pool) == 5 and "y = 4, 5; 6, 3" in pool[0]
    assert "∂L/∂x[1,0] = ∂L/∂y[0,0] = 10" in pool[1] and "∂L/∂x[3,3] = ∂L/∂y[1,1] = 40" in pool[4]
    assert decks[6].count('class="stepper-slide arithmetic-slide"') == 1
    assert decks[7].count('class="stepper-slide arithmetic-slide"') == 1
    assert 'class="mg-grid"' in decks[6] and "w rotated 180°" in decks[6]
