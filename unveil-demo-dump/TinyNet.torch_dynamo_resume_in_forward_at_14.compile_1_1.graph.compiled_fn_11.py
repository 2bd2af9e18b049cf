# FX graph __compiled_fn_11_78f378e3_0712_4603_9ce7_a0ca5b081dff, captured by Dynamo. `forward` is what the compiled backend was given.
# Inputs:
#   s75: SymInt s75
#   L_h_: float32 tensor, size (s75, 16), stride (16, 1), cpu, requires_grad
#   L_self_modules_decode_parameters_weight_: float32 tensor, size (4, 16), stride (16, 1), cpu, requires_grad
#   L_self_modules_decode_parameters_bias_: float32 tensor, size (4,), stride (1,), cpu, requires_grad
import torch
from torch import device


class GraphModule(torch.nn.Module):
    def forward(self, s75: "Sym(s75)", L_h_: "f32[s75, 16][16, 1]cpu", L_self_modules_decode_parameters_weight_: "f32[4, 16][16, 1]cpu", L_self_modules_decode_parameters_bias_: "f32[4][1]cpu"):
        l_h_ = L_h_
        l_self_modules_decode_parameters_weight_ = L_self_modules_decode_parameters_weight_
        l_self_modules_decode_parameters_bias_ = L_self_modules_decode_parameters_bias_

        # File: /work/main/src/unveil/dynamo/demo.py:15 in torch_dynamo_resume_in_forward_at_14, code: h = h * 2
        h: "f32[s75, 16][16, 1]cpu" = l_h_ * 2;  l_h_ = None

        # File: /work/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14, code: return self.decode(h)
        linear: "f32[s75, 4][4, 1]cpu" = torch._C._nn.linear(h, l_self_modules_decode_parameters_weight_, l_self_modules_decode_parameters_bias_);  h = l_self_modules_decode_parameters_weight_ = l_self_modules_decode_parameters_bias_ = None
        return (linear,)
