"""Everything torch.compile did to forward (/work/main/src/unveil/dynamo/demo.py:12), as one plain Python module.

Read it from the bottom: the dispatch function forward does what Dynamo's frame
evaluation does on each call (guards in order, then that entry's transformed code).
Transformed code calls the compiled graphs and the resume functions defined above it.
"""
from unveil.dynamo.guard_runtime import check_global_state, check_obj_id, check_saved_tensors_hooks, check_tensor, check_torch_function_mode_stack, check_type_id, dict_contains, utils_device
import importlib
import torch

# The globals the code runs with: those of forward's module.
G = importlib.import_module('unveil.dynamo.demo').__dict__
# Names the transformed code reads from those globals:
__compiled_fn_11_78f378e3_0712_4603_9ce7_a0ca5b081dff = G['__compiled_fn_11_78f378e3_0712_4603_9ce7_a0ca5b081dff']  # the backend's compiled graph (see its graph file)
__compiled_fn_1_52daa921_5cf3_47d7_87d1_38b8b2e58a24 = G['__compiled_fn_1_52daa921_5cf3_47d7_87d1_38b8b2e58a24']  # the backend's compiled graph (see its graph file)
__compiled_fn_5_559a5cd5_dfb8_4f2a_a126_6eea987b6aca = G['__compiled_fn_5_559a5cd5_dfb8_4f2a_a126_6eea987b6aca']  # the backend's compiled graph (see its graph file)
__compiled_fn_7_790e0c17_0e40_40fd_bde3_e345f779959a = G['__compiled_fn_7_790e0c17_0e40_40fd_bde3_e345f779959a']  # the backend's compiled graph (see its graph file)
__import_torch_dot__dynamo_dot_utils = G['__import_torch_dot__dynamo_dot_utils']  # module torch._dynamo.utils, imported by Dynamo
__import_torch_dot_nn_dot_modules_dot_linear = G['__import_torch_dot_nn_dot_modules_dot_linear']  # module torch.nn.modules.linear, imported by Dynamo
__import_torch_dot_nn_dot_modules_dot_module = G['__import_torch_dot_nn_dot_modules_dot_module']  # module torch.nn.modules.module, imported by Dynamo
torch = G['torch']  # module: <module 'torch' from '/tmp/tv/lib/python3.11/site-package...


# ----------------------------------------------------------------------
# function forward (/work/main/src/unveil/dynamo/demo.py:12)
# ----------------------------------------------------------------------
# The original bytecode, decompiled (what runs when no cache entry's guard passes).
def __original_TinyNet_forward(self, x):
    h = torch.relu(self.encode(x))
    if h.mean() > 0.1:
        h = h * 2
    return self.decode(h)


