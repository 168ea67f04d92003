"""The course itself: the lesson catalogue (``catalog``) and ``minigrad course``, which writes
the readings, notebooks and figures into a folder and opens JupyterLab there (``folder``)."""

from minigrad.course.catalog import LESSONS, Lesson, find_lesson

__all__ = ["LESSONS", "Lesson", "find_lesson"]
