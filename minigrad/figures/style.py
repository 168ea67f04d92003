"""Colours the course's pictures share (matplotlib colour strings)."""

GREEN, RED, GREY, BLUE = "#2a7d2a", "#c0392b", "#666666", "#1f77b4"