# ----------------------------------------------------------------------
# cache entry for compile 0/1 of forward
# ----------------------------------------------------------------------
# Graph __compiled_fn_7_790e0c17_0e40_40fd_bde3_e345f779959a (file TinyNet.forward.compile_0_1.graph.compiled_fn_7.py): `forward` below is what the backend compiled;
# __compiled_fn_7_790e0c17_0e40_40fd_bde3_e345f779959a is the backend's compiled version of it, taken from the module's globals.
class __compiled_fn_7_790e0c17_0e40_40fd_bde3_e345f779959a_GraphModule(torch.nn.Module):
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
# Guards of compile 0/1 of forward (/work/main/src/unveil/dynamo/demo.py:12).
def __guard_compile_0_1_for_TinyNet_forward(L, G, **___kwargs_ignored):
    """True when Dynamo may run the transformed code of compile 0/1 of forward."""
    try:
        # LAMBDA_GUARD: condition (from: _dynamo/output_graph.py:1135 in init_ambient_guards)
        if not (check_saved_tensors_hooks(None)):
            return False
        # GLOBAL_STATE: global torch state (grad mode, autocast, default dtype, ...)
        if not (check_global_state('{"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":true,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}')):
            return False
        # TORCH_FUNCTION_MODE_STACK: active torch function modes
        if not (check_torch_function_mode_stack([])):
            return False
        # DEFAULT_DEVICE: default device (from: _dynamo/output_graph.py:1122 in init_ambient_guards)
        if not (utils_device.CURRENT_DEVICE == None):
            return False
        # TENSOR_MATCH on L['x']: tensor type, dispatch keys, dtype, device, requires_grad, sizes and strides (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_tensor(L['x'], 'torch.Tensor', 'DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)', torch.float32, device=None, requires_grad=False, size=[None, 8], stride=[8, 1])):
            return False
        # DIMENSION_DYNAMIC_MARKING_GUARD on L['x']: not marked dynamic since compile time (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not ((hasattr(L['x'], '_dynamo_dynamic_indices') == False)
            and (hasattr(L['x'], '_dynamo_weak_dynamic_indices') == False)
            and (hasattr(L['x'], '_dynamo_unbacked_indices') == False)
            and (hasattr(L['x'], '_dynamo_strict_unbacked_indices') == False)
            and (hasattr(L['x'], '_dynamo_static_indices') == False)):
            return False
        # ID_MATCH on G['torch']: object identity (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward)
        if not (check_obj_id(G['torch'], 140357371992224)):
            return False
        # ID_MATCH on G['torch'].relu: object identity (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward)
        if not (check_obj_id(G['torch'].relu, 140357361453792)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_linear']: object identity (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_linear'], 140356850294496)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_linear'].F: object identity (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_linear'].F, 140356850296416)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_linear'].F.linear: object identity (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_linear'].F.linear, 140357358079488)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']: object identity (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'], 140356932245744)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_hooks: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_hooks: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_pre_hooks: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_pre_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_pre_hooks: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_pre_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on L['self']: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type TinyNet))
        if not (check_type_id(L['self'], 93854953070128)):
            return False
        # TYPE_MATCH on L['self']._modules: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type dict))
        if not (check_type_id(L['self']._modules, 140357405085344)):
            return False
        # TYPE_MATCH on L['self']._modules['encode']: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type Linear))
        if not (check_type_id(L['self']._modules['encode'], 93854909934960)):
            return False
        # DICT_CONTAINS on L['self']._modules['encode'].__dict__: dictionary key presence (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward)
        if not (not dict_contains('forward', L['self']._modules['encode'].__dict__)):
            return False
        # TYPE_MATCH on L['self']._modules['encode']._parameters: exact type (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward (HINT: type dict))
        if not (check_type_id(L['self']._modules['encode']._parameters, 140357405085344)):
            return False
        # TENSOR_MATCH on L['self']._modules['encode']._parameters['bias']: tensor type, dispatch keys, dtype, device, requires_grad, sizes and strides (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_tensor(L['self']._modules['encode']._parameters['bias'], 'torch.nn.parameter.Parameter', 'DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)', torch.float32, device=None, requires_grad=True, size=[16], stride=[1])):
            return False
        # DIMENSION_DYNAMIC_MARKING_GUARD on L['self']._modules['encode']._parameters['bias']: not marked dynamic since compile time (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not ((hasattr(L['self']._modules['encode']._parameters['bias'], '_dynamo_dynamic_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['bias'], '_dynamo_weak_dynamic_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['bias'], '_dynamo_unbacked_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['bias'], '_dynamo_strict_unbacked_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['bias'], '_dynamo_static_indices') == False)):
            return False
        # TENSOR_MATCH on L['self']._modules['encode']._parameters['weight']: tensor type, dispatch keys, dtype, device, requires_grad, sizes and strides (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_tensor(L['self']._modules['encode']._parameters['weight'], 'torch.nn.parameter.Parameter', 'DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)', torch.float32, device=None, requires_grad=True, size=[16, 8], stride=[8, 1])):
            return False
        # DIMENSION_DYNAMIC_MARKING_GUARD on L['self']._modules['encode']._parameters['weight']: not marked dynamic since compile time (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not ((hasattr(L['self']._modules['encode']._parameters['weight'], '_dynamo_dynamic_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['weight'], '_dynamo_weak_dynamic_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['weight'], '_dynamo_unbacked_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['weight'], '_dynamo_strict_unbacked_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['weight'], '_dynamo_static_indices') == False)):
            return False
        # TYPE_MATCH on L['self']._parameters: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type dict))
        if not (check_type_id(L['self']._parameters, 140357405085344)):
            return False
        # LAMBDA_GUARD: condition (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward (user code shown is first use of this value--the guard itself is not due user code but due to 0/1 specialization in the framework; to avoid specialization try torch._dynamo.decorators.mark_unbacked(tensor, dim)))
        if not (2 <= L['x'].size()[0]):
            return False
    except (KeyError, AttributeError, IndexError, TypeError):
        return False  # a value the guard reads is missing: Dynamo's accessor fails too
    return True
# Transformed code (file TinyNet.forward.compile_0_1.transformed.py).
def __transformed_compile_0_1_for_TinyNet_forward(self, x):
    __s1 = __compiled_fn_7_790e0c17_0e40_40fd_bde3_e345f779959a
    __s3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_1 = __s3
    tmp_2 = __s3()
    __s2 = self._modules['encode']._parameters
    tmp_3 = __s2
    __s2 = __s2['weight']
    __s3 = tmp_3['bias']
    __s5 = __import_torch_dot__dynamo_dot_utils.call_size
    tmp_4 = __s5
    tmp_5 = x
    __s4 = __s5(x, 0)
    __s7 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    tmp_6 = __s7
    __s7(tmp_2)
    __s0 = __s1(__s2, __s3, __s4, tmp_5)
    del tmp_3
    del tmp_5
    del tmp_1
    del tmp_4
    del tmp_6
    graph_out_0 = __s0
    __s0 = [()]
    __s1 = graph_out_0[0]
    __s2 = [graph_out_0[1]]
    __s3 = __s2[0:1]
    __s3.extend([self])
    __s2 = [__s3]
    del graph_out_0
    if __s1:
        __s2[0][0:0] = []
        __s2_1 = __s2[0]
        __s1 = [__s2_1]
        __s2 = __s0[0]
        __s1_1 = [__s2]
        __s2 = __s1[0]
        __s4 = __s2[1]
        __s5 = __s2[0]
        __s3 = [__s4, __s5]
        __s2[0:] = __s3
        __s2 = []
        __s2_1 = __resume_at_128_8
        __s4 = __s1[-1]
        del __s1[-1]
        __s2 = [__s2, __s1]
        __s2.extend(__s4)
        return __s2_1(*__s2)
    else:
        __s2[0][0:0] = []
        __s2_1 = __s2[0]
        __s1 = [__s2_1]
        __s2 = __s0[0]
        __s1_1 = [__s2]
        __s2 = __s1[0]
        __s4 = __s2[1]
        __s5 = __s2[0]
        __s3 = [__s4, __s5]
        __s2[0:] = __s3
        __s2 = []
        __s2_1 = __resume_at_138_9
        __s4 = __s1[-1]
        del __s1[-1]
        __s2 = [__s2, __s1]
        __s2.extend(__s4)
        return __s2_1(*__s2)


