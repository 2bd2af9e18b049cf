# FX graph __compiled_fn_7_790e0c17_0e40_40fd_bde3_e345f779959a, captured by Dynamo. `forward` is what the compiled backend was given.
# Inputs:
#   L_self_modules_encode_parameters_weight_: float32 tensor, size (16, 8), stride (8, 1), cpu, requires_grad
#   L_self_modules_encode_parameters_bias_: float32 tensor, size (16,), stride (1,), cpu, requires_grad
#   s77: SymInt s77
#   L_x_: float32 tensor, size (s77, 8), stride (8, 1), cpu
import torch
from torch import device


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_encode_parameters_weight_: "f32[16, 8][8, 1]cpu", L_self_modules_encode_parameters_bias_: "f32[16][1]cpu", s77: "Sym(s77)", L_x_: "f32[s77, 8][8, 1]cpu"):
        l_self_modules_encode_parameters_weight_ = L_self_modules_encode_parameters_weight_
        l_self_modules_encode_parameters_bias_ = L_self_modules_encode_parameters_bias_
        l_x_ = L_x_

        # File: /work/main/src/unveil/dynamo/demo.py:13 in forward, code: h = torch.relu(self.encode(x))
        linear: "f32[s77, 16][16, 1]cpu" = torch._C._nn.linear(l_x_, l_self_modules_encode_parameters_weight_, l_self_modules_encode_parameters_bias_);  l_x_ = l_self_modules_encode_parameters_weight_ = l_self_modules_encode_parameters_bias_ = None
        h: "f32[s77, 16][16, 1]cpu" = torch.relu(linear);  linear = None

        # File: /work/main/src/unveil/dynamo/demo.py:14 in forward, code: if h.mean() > 0.1:          # data-dependent branch: a graph break
        mean: "f32[][]cpu" = h.mean()
        gt: "b8[][]cpu" = mean > 0.1;  mean = None
        return (gt, h)
