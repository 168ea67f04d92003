"""Capstone (08.5) routes the attack tests share: the bodies a capstone's own code is replaced
with (:func:`support.capstone_routes.with_capstone_body`), as source text."""

from __future__ import annotations

#: Three trivial Functions of "the student's own" (numpy forward, no backward) and a Module
#: around them: enough for capstone_report to list 3 own Functions and no library node.
TRIVIAL_MODEL = '''
class Hidden(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        return x.reshape(len(x), -1) @ weight.T + bias

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, None


class Rectify(Function):
    @staticmethod
    def forward(ctx, x):
        return np.maximum(x, 0.0)

    @staticmethod
    def backward(ctx, grad_output):
        return None


class Out(Hidden):
    pass


class Net(nn.Module):
    def __init__(self, w1, b1, w2, b2):
        super().__init__()
        self.w1, self.b1 = nn.Parameter(mg.tensor(w1)), nn.Parameter(mg.tensor(b1))
        self.w2, self.b2 = nn.Parameter(mg.tensor(w2)), nn.Parameter(mg.tensor(b2))

    def forward(self, x):
        return Out.apply(Rectify.apply(Hidden.apply(x, self.w1, self.b1)), self.w2, self.b2)


'''


#: The hidden layer: 1 000 random ReLU features from a fixed generator (not ``rng``; the
#: same on every seed), 64 → 1 000; 65 000 parameters, whole numbers (so the report's JSON
#: stays under the child's 1 MB: as float32 fractions it is ~1.5 MB and is refused).
RANDOM_FEATURES_1000 = '''
features = np.random.default_rng(2024)
w1 = np.round(features.normal(size=(1000, 64)) * 2)
b1 = np.round(features.normal(size=1000) * 16)
'''


#: 600 of them: under the cap of 50 000 parameters that came with the gradient check.
RANDOM_FEATURES = RANDOM_FEATURES_1000.replace("1000", "600")


#: Every weight a whole number, sent as int16 arrays (read_layers takes kinds f, i, u): the
#: report's JSON stays small (the child may send back 1 MB in all, over both seeds; 65 000
#: float32 fractions are ~1.3 MB per seed and were refused: "sent back more than 1 MB").
FINISH = '''
model = Net(w1, b1, w2, b2)
optimizer = None
losses = [1.0]
layers = [("flatten",), ("linear", w1.astype(np.int16), b1.astype(np.int16)), ("relu",),
          ("linear", w2.astype(np.int16), b2.astype(np.int16))]
'''


#: Three identity Functions of "the student's own": their names in the graph, nothing else.
IDENTITY_FUNCTIONS = '''
class Conv2d(Function):
    @staticmethod
    def forward(ctx, x):
        return x.copy()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class MaxPool2d(Conv2d):
    pass


class Linear(Conv2d):
    pass
'''


#: A network of random convolutions and a closed-form head: the reference's architecture
#: (wider: 32 and 64 channels), its two convs left at random whole-number weights from a fixed
#: generator (never trained), and the linear layer solved in closed form (ridge regression on
#: the pooled features of the training images, the first PROBE_COUNT of them, the probe,
#: weighted PROBE_WEIGHT), rounded to whole numbers. Forward-only Functions (a numpy conv, pool
#: and linear) whose backward returns GRADIENTS: ``None`` (no gradient at all) or zeros of each
#: input's shape. No loss, no optimizer. Filled in by :func:`random_convs_closed_form_head`.
RANDOM_CONVS = '''
windows = np.lib.stride_tricks.sliding_window_view


def no_gradient(ctx):
    grads = tuple(GRADIENTS for shape in ctx.shapes)
    return grads if len(grads) > 1 else grads[0]


class Conv(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.shapes = (x.shape, weight.shape, bias.shape)
        patches = windows(np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))), (3, 3), axis=(2, 3))
        return np.einsum("nchwij,ocij->nohw", patches, weight) + bias[None, :, None, None]

    @staticmethod
    def backward(ctx, grad_output):
        return no_gradient(ctx)


class Pool(Conv):
    @staticmethod
    def forward(ctx, x):
        ctx.shapes = (x.shape,)
        n, c, h, w = x.shape
        return np.maximum(x, 0.0).reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


class Lin(Conv):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.shapes = (x.shape, weight.shape, bias.shape)
        return x.reshape(len(x), -1) @ weight.T + bias


features = np.random.default_rng(0)
w1, b1 = np.round(features.normal(size=(32, 1, 3, 3)) * 3), np.zeros(32)
w2, b2 = np.round(features.normal(size=(64, 32, 3, 3)) * 3), np.zeros(64)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1, self.b1 = nn.Parameter(mg.tensor(w1)), nn.Parameter(mg.tensor(b1))
        self.w2, self.b2 = nn.Parameter(mg.tensor(w2)), nn.Parameter(mg.tensor(b2))
        self.w3, self.b3 = None, None

    def body(self, x):
        return Pool.apply(Conv.apply(Pool.apply(Conv.apply(x, self.w1, self.b1)),
                                     self.w2, self.b2))

    def forward(self, x):
        return Lin.apply(self.body(x), self.w3, self.b3)


model = Net()
with mg.no_grad():
    pooled = model.body(train_images).numpy().reshape(len(train_images.numpy()), -1)
pooled = np.hstack([pooled.astype(np.float64), np.ones((len(pooled), 1))])
weights = np.ones(len(pooled))
weights[:PROBE_COUNT] = PROBE_WEIGHT
gram = (pooled * weights[:, None]).T @ pooled
solved = np.linalg.solve(gram + 1e-4 * np.trace(gram) / len(gram) * np.eye(len(gram)),
                         (pooled * weights[:, None]).T @ np.eye(10)[train_labels.numpy()]).T
solved = np.round(solved * 127 / np.abs(solved).max())
w3, b3 = solved[:, :-1], solved[:, -1]
model.w3, model.b3 = nn.Parameter(mg.tensor(w3)), nn.Parameter(mg.tensor(b3))
optimizer = None
losses = [1.0]
whole = lambda array: array.astype(np.int16)
layers = [("conv", model.w1, model.b1, 1, 1), ("relu",), ("maxpool", 2),
          ("conv", model.w2, model.b2, 1, 1), ("relu",), ("maxpool", 2), ("flatten",),
          ("linear", model.w3, model.b3)]
'''


def random_convs_closed_form_head(zero_gradients: bool, probe_weight: int = 1) -> str:
    """RANDOM_CONVS with its backward returning zeros (or None) and the 64 probe images
    weighted ``probe_weight`` in the fit of the head (1: not weighted)."""
    gradients = "np.zeros(shape, dtype=np.float32)" if zero_gradients else "None"
    return (RANDOM_CONVS.replace("GRADIENTS", gradients).replace("PROBE_COUNT", "64")
            .replace("PROBE_WEIGHT", str(probe_weight)))