# ----------------------------------------------------------------------
# cache entry for compile 0/0 of forward
# ----------------------------------------------------------------------
# Graph __compiled_fn_1_52daa921_5cf3_47d7_87d1_38b8b2e58a24 (file TinyNet.forward.compile_0_0.graph.compiled_fn_1.py): `forward` below is what the backend compiled;
# __compiled_fn_1_52daa921_5cf3_47d7_87d1_38b8b2e58a24 is the backend's compiled version of it, taken from the module's globals.
class __compiled_fn_1_52daa921_5cf3_47d7_87d1_38b8b2e58a24_GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_encode_parameters_weight_: "f32[16, 8][8, 1]cpu", L_self_modules_encode_parameters_bias_: "f32[16][1]cpu", L_x_: "f32[2, 8][8, 1]cpu"):
        l_self_modules_encode_parameters_weight_ = L_self_modules_encode_parameters_weight_
        l_self_modules_encode_parameters_bias_ = L_self_modules_encode_parameters_bias_
        l_x_ = L_x_

        # File: /work/main/src/unveil/dynamo/demo.py:13 in forward, code: h = torch.relu(self.encode(x))
        linear: "f32[2, 16][16, 1]cpu" = torch._C._nn.linear(l_x_, l_self_modules_encode_parameters_weight_, l_self_modules_encode_parameters_bias_);  l_x_ = l_self_modules_encode_parameters_weight_ = l_self_modules_encode_parameters_bias_ = None
        h: "f32[2, 16][16, 1]cpu" = torch.relu(linear);  linear = None

        # File: /work/main/src/unveil/dynamo/demo.py:14 in forward, code: if h.mean() > 0.1:          # data-dependent branch: a graph break
        mean: "f32[][]cpu" = h.mean()
        gt: "b8[][]cpu" = mean > 0.1;  mean = None
        return (gt, h)
# Guards of compile 0/0 of forward (/work/main/src/unveil/dynamo/demo.py:12).
def __guard_compile_0_0_for_TinyNet_forward(L, G, **___kwargs_ignored):
    """True when Dynamo may run the transformed code of compile 0/0 of forward."""
    try:
        # LAMBDA_GUARD: condition (from: _dynamo/output_graph.py:1135 in init_ambient_guards)
        if not (check_saved_tensors_hooks(None)):
            return False
        # GLOBAL_STATE: global torch state (grad mode, autocast, default dtype, ...)
        if not (check_global_state('{"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":true,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}')):
            return False
        # TORCH_FUNCTION_MODE_STACK: active torch function modes
        if not (check_torch_function_mode_stack([])):
            return False
        # DEFAULT_DEVICE: default device (from: _dynamo/output_graph.py:1122 in init_ambient_guards)
        if not (utils_device.CURRENT_DEVICE == None):
            return False
        # TENSOR_MATCH on L['x']: tensor type, dispatch keys, dtype, device, requires_grad, sizes and strides (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_tensor(L['x'], 'torch.Tensor', 'DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)', torch.float32, device=None, requires_grad=False, size=[2, 8], stride=[8, 1])):
            return False
        # DIMENSION_DYNAMIC_MARKING_GUARD on L['x']: not marked dynamic since compile time (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not ((hasattr(L['x'], '_dynamo_dynamic_indices') == False)
            and (hasattr(L['x'], '_dynamo_weak_dynamic_indices') == False)
            and (hasattr(L['x'], '_dynamo_unbacked_indices') == False)
            and (hasattr(L['x'], '_dynamo_strict_unbacked_indices') == False)
            and (hasattr(L['x'], '_dynamo_static_indices') == False)):
            return False
        # ID_MATCH on G['torch']: object identity (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward)
        if not (check_obj_id(G['torch'], 140357371992224)):
            return False
        # ID_MATCH on G['torch'].relu: object identity (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward)
        if not (check_obj_id(G['torch'].relu, 140357361453792)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_linear']: object identity (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_linear'], 140356850294496)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_linear'].F: object identity (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_linear'].F, 140356850296416)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_linear'].F.linear: object identity (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_linear'].F.linear, 140357358079488)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']: object identity (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'], 140356932245744)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_hooks: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_hooks: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_pre_hooks: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_pre_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_pre_hooks: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_pre_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on L['self']: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type TinyNet))
        if not (check_type_id(L['self'], 93854953070128)):
            return False
        # TYPE_MATCH on L['self']._modules: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type dict))
        if not (check_type_id(L['self']._modules, 140357405085344)):
            return False
        # TYPE_MATCH on L['self']._modules['encode']: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type Linear))
        if not (check_type_id(L['self']._modules['encode'], 93854909934960)):
            return False
        # DICT_CONTAINS on L['self']._modules['encode'].__dict__: dictionary key presence (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward)
        if not (not dict_contains('forward', L['self']._modules['encode'].__dict__)):
            return False
        # TYPE_MATCH on L['self']._modules['encode']._parameters: exact type (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward (HINT: type dict))
        if not (check_type_id(L['self']._modules['encode']._parameters, 140357405085344)):
            return False
        # TENSOR_MATCH on L['self']._modules['encode']._parameters['bias']: tensor type, dispatch keys, dtype, device, requires_grad, sizes and strides (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_tensor(L['self']._modules['encode']._parameters['bias'], 'torch.nn.parameter.Parameter', 'DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)', torch.float32, device=None, requires_grad=True, size=[16], stride=[1])):
            return False
        # DIMENSION_DYNAMIC_MARKING_GUARD on L['self']._modules['encode']._parameters['bias']: not marked dynamic since compile time (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not ((hasattr(L['self']._modules['encode']._parameters['bias'], '_dynamo_dynamic_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['bias'], '_dynamo_weak_dynamic_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['bias'], '_dynamo_unbacked_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['bias'], '_dynamo_strict_unbacked_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['bias'], '_dynamo_static_indices') == False)):
            return False
        # TENSOR_MATCH on L['self']._modules['encode']._parameters['weight']: tensor type, dispatch keys, dtype, device, requires_grad, sizes and strides (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_tensor(L['self']._modules['encode']._parameters['weight'], 'torch.nn.parameter.Parameter', 'DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)', torch.float32, device=None, requires_grad=True, size=[16, 8], stride=[8, 1])):
            return False
        # DIMENSION_DYNAMIC_MARKING_GUARD on L['self']._modules['encode']._parameters['weight']: not marked dynamic since compile time (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not ((hasattr(L['self']._modules['encode']._parameters['weight'], '_dynamo_dynamic_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['weight'], '_dynamo_weak_dynamic_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['weight'], '_dynamo_unbacked_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['weight'], '_dynamo_strict_unbacked_indices') == False)
            and (hasattr(L['self']._modules['encode']._parameters['weight'], '_dynamo_static_indices') == False)):
            return False
        # TYPE_MATCH on L['self']._parameters: exact type (from: h = torch.relu(self.encode(x)) # ork/main/src/unveil/dynamo/demo.py:13 in forward (HINT: type dict))
        if not (check_type_id(L['self']._parameters, 140357405085344)):
            return False
    except (KeyError, AttributeError, IndexError, TypeError):
        return False  # a value the guard reads is missing: Dynamo's accessor fails too
    return True
