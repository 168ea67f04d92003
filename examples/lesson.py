"""The graphs of the README's `minigrad graph` commands (run them from the course folder):

    minigrad graph examples/lesson.py --root L --backward --out graph.svg
    minigrad graph examples/lesson.py --root loss --kind backward --out loss.png

``L`` is lesson 01's worked graph of Values; ``loss`` is lesson 03's first tensor computation.
"""

import minigrad as mg
from minigrad import Value

# Lesson 01: u = a·b, v = u + c, L = v² + u at a=2, b=3, c=1 (L = 55; a.grad = 45 after backward).
a, b, c = Value(2.0, "a"), Value(3.0, "b"), Value(1.0, "c")
u = a * b
u.label = "u"
v = u + c
v.label = "v"
L = v**2 + u
L.label = "L"

# Lesson 03: out = mean(3·(x + 2)²) = 27 at x = ones(2, 2); x.grad = 4.5 everywhere.
x = mg.ones(2, 2, requires_grad=True)
y = x + 2
z = y * y * 3
loss = z.mean()
