"""`minigrad.optim`: optimizers that update parameters from their gradients (as torch.optim).

optimizer   Optimizer: parameter groups, zero_grad, state_dict; leaves only
sgd         SGD: momentum, dampening, Nesterov, weight decay (adds λw to the gradient)
adam        Adam (L2 inside the averages) and AdamW (decoupled decay)
"""

from minigrad.optim.adam import Adam, AdamW
from minigrad.optim.optimizer import Optimizer
from minigrad.optim.sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer"]
