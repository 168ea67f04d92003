"""``minigrad held-out-digits``: put digits no student has into a private key, for the capstone.

The digits that ship with minigrad are public, labels included: scored on them, a capstone
could have been trained on them at home. With ``capstone-digits.npz`` beside a key's
``lesson08_checks.py``, the grader scores the capstone's network on those images instead;
they never leave the grader (the key is readable by the grader only).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

HELP = "put held-out digits (yours, never shipped with minigrad) into a private key for 08.5"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path,
                        help="the digits: an .npz with 'images' and 'labels', or UCI's text "
                             "layout (optdigits.tra: 64 block counts and the digit a line)")
    parser.add_argument("--to", type=Path, required=True, metavar="KEY",
                        help="your private key (the folder given to --exercises)")
    parser.add_argument("--pass-mark", type=float, metavar="A",
                        help="the accuracy 08.5 asks for on these digits, 0–1 (default: the "
                             "reference's worst of three seeds on them, less one point, at "
                             "most the built-in 0.97)")


def run(args: argparse.Namespace) -> int:
    from minigrad.data.digits import load_digits, read_digits_file
    from minigrad.exercises.lessons.lesson08_checks import CAPSTONE_ACCURACY, HELD_OUT_FILE

    try:
        images, labels = read_digits_file(args.file)
    except ValueError as error:
        print(f"minigrad held-out-digits: {error}", file=sys.stderr)
        return 2
    shipped, _ = load_digits("all", as_numpy=True)
    public = {image.tobytes() for image in shipped}
    fresh = np.array([image.tobytes() not in public for image in images])
    if not fresh.any():
        print(f"minigrad held-out-digits: every image in {args.file} ships with minigrad: "
              f"they are not held out", file=sys.stderr)
        return 2
    images, labels = images[fresh], labels[fresh]
    if args.pass_mark is not None and not 0.0 < args.pass_mark <= 1.0:
        print(f"minigrad held-out-digits: --pass-mark must be in (0, 1], got {args.pass_mark}",
              file=sys.stderr)
        return 2
    reached = reference_accuracies(args.to, images, labels)
    mark = args.pass_mark if args.pass_mark is not None else \
        min(CAPSTONE_ACCURACY, math.floor((min(reached) - 0.01) * 200) / 200)
    args.to.mkdir(parents=True, exist_ok=True)
    target = args.to / HELD_OUT_FILE
    with open(target, "wb") as handle:
        np.savez_compressed(handle, images=images, labels=labels, pass_mark=np.float64(mark))
    target.chmod(0o600)
    dropped = int((~fresh).sum())
    counts = np.bincount(labels, minlength=10)
    print(f"wrote {target}: {len(labels)} images (per digit: {' '.join(map(str, counts))})"
          + (f"; left out {dropped} that ship with minigrad" if dropped else ""))
    print(f"the reference capstone gets {', '.join(f'{value:.1%}' for value in reached)} of them "
          f"right (seeds 1–3); 08.5 asks for {mark:.1%}")
    if not (args.to / "lesson08_checks.py").is_file():
        print(f"note: {args.to} has no lesson08_checks.py yet; the grader reads the held-out "
              f"digits beside it (copy the built-in lesson08*.py there)")
    return 0


def reference_accuracies(key: Path, images: np.ndarray, labels: np.ndarray) -> list[float]:
    """How much of ``images`` the reference capstone (the key's, else the built-in) gets right,
    trained with seeds 1, 2 and 3: digits from other writers are harder than the test split."""
    from minigrad.exercises import network
    from minigrad.exercises.authoring.source import BUILTIN, ExerciseBank

    bank = ExerciseBank(key) if (key / "lesson08.py").is_file() else BUILTIN
    capstone = bank.reference_module(bank.lesson_for(8)).capstone
    reached = []
    for seed in (1, 2, 3):
        layers = network.read_layers(capstone(seed)["layers"], (1, 8, 8), 10)
        reached.append(float((network.forward(layers, images).argmax(axis=1) == labels).mean()))
    return reached