# Transformed code (file TinyNet.forward.compile_0_0.transformed.py).
def __transformed_compile_0_0_for_TinyNet_forward(self, x):
    __s1 = __compiled_fn_1_52daa921_5cf3_47d7_87d1_38b8b2e58a24
    __s3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_1 = __s3
    tmp_2 = __s3()
    __s2 = self._modules['encode']._parameters
    tmp_3 = __s2
    __s2 = __s2['weight']
    __s3 = tmp_3['bias']
    __s6 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    tmp_4 = __s6
    __s6(tmp_2)
    __s0 = __s1(__s2, __s3, x)
    del tmp_3
    del tmp_1
    del tmp_4
    graph_out_0 = __s0
    __s0 = [()]
    __s1 = graph_out_0[0]
    __s2 = [graph_out_0[1]]
    __s3 = __s2[0:1]
    __s3.extend([self])
    __s2 = [__s3]
    del graph_out_0
    if __s1:
        __s2[0][0:0] = []
        __s2_1 = __s2[0]
        __s1 = [__s2_1]
        __s2 = __s0[0]
        __s1_1 = [__s2]
        __s2 = __s1[0]
        __s4 = __s2[1]
        __s5 = __s2[0]
        __s3 = [__s4, __s5]
        __s2[0:] = __s3
        __s2 = []
        __s2_1 = __resume_at_128_2
        __s4 = __s1[-1]
        del __s1[-1]
        __s2 = [__s2, __s1]
        __s2.extend(__s4)
        return __s2_1(*__s2)
    else:
        __s2[0][0:0] = []
        __s2_1 = __s2[0]
        __s1 = [__s2_1]
        __s2 = __s0[0]
        __s1_1 = [__s2]
        __s2 = __s1[0]
        __s4 = __s2[1]
        __s5 = __s2[0]
        __s3 = [__s4, __s5]
        __s2[0:] = __s3
        __s2 = []
        __s2_1 = __resume_at_138_3
        __s4 = __s1[-1]
        del __s1[-1]
        __s2 = [__s2, __s1]
        __s2.extend(__s4)
        return __s2_1(*__s2)


# ----------------------------------------------------------------------
# resume function torch_dynamo_resume_in_forward_at_14 (/work/main/src/unveil/dynamo/demo.py:14)
# ----------------------------------------------------------------------
# The original bytecode, decompiled (what runs when no cache entry's guard passes).
def __original_TinyNet_torch_dynamo_resume_in_forward_at_14(__nested_resume_fns, __nested_frame_values, self, h):
    __is_tracing_resume_prologue = True
    __is_tracing_resume_prologue = False
    h = h * 2
    return self.decode(h)


