"""The differentiable operations, one module per family (each op: forward + backward).

arithmetic  + - * / **, negation
rounding    // and % (floor division, remainder)
broadcast   broadcast_to and its adjoint sum_to (the gradient of a broadcast input)
matmul      @ (dot, matrix-vector, matrix-matrix, batched)
unary       exp log sqrt abs tanh sigmoid relu
reduce      sum mean max min
shape       reshape view transpose permute flatten unsqueeze squeeze expand
index       x[key]
combine     cat, stack, where
softmax     softmax, log_softmax
linear      x Wᵀ + b as one op (the Linear layer's)
loss        cross_entropy, binary cross-entropy with logits, mse_loss, each one op
cast        copies and dtype conversion (x.clone(), x.double(), x.to(dtype))
inplace     x += y, x.mul_(y), x.fill_(v), x.copy_(y) (version counters, leaf rule)
setitem     x[key] = v
copy_slices writing through a view: CopySlices on the base (and IndexPut for x[[0, 2]] = v)
overlap     may an in-place op write memory it reads? (b += b yes, b += b.T no)
conv        conv2d (its backward: conv ops again, so double backward works)
pool        max_pool2d, avg_pool2d
window      argument checks shared by conv and pool (stride/padding pairs, NCHW)

Import ops from their module (`from minigrad.ops.unary import exp`) or use the public names
re-exported by `minigrad` (`minigrad.exp`). This package re-exports nothing, so that
`minigrad.ops.softmax` is always the module, never the function of the same name.
"""
