"""The arithmetic of a backward pass as text, one block per step.

For each step, in the order the engine runs: the node, the gradient arriving at it, its rule
(the local derivatives), and for each edge ``local × incoming = sent`` with the receiving
node's gradient as a running sum (``u.grad = 1 + 14 = 15``). Lesson 01's worked graph::

    step 1  L = v ** 2 + u      grad arriving 1
            rule  ∂L/∂(v ** 2) = 1,  ∂L/∂u = 1
            -> v ** 2   1 × 1 = 1          (v ** 2).grad = 1
            -> u        1 × 1 = 1          u.grad = 1
    ...

Tensors: the rule as the op's docstring states it, and shapes plus a short preview instead of
single numbers (``(2, 2) [[0.25, 0.25], [0.25, 0.25]]``).
"""

from __future__ import annotations

from minigrad.viz.frames import (Frame, definition, describe, is_scalar, node_names, operand,
                                  rule_text)
from minigrad.viz.labels import format_number
from minigrad.viz.replay import Replay


def trace_lines(replay: Replay, frames: list[Frame], digits: int = 4) -> list[list[str]]:
    """The text of each step, a list of lines per frame."""
    names = node_names(replay)
    width = max((len(name) for name in names), default=1)
    blocks = []
    for frame in frames:
        node = replay.nodes[frame.node]
        head = f"step {frame.step}  {definition(node, names)}"
        grad = describe(frame.grad_in, digits)
        if node.kind == "leaf":
            blocks.append([f"{head}   leaf: this backward gives it {grad} (added to its "
                           f".grad); nothing further back"])
            continue
        if frame.grad_in is None:
            blocks.append([f"{head}   no gradient arrived; nothing to send"])
            continue
        lines = [f"{head}   grad arriving {grad}"]
        if node.rule:
            lines.append(f"        rule  {rule_text(node, names)}")
        running = dict(frame.before)
        for send in frame.sends:
            target = names[send.parent]
            previous = running.get(send.parent)
            total = send.sent if previous is None else previous + send.sent
            running[send.parent] = total
            if is_scalar(send.sent) and send.local is not None:
                product = (f"{format_number(send.local, digits)} × "
                           f"{format_number(frame.grad_in, digits)} = "
                           f"{format_number(send.sent, digits)}")
            else:
                product = f"sends {describe(send.sent, digits)}"
            if previous is None:
                sum_text = describe(total, digits)
            elif is_scalar(total):
                sum_text = (f"{format_number(previous, digits)} + "
                            f"{format_number(send.sent, digits)} = {format_number(total, digits)}")
            else:
                sum_text = f"earlier + this = {describe(total, digits)}"
            if is_scalar(total):
                lines.append(f"        -> {target:<{width}}  {product:<22} "
                             f"{operand(target)}.grad = {sum_text}")
            else:  # arrays are long: the running sum goes on its own line
                lines.append(f"        -> {target:<{width}}  {product}")
                lines.append(f"           {' ' * width}  {operand(target)}.grad = {sum_text}")
        blocks.append(lines)
    return blocks


def trace_text(replay: Replay, frames: list[Frame], digits: int = 4) -> str:
    """The whole trace as one string (what :func:`minigrad.viz.trace_backward` prints)."""
    names = node_names(replay)
    root = names[replay.visits[0].node] if replay.visits else "?"
    engine = "the Tensor engine" if replay.is_tensor else "Value.backward"
    header = (f"backward from {root}, in the order {engine} runs it "
              f"({len(frames)} steps; every gradient starts at zero)")
    return "\n".join([header] + [line for block in trace_lines(replay, frames, digits)
                                 for line in block]) + "\n"