# ----------------------------------------------------------------------
# cache entry for compile 1/1 of torch_dynamo_resume_in_forward_at_14
# ----------------------------------------------------------------------
# Graph __compiled_fn_11_78f378e3_0712_4603_9ce7_a0ca5b081dff (file TinyNet.torch_dynamo_resume_in_forward_at_14.compile_1_1.graph.compiled_fn_11.py): `forward` below is what the backend compiled;
# __compiled_fn_11_78f378e3_0712_4603_9ce7_a0ca5b081dff is the backend's compiled version of it, taken from the module's globals.
class __compiled_fn_11_78f378e3_0712_4603_9ce7_a0ca5b081dff_GraphModule(torch.nn.Module):
    def forward(self, s75: "Sym(s75)", L_h_: "f32[s75, 16][16, 1]cpu", L_self_modules_decode_parameters_weight_: "f32[4, 16][16, 1]cpu", L_self_modules_decode_parameters_bias_: "f32[4][1]cpu"):
        l_h_ = L_h_
        l_self_modules_decode_parameters_weight_ = L_self_modules_decode_parameters_weight_
        l_self_modules_decode_parameters_bias_ = L_self_modules_decode_parameters_bias_

        # File: /work/main/src/unveil/dynamo/demo.py:15 in torch_dynamo_resume_in_forward_at_14, code: h = h * 2
        h: "f32[s75, 16][16, 1]cpu" = l_h_ * 2;  l_h_ = None

        # File: /work/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14, code: return self.decode(h)
        linear: "f32[s75, 4][4, 1]cpu" = torch._C._nn.linear(h, l_self_modules_decode_parameters_weight_, l_self_modules_decode_parameters_bias_);  h = l_self_modules_decode_parameters_weight_ = l_self_modules_decode_parameters_bias_ = None
        return (linear,)
# Guards of compile 1/1 of torch_dynamo_resume_in_forward_at_14 (/work/main/src/unveil/dynamo/demo.py:14).
def __guard_compile_1_1_for_TinyNet_torch_dynamo_resume_in_forward_at_14(L, G, **___kwargs_ignored):
    """True when Dynamo may run the transformed code of compile 1/1 of torch_dynamo_resume_in_forward_at_14."""
    try:
        # LAMBDA_GUARD: condition (from: _dynamo/output_graph.py:1135 in init_ambient_guards)
        if not (check_saved_tensors_hooks(None)):
            return False
        # GLOBAL_STATE: global torch state (grad mode, autocast, default dtype, ...)
        if not (check_global_state('{"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":true,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}')):
            return False
        # TORCH_FUNCTION_MODE_STACK: active torch function modes
        if not (check_torch_function_mode_stack([])):
            return False
        # DEFAULT_DEVICE: default device (from: _dynamo/output_graph.py:1122 in init_ambient_guards)
        if not (utils_device.CURRENT_DEVICE == None):
            return False
        # TENSOR_MATCH on L['h']: tensor type, dispatch keys, dtype, device, requires_grad, sizes and strides (from: h = h * 2 # ork/main/src/unveil/dynamo/demo.py:15 in torch_dynamo_resume_in_forward_at_14)
        if not (check_tensor(L['h'], 'torch.Tensor', 'DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)', torch.float32, device=None, requires_grad=True, size=[None, 16], stride=[16, 1])):
            return False
        # DIMENSION_DYNAMIC_MARKING_GUARD on L['h']: not marked dynamic since compile time (from: h = h * 2 # ork/main/src/unveil/dynamo/demo.py:15 in torch_dynamo_resume_in_forward_at_14)
        if not ((hasattr(L['h'], '_dynamo_dynamic_indices') == False)
            and (hasattr(L['h'], '_dynamo_weak_dynamic_indices') == False)
            and (hasattr(L['h'], '_dynamo_unbacked_indices') == False)
            and (hasattr(L['h'], '_dynamo_strict_unbacked_indices') == False)
            and (hasattr(L['h'], '_dynamo_static_indices') == False)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_linear']: object identity (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_linear'], 140356850294496)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_linear'].F: object identity (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_linear'].F, 140356850296416)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_linear'].F.linear: object identity (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_linear'].F.linear, 140357358079488)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']: object identity (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'], 140356932245744)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_hooks: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_hooks: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_pre_hooks: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_pre_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_pre_hooks: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_pre_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on L['self']: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type TinyNet))
        if not (check_type_id(L['self'], 93854953070128)):
            return False
        # TYPE_MATCH on L['self']._modules: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type dict))
        if not (check_type_id(L['self']._modules, 140357405085344)):
            return False
        # TYPE_MATCH on L['self']._modules['decode']: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type Linear))
        if not (check_type_id(L['self']._modules['decode'], 93854909934960)):
            return False
        # DICT_CONTAINS on L['self']._modules['decode'].__dict__: dictionary key presence (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14)
        if not (not dict_contains('forward', L['self']._modules['decode'].__dict__)):
            return False
        # TYPE_MATCH on L['self']._modules['decode']._parameters: exact type (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward (HINT: type dict))
        if not (check_type_id(L['self']._modules['decode']._parameters, 140357405085344)):
            return False
        # TENSOR_MATCH on L['self']._modules['decode']._parameters['bias']: tensor type, dispatch keys, dtype, device, requires_grad, sizes and strides (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_tensor(L['self']._modules['decode']._parameters['bias'], 'torch.nn.parameter.Parameter', 'DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)', torch.float32, device=None, requires_grad=True, size=[4], stride=[1])):
            return False
        # DIMENSION_DYNAMIC_MARKING_GUARD on L['self']._modules['decode']._parameters['bias']: not marked dynamic since compile time (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not ((hasattr(L['self']._modules['decode']._parameters['bias'], '_dynamo_dynamic_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['bias'], '_dynamo_weak_dynamic_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['bias'], '_dynamo_unbacked_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['bias'], '_dynamo_strict_unbacked_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['bias'], '_dynamo_static_indices') == False)):
            return False
        # TENSOR_MATCH on L['self']._modules['decode']._parameters['weight']: tensor type, dispatch keys, dtype, device, requires_grad, sizes and strides (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_tensor(L['self']._modules['decode']._parameters['weight'], 'torch.nn.parameter.Parameter', 'DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)', torch.float32, device=None, requires_grad=True, size=[4, 16], stride=[16, 1])):
            return False
        # DIMENSION_DYNAMIC_MARKING_GUARD on L['self']._modules['decode']._parameters['weight']: not marked dynamic since compile time (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not ((hasattr(L['self']._modules['decode']._parameters['weight'], '_dynamo_dynamic_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['weight'], '_dynamo_weak_dynamic_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['weight'], '_dynamo_unbacked_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['weight'], '_dynamo_strict_unbacked_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['weight'], '_dynamo_static_indices') == False)):
            return False
        # TYPE_MATCH on L['self']._parameters: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type dict))
        if not (check_type_id(L['self']._parameters, 140357405085344)):
            return False
        # LAMBDA_GUARD: condition (from: h = h * 2 # ork/main/src/unveil/dynamo/demo.py:15 in torch_dynamo_resume_in_forward_at_14 (user code shown is first use of this value--the guard itself is not due user code but due to 0/1 specialization in the framework; to avoid specialization try torch._dynamo.decorators.mark_unbacked(tensor, dim)))
        if not (2 <= L['h'].size()[0]):
            return False
    except (KeyError, AttributeError, IndexError, TypeError):
        return False  # a value the guard reads is missing: Dynamo's accessor fails too
    return True
