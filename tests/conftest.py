"""Shared test set-up: a non-interactive matplotlib backend and deterministic seeds."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")
