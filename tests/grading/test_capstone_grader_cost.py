"""What grading a capstone (08.5) costs the grader: layers within every limit of
``network.read_layers`` take little memory and seconds at most in its own forward pass.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from support.capstone_routes import REFERENCE, capstone_score, with_capstone_body
from support.grading_results import needs_sandbox

pytestmark = needs_sandbox


# ---------------------------------------------------------------------------- the grader's memory
#: Layers within every limit of read_layers whose pass costs the grader ~0.9 GB: the image
#: pooled to 1×1, a 1×1 conv to 8 192 channels (8 192 values), then a 1×1 conv with stride 4
#: and padding 3. _largest_per_image counts that conv's windows (2×2 outputs × 8 192 = 32 768
#: values) but not np.pad's array (8 192 × 7 × 7 = 401 408 values), so a batch is 256 images
#: and the padded array 256 × 401 408 × 8 bytes = 822 MB (the docstring's bound: 64 MB).
MEMORY_LAYERS = '''[("maxpool", 4), ("maxpool", 2),
    ("conv", np.ones((4096, 1, 1, 1), dtype=np.int8), np.zeros(4096, dtype=np.int8), 1, 0),
    ("conv", np.zeros((1, 4096, 3, 3), dtype=np.int8), np.zeros(1, dtype=np.int8), 4, 2),
    ("flatten",), ("linear", np.ones((10, 1), dtype=np.int8), np.zeros(10, dtype=np.int8))]'''


FORGED_MEMORY = f'''
import sys
try:
    raise ValueError
except ValueError:
    namespace = sys.exc_info()[2].tb_frame.f_globals
namespace["capstone_report"] = lambda *rest: {{
    "layers": {MEMORY_LAYERS},
    "probe_scores": np.zeros((64, 10)), "losses": [1.0],  # (the padded conv sees only zeros)
    "probe_gradients": [np.zeros((4096, 1, 1, 1)), np.zeros(4096), np.zeros((1, 4096, 3, 3)),
                        np.zeros(1), np.zeros((10, 1)), np.zeros(10)],
    "your_functions": ["A", "B", "C"], "library_layers": [],
    "optimizer": "X", "library_optimizers": []}}
model = layers = optimizer = None
losses = [1.0]
'''


def test_layers_within_the_limits_cost_the_grader_little_memory(tmp_path: Path) -> None:
    """A 1×1 conv with padding 3 on 8 192 channels of 1×1 made the grader's forward pass
    allocate ~0.8 GB per batch (np.pad's array was not counted when batches were sized).
    Now a padding must be under the kernel size, and padded inputs count: the worst such
    layer (3×3, padding 2, on 8 192 channels of 1×1) stays small."""
    import json
    import subprocess
    import sys
    script = textwrap.dedent(f'''
        import json, resource, sys
        from pathlib import Path
        sys.path.insert(0, {str(Path(__file__).parents[1])!r})
        from support.capstone_routes import capstone_score
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        score, feedback = capstone_score(Path({str(tmp_path)!r}), "memory",
                                         {with_capstone_body(REFERENCE, FORGED_MEMORY)!r})
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps([score, feedback, (after - before) // 1024]))
    ''')
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=600, check=True)
    score, feedback, grown_mb = json.loads(run.stdout.strip().splitlines()[-1])
    assert score == 0.0 and "backward's gradient" in feedback, feedback  # (after its pass)
    assert grown_mb < 200, f"the grader's peak memory grew by {grown_mb} MB"


# ---------------------------------------------------------------------------- the grader's time
def test_the_heaviest_layers_cost_the_grader_seconds_at_most() -> None:
    """Layers at the limits (a 7×7 conv to 128 channels, padding 3, then a 7×7 conv back to
    one: 803 000 multiply-adds per image): the grader's pass over the test split and its
    backpropagation over the probe took 1.4 s and 0.6 s here; a deep stack of twelve 3×3
    convs (8 channels) 0.15 s and 0.12 s. Not a way to stall the grader."""
    import time

    import numpy as np

    from minigrad.data import load_digits
    from minigrad.exercises import network

    images, labels = load_digits("train", as_numpy=True)
    test_images, _ = load_digits("test", as_numpy=True)
    rng = np.random.default_rng(0)
    layers = network.read_layers(
        [("conv", rng.normal(size=(128, 1, 7, 7)), np.zeros(128), 1, 3),
         ("conv", rng.normal(size=(1, 128, 7, 7)), np.zeros(1), 1, 3), ("maxpool", 2),
         ("flatten",), ("linear", rng.normal(size=(10, 16)), np.zeros(10))], (1, 8, 8), 10)
    started = time.perf_counter()
    network.forward(layers, test_images)
    network.gradients(layers, images[:64], np.random.default_rng(1).normal(size=(64, 10)))
    assert time.perf_counter() - started < 20.0
