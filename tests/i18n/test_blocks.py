"""Markdown cut into translatable blocks: nothing lost, code and display maths shared."""

from __future__ import annotations

import json

import pytest

from minigrad.course.folder import course_source
from minigrad.i18n import blocks
from minigrad.i18n.documents import markdown_cells

TEXT = """# A title

A paragraph with `code` and $x^2$,
over two lines.

```python
# a comment in code, never translated

x = 1
```

$$
y = 2x
$$

$z = 1$

- a list
- of two
"""


def test_prose_blocks_are_the_paragraphs_headings_and_lists() -> None:
    assert blocks.messages(TEXT) == [
        "# A title", "A paragraph with `code` and $x^2$,\nover two lines.", "- a list\n- of two"]


def test_putting_the_blocks_back_gives_the_same_text() -> None:
    assert "".join(piece.text for piece in blocks.split(TEXT)) == TEXT
    upper = blocks.translate(TEXT, lambda block: block.upper())
    assert "x = 1\n```" in upper and "$$\ny = 2x\n$$" in upper and "$z = 1$" in upper
    assert "# A TITLE\n\nA PARAGRAPH WITH `CODE`" in upper


def test_shared_parts_are_inline_code_maths_and_link_targets() -> None:
    assert blocks.shared_parts("See `f(x)` and $a_i$ in [the notebook](../notebooks/01.ipynb).") \
        == ["$a_i$", "../notebooks/01.ipynb", "`f(x)`"]
    assert blocks.shared_parts("a `$` sign in code is code") == ["`$`"]


@pytest.mark.parametrize("kind", ["lessons", "notebooks"])
def test_every_course_text_comes_back_whole(kind: str) -> None:
    root = course_source() / kind
    for path in sorted(root.iterdir()):
        if path.suffix == ".md":
            texts = [path.read_text(encoding="utf-8")]
        elif path.suffix == ".ipynb":
            texts = markdown_cells(json.loads(path.read_text(encoding="utf-8")))
        else:
            continue
        for text in texts:
            assert blocks.translate(text, lambda block: block) == text, path.name
            assert blocks.translate(text, lambda block: None) == text, path.name


def test_a_chinese_paragraph_has_no_line_break_between_two_chinese_characters() -> None:
    """JupyterLab and browsers show a line break inside a paragraph as a space; Chinese has
    none between its words, so the Chinese course takes those breaks out (not in code)."""
    from minigrad.i18n import documents

    text = "第一行的结尾\n第二行，`x`\n接着\n\n```python\n# 代码\n# 不动\n```\n"
    assert blocks.join_chinese_lines(text) == \
        "第一行的结尾第二行，`x`\n接着\n\n```python\n# 代码\n# 不动\n```\n"
    root = course_source()
    notebook = json.loads((root / "notebooks" / "05-mlp.ipynb").read_text(encoding="utf-8"))
    chinese = documents.notebook(notebook, "05-mlp", "zh")
    reading = documents.reading((root / "lessons" / "05-mlp.md").read_text(encoding="utf-8"),
                                "05-mlp", "zh")
    for text in documents.markdown_cells(chinese) + [reading]:
        for piece in blocks.split(text):
            if piece.prose:
                assert not blocks._CJK_LINE_BREAK.search(piece.text), piece.text[:80]
