"""The grader's feedback on an error shows the lines of the student's own code it came
through, not those of the given code in their file: neither the runners' frames nor the given
line of the exercise function that calls a runner."""

from __future__ import annotations

from minigrad.grading.grader import _students_error


def test_the_given_call_of_a_runner_is_left_out_and_the_student_s_line_kept() -> None:
    message = ("NameError: name 'undefined_thing' is not defined\n"
               "  line 221, in cube_function: return run_function(Cube, [x], grad_output)\n"
               "  line 120, in run_function: gradcheck(lambda *tensors: function.apply(...))\n"
               "  line 219, in backward: return grad_output * 3 * undefined_thing")
    shown = _students_error(message)
    assert "run_function" not in shown, shown
    assert "line 219, in backward: return grad_output * 3 * undefined_thing" in shown
    assert shown.startswith("NameError: name 'undefined_thing' is not defined")


def test_a_student_s_line_that_only_mentions_a_runner_s_name_stays() -> None:
    message = ("ValueError: bad\n"
               "  line 12, in helper: value = my.run_function_result + 1\n"
               "  line 14, in helper: raise ValueError('bad')")
    assert _students_error(message) == message
