"""Running a lesson notebook as a student runs it, with every numbered section on its own.

The notebook runs in one kernel with ``%reset -f`` (every name the earlier cells defined is
gone) before each ``## `` section, so a section that leans on an earlier one fails, naming its
cell. The English notebooks (tests/course/test_notebooks.py) and the Chinese course's
(tests/course/test_notebooks_chinese.py) run through :func:`run_notebook`.
"""

from __future__ import annotations

from pathlib import Path

import nbclient
import nbformat

FORGET = "# inserted by the test: this section must stand on its own\n%reset -f"


def _heading(cell) -> str | None:  # type: ignore[no-untyped-def]
    """The '## ...' heading that opens a section, if this markdown cell starts with one."""
    if cell.cell_type != "markdown":
        return None
    first = cell.source.lstrip().splitlines()[0] if cell.source.strip() else ""
    return first if first.startswith("## ") else None


def sections(notebook) -> list[tuple[str, list]]:  # type: ignore[no-untyped-def]
    """(heading, cells) for every '## ' section; cells before the first heading are dropped."""
    found: list[tuple[str, list]] = []
    for cell in notebook.cells:
        heading = _heading(cell)
        if heading is not None:
            found.append((heading, [cell]))
        elif found:
            found[-1][1].append(cell)
    return found


def with_sections_on_their_own(notebook):  # type: ignore[no-untyped-def]
    """The notebook with a ``%reset -f`` cell before every '## ' section."""
    cells = []
    for cell in notebook.cells:
        if _heading(cell) is not None:
            cells.append(nbformat.v4.new_code_cell(FORGET))
        cells.append(cell)
    return nbformat.v4.new_notebook(cells=cells, metadata=notebook.metadata)


def run_notebook(path: Path, after: str = "", timeout: int = 600):  # type: ignore[no-untyped-def]
    """Run the notebook at ``path`` top to bottom in its own folder, each section on its own,
    then the code ``after`` (a check of the kernel's state); raises CellExecutionError, naming
    the cell, on any error. Returns the executed notebook."""
    notebook = with_sections_on_their_own(nbformat.read(path, as_version=4))
    if after:
        notebook.cells.append(nbformat.v4.new_code_cell(after))
    client = nbclient.NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    return notebook
