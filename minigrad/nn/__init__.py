"""`minigrad.nn`: layers, losses and the Module they are built from (as torch.nn).

module      Module: parameters by attribute, named_parameters, state_dict, train/eval
parameter   Parameter: a leaf Tensor that a module learns
linear      Linear: y = x Wᵀ + b
conv        Conv2d, MaxPool2d, AvgPool2d
activation  ReLU, Sigmoid, Tanh, Softmax
flatten     Flatten
dropout     Dropout (active in train(), off in eval())
loss        MSELoss, CrossEntropyLoss, BCEWithLogitsLoss
container   Sequential, ModuleList
functional  the same as functions (import minigrad.nn.functional as F)
init        in-place initialisers (uniform_, kaiming_uniform_, …)
"""

from minigrad.nn import functional, init
from minigrad.nn.activation import ReLU, Sigmoid, Softmax, Tanh
from minigrad.nn.container import ModuleList, Sequential
from minigrad.nn.conv import AvgPool2d, Conv2d, MaxPool2d
from minigrad.nn.dropout import Dropout
from minigrad.nn.flatten import Flatten
from minigrad.nn.linear import Linear
from minigrad.nn.loss import BCEWithLogitsLoss, CrossEntropyLoss, MSELoss
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter

__all__ = ["AvgPool2d", "BCEWithLogitsLoss", "Conv2d", "CrossEntropyLoss", "MaxPool2d", "Dropout", "Flatten", "Linear", "MSELoss", "Module",
           "ModuleList", "Parameter", "ReLU", "Sequential", "Sigmoid", "Softmax", "Tanh",
           "functional", "init"]
