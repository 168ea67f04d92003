"""The pictures of readings 04–08, one module per lesson.

Each module registers its figures with :func:`minigrad.figures.figure`; ``minigrad figures``
(and ``make assets``) imports them all through :data:`minigrad.figures.FIGURE_MODULES` and
writes every file into ``assets/``, where the readings and notebooks show them.
"""
