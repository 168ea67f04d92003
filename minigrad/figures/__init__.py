"""Every picture the course shows, drawn by the project's code.

``registry`` maps each figure's file name to the function that draws it; ``lesson01`` …
``lesson08`` hold each reading's pictures (the notebooks call the same ``plot_*`` functions);
``lecture`` the README's pictures of the lecture tools; ``plots`` and ``training`` the
matplotlib helpers students call (error curves, decision boundaries, training curves,
confusion matrices). ``minigrad figures --to assets`` (``make assets``) writes them all.
Graph drawing itself is :mod:`minigrad.viz`.
"""

from minigrad.figures.registry import FIGURES, Figure, figure, find_figures, make_figures

__all__ = ["FIGURES", "Figure", "figure", "find_figures", "make_figures"]
