"""Figures of lesson 08's reading (see SYLLABUS, *Pictures every reading needs*)."""

from __future__ import annotations