# Transformed code (file TinyNet.torch_dynamo_resume_in_forward_at_14.compile_1_1.transformed.py).
def __transformed_compile_1_1_for_TinyNet_torch_dynamo_resume_in_forward_at_14(__nested_resume_fns, __nested_frame_values, self, h):
    __s1 = __compiled_fn_11_78f378e3_0712_4603_9ce7_a0ca5b081dff
    __s3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_1 = __s3
    tmp_2 = __s3()
    __s3 = __import_torch_dot__dynamo_dot_utils.call_size
    tmp_3 = __s3
    tmp_4 = h
    __s2 = __s3(h, 0)
    __s4 = self._modules['decode']._parameters
    tmp_5 = __s4
    __s4 = __s4['weight']
    __s5 = tmp_5['bias']
    __s7 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    tmp_6 = __s7
    __s7(tmp_2)
    __s0 = __s1(__s2, tmp_4, __s4, __s5)
    del tmp_4
    del tmp_5
    del tmp_1
    del tmp_3
    del tmp_6
    graph_out_0 = __s0
    __s0 = []
    __s1 = graph_out_0[0]
    __s2 = []
    __s3 = []
    __s3.extend([])
    __s2 = [__s3]
    del graph_out_0
    return __s1


# ----------------------------------------------------------------------
# cache entry for compile 1/0 of torch_dynamo_resume_in_forward_at_14
# ----------------------------------------------------------------------
# Graph __compiled_fn_5_559a5cd5_dfb8_4f2a_a126_6eea987b6aca (file TinyNet.torch_dynamo_resume_in_forward_at_14.compile_1_0.graph.compiled_fn_5.py): `forward` below is what the backend compiled;
# __compiled_fn_5_559a5cd5_dfb8_4f2a_a126_6eea987b6aca is the backend's compiled version of it, taken from the module's globals.
class __compiled_fn_5_559a5cd5_dfb8_4f2a_a126_6eea987b6aca_GraphModule(torch.nn.Module):
    def forward(self, L_h_: "f32[2, 16][16, 1]cpu", L_self_modules_decode_parameters_weight_: "f32[4, 16][16, 1]cpu", L_self_modules_decode_parameters_bias_: "f32[4][1]cpu"):
        l_h_ = L_h_
        l_self_modules_decode_parameters_weight_ = L_self_modules_decode_parameters_weight_
        l_self_modules_decode_parameters_bias_ = L_self_modules_decode_parameters_bias_

        # File: /work/main/src/unveil/dynamo/demo.py:15 in torch_dynamo_resume_in_forward_at_14, code: h = h * 2
        h: "f32[2, 16][16, 1]cpu" = l_h_ * 2;  l_h_ = None

        # File: /work/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14, code: return self.decode(h)
        linear: "f32[2, 4][4, 1]cpu" = torch._C._nn.linear(h, l_self_modules_decode_parameters_weight_, l_self_modules_decode_parameters_bias_);  h = l_self_modules_decode_parameters_weight_ = l_self_modules_decode_parameters_bias_ = None
        return (linear,)
