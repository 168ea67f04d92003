"""Figures of lesson 04's reading (see SYLLABUS, *Pictures every reading needs*)."""

from __future__ import annotations
