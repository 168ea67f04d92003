"""Grading: finding a student's code, scoring it against answer keys, reports, class runs."""
