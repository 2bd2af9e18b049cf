# Guards of compile 1/1 of torch_dynamo_resume_in_forward_at_14 (/work/main/src/unveil/dynamo/demo.py:14).
# Dynamo's frame evaluation runs this entry's transformed code (TinyNet.torch_dynamo_resume_in_forward_at_14.compile_1_1.transformed.py)
# only when __guard_compile_1_1_for_TinyNet_torch_dynamo_resume_in_forward_at_14(L, G) is True; L holds the frame's locals, G its globals.
# Compiled anew because an earlier entry's guard failed: 1/0: tensor 'h' size mismatch at index 0. expected 2, actual 3
import torch
from unveil.dynamo.guard_runtime import check_global_state, check_obj_id, check_saved_tensors_hooks, check_tensor, check_torch_function_mode_stack, check_type_id, dict_contains, utils_device


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
