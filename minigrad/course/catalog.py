"""The course's table of contents: one entry per lesson, in order.

The command line (`minigrad lessons`, `minigrad exercises LESSON`) and the grader look lessons
up here, by number (``1``, ``"01"``) or by slug (``"derivatives"``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Lesson:
    number: int
    slug: str
    title: str
    covers: str
    ready: bool = False  # True once its reading, notebook and exercises have landed
    builds: str = ""  # what the student writes in its graded exercises
    time: str = ""  # the reading's estimate of a student's time, e.g. "about 3 hours"

    @property
    def name(self) -> str:
        """File stem shared by the reading and the notebook, e.g. ``01-derivatives``."""
        return f"{self.number:02d}-{self.slug}"


LESSONS: tuple[Lesson, ...] = (
    Lesson(1, "derivatives", "Derivatives and the chain rule",
           "the chain rule by hand, several paths adding up, central differences and their error",
           ready=True,
           builds="derivatives by the chain rule and by central differences",
           time="about 1.5 hours"),
    Lesson(2, "scalar-autograd", "A scalar autograd engine",
           "Value, topological order, gradient accumulation, graph drawing, a tiny MLP",
           ready=True,
           builds="Value's backward rules, a topological order, backpropagation, a new op (sin)",
           time="about 2 hours"),
    Lesson(3, "tensors", "Tensors, Jacobians, and how a tensor op is built",
           "Tensor, grad_fn graphs, vector–Jacobian products, broadcasting, writing a Function, "
           "forward vs reverse mode",
           ready=True,
           builds="backward passes of sum-to, matmul, mean, softmax; Cube, Mul and Sum "
                  "as Functions; forward mode",
           time="about 3 hours"),
    Lesson(4, "autograd-in-practice", "Autograd in practice: leaves, hooks, graph lifetime, debugging",
           "leaves and requires_grad, hooks, retain_graph and create_graph, detach and no_grad, "
           "views and in-place checks, diagnosing gradients, gradcheck",
           ready=True,
           builds="a Function that create_graph can differentiate; hooks; Jacobians by central differences",
           time="about 2½ hours"),
    Lesson(5, "mlp", "Layers as operators: the MLP",
           "your Linear as a Function and a Module, your training loop; activations and "
           "losses as one rule; the 2-2-2 network; digits",
           ready=True,
           builds="Linear as a Function and a Module; your training loop",
           time="about 3 hours"),
    Lesson(6, "convolution", "Convolution, forward and backward",
           "correlation, full convolution for dx, stride and padding; your own Conv2d",
           ready=True,
           builds="an NCHW Conv2d Function with batch, channels, stride and padding",
           time="about 3 hours"),
    Lesson(7, "pooling", "Pooling, and a CNN on digits",
           "max pooling as argmax routing, ties, average pooling, MaxPool2d and AvgPool2d "
           "written as Functions, a small CNN on digits",
           ready=True,
           builds="MaxPool2d and AvgPool2d as Functions",
           time="about 2½ hours"),
    Lesson(8, "weight-decay", "Weight decay, optimizers, and what can be optimized",
           "overfitting and decay, momentum, your own SGD and AdamW, leaves only, memory; "
           "capstone: a CNN of your own pieces",
           ready=True,
           builds="SGD with momentum and AdamW as Optimizers; the capstone CNN of your own pieces",
           time="about 3 hours"),
)


def find_lesson(key: int | str) -> Lesson:
    """Look a lesson up by number (``3``, ``"03"``), slug (``"tensors"``) or name (``"03-tensors"``)."""
    text = str(key).strip().lower()
    for lesson in LESSONS:
        if text.isdigit() and int(text) == lesson.number:
            return lesson
        if text in (lesson.slug, lesson.name):
            return lesson
    known = ", ".join(f"{lesson.number} ({lesson.slug})" for lesson in LESSONS)
    raise ValueError(f"no lesson {key!r}; the lessons are {known}")
