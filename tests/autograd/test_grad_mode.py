"""`set_grad_enabled` as PyTorch 2.13 has it: a call, a context manager and a decorator; a
bad argument is refused before the mode changes."""

from __future__ import annotations

import pytest

import minigrad as mg


def decorated(library):  # type: ignore[no-untyped-def]
    """(mode after the def, recorded inside the call, mode after the call)."""
    x = library.ones(2, requires_grad=True)

    @library.set_grad_enabled(False)
    def double(t):  # type: ignore[no-untyped-def]
        return t * 2

    after_def = library.is_grad_enabled()
    inside = double(x).requires_grad
    return after_def, inside, library.is_grad_enabled()


def enabling_decorator_inside_no_grad(library):  # type: ignore[no-untyped-def]
    x = library.ones(2, requires_grad=True)

    @library.set_grad_enabled(True)
    def double(t):  # type: ignore[no-untyped-def]
        return t * 2

    with library.no_grad():
        inside = double(x).requires_grad
        return inside, library.is_grad_enabled()


def decorated_and_raising(library):  # type: ignore[no-untyped-def]
    @library.set_grad_enabled(False)
    def fail() -> None:
        raise KeyError("inside")

    try:
        fail()
    except KeyError:
        pass
    return library.is_grad_enabled()


def called_then_context(library):  # type: ignore[no-untyped-def]
    """set_grad_enabled(False) acts at once; a `with` block restores what it found."""
    library.set_grad_enabled(False)
    switched_off = library.is_grad_enabled()
    library.set_grad_enabled(True)
    with library.set_grad_enabled(False):
        in_block = library.is_grad_enabled()
    return switched_off, in_block, library.is_grad_enabled()


def refused(library, mode):  # type: ignore[no-untyped-def]
    """The mode after a refused argument, from on and from off."""
    modes = []
    for start in (True, False):
        library.set_grad_enabled(start)
        with pytest.raises(TypeError):
            library.set_grad_enabled(mode)
        modes.append(library.is_grad_enabled())
    library.set_grad_enabled(True)
    return modes


def test_as_a_decorator_it_switches_per_call_only():
    assert decorated(mg) == (True, False, True)
    assert enabling_decorator_inside_no_grad(mg) == (True, False)
    assert decorated_and_raising(mg) is True


def test_as_a_call_and_as_a_context_manager():
    assert called_then_context(mg) == (False, False, True)


@pytest.mark.parametrize("mode", ["yes", None, 1, 0.0, mg.ones(1)])
def test_a_non_bool_is_refused_and_the_mode_kept(mode):
    assert refused(mg, mode) == [True, False]
    with pytest.raises(TypeError, match=r"argument 'enabled' \(position 1\) must be bool, "
                                        f"not {type(mode).__name__}"):
        mg.set_grad_enabled(mode)


def test_decorating_without_a_mode_is_refused_and_the_mode_kept():
    def function() -> None:
        pass

    with pytest.raises(TypeError, match="must be bool, not function"):
        mg.set_grad_enabled(function)
    assert mg.is_grad_enabled()


def test_backward_takes_any_truthy_create_graph():
    x = mg.ones(2, requires_grad=True)
    (x * x).sum().backward(create_graph=1)
    assert x.grad.requires_grad and mg.is_grad_enabled()


@pytest.mark.oracle
@pytest.mark.parametrize("case", [decorated, enabling_decorator_inside_no_grad,
                                  decorated_and_raising, called_then_context])
def test_grad_mode_as_torch(case, same_as_torch):
    same_as_torch(case)


@pytest.mark.oracle
@pytest.mark.parametrize("mode", ["yes", None, 1, 0.0])
def test_refused_modes_as_torch(mode, same_as_torch):
    same_as_torch(lambda library: library.set_grad_enabled(mode))
    same_as_torch(lambda library: refused(library, mode))
