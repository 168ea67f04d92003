"""Grad mode: a switch that says whether operations are recorded for backward.

`no_grad()` turns recording off (evaluation, optimizer updates); `enable_grad()` turns it
back on inside a `no_grad` block; `set_grad_enabled(mode)` sets it to a bool. All three work
as context managers and as decorators, like PyTorch's. `is_grad_enabled()` reads the switch.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class GradMode:
    """The global switches. Ops read them on every call, so they are plain attributes.

    `enabled`: record ops for backward. `keep_inputs`: let each recorded node keep the tensors
    it was applied to (`node.inputs`), so that the forward graph can be drawn; off, a node
    keeps only their shapes and dtypes, and intermediates nobody saved are freed at once.
    """

    enabled: bool = True
    keep_inputs: bool = False


class keep_inputs:  # noqa: N801 - used like no_grad()
    """Within this context, recorded nodes keep their input tensors (see `GradMode`)."""

    def __enter__(self) -> None:
        self._previous = GradMode.keep_inputs
        GradMode.keep_inputs = True

    def __exit__(self, *exc_info: object) -> None:
        GradMode.keep_inputs = self._previous


def is_grad_enabled() -> bool:
    """True when new operations are recorded in the autograd graph."""
    return GradMode.enabled


class _GradModeContext:
    """Base for context managers that set grad mode on entry and restore it on exit."""

    target_mode: bool = True

    def __new__(cls, function: Callable[..., Any] | None = None) -> Any:
        """`@no_grad()` and bare `@no_grad` both decorate (as in PyTorch)."""
        instance = super().__new__(cls)
        if function is None:
            return instance
        if not callable(function):
            raise TypeError(f"{cls.__name__}() takes no arguments, or a function to decorate; "
                            f"got {type(function).__name__}")
        return instance(function)

    def __init__(self, function: Callable[..., Any] | None = None) -> None:
        pass

    def __enter__(self) -> None:
        self._previous = GradMode.enabled
        GradMode.enabled = self.target_mode

    def __exit__(self, *exc_info: object) -> None:
        GradMode.enabled = self._previous

    def __call__(self, function: F) -> F:
        """Use as a decorator: run `function` under this grad mode."""
        return _run_under(self.__class__, function)


def _run_under(make_context: Callable[[], Any], function: F) -> F:
    """`function`, wrapped so that every call runs inside a fresh `make_context()`."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with make_context():
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


class no_grad(_GradModeContext):
    """Do not record operations: results have `requires_grad=False` and no `grad_fn`.

    >>> with no_grad():
    ...     y = x * 2          # y.requires_grad is False even if x requires grad
    """

    target_mode = False


class enable_grad(_GradModeContext):
    """Record operations again, e.g. inside a `no_grad` block."""

    target_mode = True


class set_grad_enabled:
    """Turn recording on or off, three ways, as in PyTorch:

    - `set_grad_enabled(False)` switches at once (until switched back);
    - `with set_grad_enabled(training): ...` restores the previous mode on exit;
    - `@set_grad_enabled(False)` above a def runs each call of the function in that mode and
      leaves the mode around the def as it was.
    """

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):  # refused before anything changes
            kind = type(mode)
            given = f"numpy.{kind.__name__}" if kind.__module__ == "numpy" else kind.__name__
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {given} (pass True or False)")
        self.mode = mode
        self._previous = GradMode.enabled
        GradMode.enabled = mode

    def __enter__(self) -> None:
        GradMode.enabled = self.mode

    def __exit__(self, *exc_info: object) -> None:
        GradMode.enabled = self._previous

    def __call__(self, function: F) -> F:
        """As a decorator: undo the switch the constructor made, and switch per call."""
        GradMode.enabled = self._previous
        return _run_under(lambda: set_grad_enabled(self.mode), function)

    def __repr__(self) -> str:
        return f"minigrad.autograd.grad_mode.set_grad_enabled(mode={self.mode})"
