"""Figures of lesson 07's reading (see SYLLABUS, *Pictures every reading needs*)."""

from __future__ import annotations
