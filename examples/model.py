"""A small MLP on four digits, for `minigrad graph` (run it from the course folder):

    minigrad graph examples/model.py --root loss --kind backward --collapse --out layers.svg

``--collapse`` draws each layer call as one box; without it, every node of the graph.
"""

import minigrad as mg
import minigrad.nn as nn
from minigrad.data import load_digits

mg.manual_seed(0)
model = nn.Sequential(nn.Flatten(), nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 10))
images, labels = load_digits("train")
loss = nn.functional.cross_entropy(model(images[:4]), labels[:4])
