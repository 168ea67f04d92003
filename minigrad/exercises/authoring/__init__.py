"""Authoring: the lesson sources, their student and solution forms, the notebooks' exercise cells."""
