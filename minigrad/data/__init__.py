"""Data for the course: toy 2-D sets, the handwritten digits shipped with minigrad, MNIST files.

toy      make_moons, make_spirals: seeded 2-D classification sets (lesson 02)
digits   load_digits: the 8×8 UCI handwritten digits, offline (lessons 05–08)
mnist    load_mnist: the 28×28 MNIST IDX files, when you have them
loader   TensorDataset, DataLoader: mini-batches as in PyTorch
"""

from minigrad.data.digits import load_digits
from minigrad.data.loader import DataLoader, Dataset, TensorDataset
from minigrad.data.mnist import load_mnist, read_idx
from minigrad.data.toy import make_moons, make_spirals

__all__ = ["DataLoader", "Dataset", "TensorDataset", "load_digits", "load_mnist", "make_moons",
           "make_spirals", "read_idx"]
