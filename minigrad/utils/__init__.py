"""Tools around training: activation checkpointing and measuring what a graph keeps alive.

checkpoint  checkpoint(function, *inputs): recompute a segment in backward instead of saving
memory     saved_bytes(root): bytes of the activations a graph holds for backward
"""

from minigrad.utils.checkpoint import checkpoint
from minigrad.utils.memory import saved_bytes

__all__ = ["checkpoint", "saved_bytes"]