# Guards of compile 1/0 of torch_dynamo_resume_in_forward_at_14 (/work/main/src/unveil/dynamo/demo.py:14).
def __guard_compile_1_0_for_TinyNet_torch_dynamo_resume_in_forward_at_14(L, G, **___kwargs_ignored):
    """True when Dynamo may run the transformed code of compile 1/0 of torch_dynamo_resume_in_forward_at_14."""
    try:
        # LAMBDA_GUARD: condition (from: _dynamo/output_graph.py:1135 in init_ambient_guards)
        if not (check_saved_tensors_hooks(None)):
            return False
        # GLOBAL_STATE: global torch state (grad mode, autocast, default dtype, ...)
        if not (check_global_state('{"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":true,"num_threads":2,"torch_function":true,"torch_function_all_disabled":false}')):
            return False
        # TORCH_FUNCTION_MODE_STACK: active torch function modes
        if not (check_torch_function_mode_stack([])):
            return False
        # DEFAULT_DEVICE: default device (from: _dynamo/output_graph.py:1122 in init_ambient_guards)
        if not (utils_device.CURRENT_DEVICE == None):
            return False
        # TENSOR_MATCH on L['h']: tensor type, dispatch keys, dtype, device, requires_grad, sizes and strides (from: h = h * 2 # ork/main/src/unveil/dynamo/demo.py:15 in torch_dynamo_resume_in_forward_at_14)
        if not (check_tensor(L['h'], 'torch.Tensor', 'DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)', torch.float32, device=None, requires_grad=True, size=[2, 16], stride=[16, 1])):
            return False
        # DIMENSION_DYNAMIC_MARKING_GUARD on L['h']: not marked dynamic since compile time (from: h = h * 2 # ork/main/src/unveil/dynamo/demo.py:15 in torch_dynamo_resume_in_forward_at_14)
        if not ((hasattr(L['h'], '_dynamo_dynamic_indices') == False)
            and (hasattr(L['h'], '_dynamo_weak_dynamic_indices') == False)
            and (hasattr(L['h'], '_dynamo_unbacked_indices') == False)
            and (hasattr(L['h'], '_dynamo_strict_unbacked_indices') == False)
            and (hasattr(L['h'], '_dynamo_static_indices') == False)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_linear']: object identity (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_linear'], 140356850294496)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_linear'].F: object identity (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_linear'].F, 140356850296416)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_linear'].F.linear: object identity (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_linear'].F.linear, 140357358079488)):
            return False
        # ID_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']: object identity (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14)
        if not (check_obj_id(G['__import_torch_dot_nn_dot_modules_dot_module'], 140356932245744)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_hooks: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_hooks: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_pre_hooks: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_forward_pre_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_pre_hooks: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type OrderedDict))
        if not (check_type_id(G['__import_torch_dot_nn_dot_modules_dot_module']._global_backward_pre_hooks, 140357405090496)):
            return False
        # TYPE_MATCH on L['self']: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type TinyNet))
        if not (check_type_id(L['self'], 93854953070128)):
            return False
        # TYPE_MATCH on L['self']._modules: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type dict))
        if not (check_type_id(L['self']._modules, 140357405085344)):
            return False
        # TYPE_MATCH on L['self']._modules['decode']: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type Linear))
        if not (check_type_id(L['self']._modules['decode'], 93854909934960)):
            return False
        # DICT_CONTAINS on L['self']._modules['decode'].__dict__: dictionary key presence (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14)
        if not (not dict_contains('forward', L['self']._modules['decode'].__dict__)):
            return False
        # TYPE_MATCH on L['self']._modules['decode']._parameters: exact type (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward (HINT: type dict))
        if not (check_type_id(L['self']._modules['decode']._parameters, 140357405085344)):
            return False
        # TENSOR_MATCH on L['self']._modules['decode']._parameters['bias']: tensor type, dispatch keys, dtype, device, requires_grad, sizes and strides (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_tensor(L['self']._modules['decode']._parameters['bias'], 'torch.nn.parameter.Parameter', 'DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)', torch.float32, device=None, requires_grad=True, size=[4], stride=[1])):
            return False
        # DIMENSION_DYNAMIC_MARKING_GUARD on L['self']._modules['decode']._parameters['bias']: not marked dynamic since compile time (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not ((hasattr(L['self']._modules['decode']._parameters['bias'], '_dynamo_dynamic_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['bias'], '_dynamo_weak_dynamic_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['bias'], '_dynamo_unbacked_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['bias'], '_dynamo_strict_unbacked_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['bias'], '_dynamo_static_indices') == False)):
            return False
        # TENSOR_MATCH on L['self']._modules['decode']._parameters['weight']: tensor type, dispatch keys, dtype, device, requires_grad, sizes and strides (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not (check_tensor(L['self']._modules['decode']._parameters['weight'], 'torch.nn.parameter.Parameter', 'DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)', torch.float32, device=None, requires_grad=True, size=[4, 16], stride=[16, 1])):
            return False
        # DIMENSION_DYNAMIC_MARKING_GUARD on L['self']._modules['decode']._parameters['weight']: not marked dynamic since compile time (from: return F.linear(input, self.weight, self.bias) # nn/modules/linear.py:134 in forward)
        if not ((hasattr(L['self']._modules['decode']._parameters['weight'], '_dynamo_dynamic_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['weight'], '_dynamo_weak_dynamic_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['weight'], '_dynamo_unbacked_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['weight'], '_dynamo_strict_unbacked_indices') == False)
            and (hasattr(L['self']._modules['decode']._parameters['weight'], '_dynamo_static_indices') == False)):
            return False
        # TYPE_MATCH on L['self']._parameters: exact type (from: return self.decode(h) # ork/main/src/unveil/dynamo/demo.py:16 in torch_dynamo_resume_in_forward_at_14 (HINT: type dict))
        if not (check_type_id(L['self']._parameters, 140357405085344)):
            return False
    except (KeyError, AttributeError, IndexError, TypeError):
        return False  # a value the guard reads is missing: Dynamo's accessor fails too
    return True
# Transformed code (file TinyNet.torch_dynamo_resume_in_forward_at_14.compile_1_0.transformed.py).
def __transformed_compile_1_0_for_TinyNet_torch_dynamo_resume_in_forward_at_14(__nested_resume_fns, __nested_frame_values, self, h):
    __s1 = __compiled_fn_5_559a5cd5_dfb8_4f2a_a126_6eea987b6aca
    __s3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_1 = __s3
    tmp_2 = __s3()
    __s3 = self._modules['decode']._parameters
    tmp_3 = __s3
    __s3 = __s3['weight']
    __s4 = tmp_3['bias']
    __s6 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    tmp_4 = __s6
    __s6(tmp_2)
    __s0 = __s1(h, __s3, __s4)
    del tmp_3
    del tmp_1
    del tmp_4
    graph_out_0 = __s0
    __s0 = []
    __s1 = graph_out_0[0]
    __s2 = []
    __s3 = []
    __s3.extend([])
    __s2 = [__s3]
    del graph_out_0
    return __s1


# ----------------------------------------------------------------------
# dispatch of torch_dynamo_resume_in_forward_at_14: what Dynamo's frame evaluation does on each call
# ----------------------------------------------------------------------
def __resume_at_128_2(__nested_resume_fns, __nested_frame_values, self, h):
    L = {'__nested_resume_fns': __nested_resume_fns, '__nested_frame_values': __nested_frame_values, 'self': self, 'h': h}  # the frame's locals on entry
    if __guard_compile_1_1_for_TinyNet_torch_dynamo_resume_in_forward_at_14(L, G):
        return __transformed_compile_1_1_for_TinyNet_torch_dynamo_resume_in_forward_at_14(__nested_resume_fns, __nested_frame_values, self, h)
    if __guard_compile_1_0_for_TinyNet_torch_dynamo_resume_in_forward_at_14(L, G):
        return __transformed_compile_1_0_for_TinyNet_torch_dynamo_resume_in_forward_at_14(__nested_resume_fns, __nested_frame_values, self, h)
    # No entry's guard passes: Dynamo compiles the frame anew and adds an entry
    # (or, past its recompile limit, runs the original bytecode).
    return __original_TinyNet_torch_dynamo_resume_in_forward_at_14(__nested_resume_fns, __nested_frame_values, self, h)
__resume_at_128_8 = __resume_at_128_2  # Dynamo made one global per compile that calls it


# ----------------------------------------------------------------------
# resume function torch_dynamo_resume_in_forward_at_14 (/work/main/src/unveil/dynamo/demo.py:14)
# ----------------------------------------------------------------------
# The original bytecode, decompiled (what runs when no cache entry's guard passes).
def __original_TinyNet_torch_dynamo_resume_in_forward_at_14_2(__nested_resume_fns, __nested_frame_values, self, h):
    __is_tracing_resume_prologue = True
    __is_tracing_resume_prologue = False
    return self.decode(h)


# ----------------------------------------------------------------------
# dispatch of torch_dynamo_resume_in_forward_at_14: what Dynamo's frame evaluation does on each call
# ----------------------------------------------------------------------
def __resume_at_138_3(__nested_resume_fns, __nested_frame_values, self, h):
    L = {'__nested_resume_fns': __nested_resume_fns, '__nested_frame_values': __nested_frame_values, 'self': self, 'h': h}  # the frame's locals on entry
    # No entry's guard passes: Dynamo compiles the frame anew and adds an entry
    # (or, past its recompile limit, runs the original bytecode).
    return __original_TinyNet_torch_dynamo_resume_in_forward_at_14_2(__nested_resume_fns, __nested_frame_values, self, h)
__resume_at_138_9 = __resume_at_138_3  # Dynamo made one global per compile that calls it


# ----------------------------------------------------------------------
# dispatch of forward: what Dynamo's frame evaluation does on each call
# ----------------------------------------------------------------------
def forward(self, x):
    L = {'self': self, 'x': x}  # the frame's locals on entry
    if __guard_compile_0_1_for_TinyNet_forward(L, G):
        return __transformed_compile_0_1_for_TinyNet_forward(self, x)
    if __guard_compile_0_0_for_TinyNet_forward(L, G):
        return __transformed_compile_0_0_for_TinyNet_forward(self, x)
    # No entry's guard passes: Dynamo compiles the frame anew and adds an entry
    # (or, past its recompile limit, runs the original bytecode).
    return __original_TinyNet_forward(self, x)
