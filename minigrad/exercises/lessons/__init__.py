"""The exercise sources, one module per lesson (``lessonNN.py``), and their checks
(``lessonNN_checks.py``). The sources hold the reference solutions between
``### BEGIN SOLUTION`` / ``### END SOLUTION`` markers; students get them with the bodies removed.
"""
