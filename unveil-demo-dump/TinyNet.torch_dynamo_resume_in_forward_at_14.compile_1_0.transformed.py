# Transformed code of torch_dynamo_resume_in_forward_at_14 (compile 1/0): the bytecode Dynamo runs in place of the original
# Original: /work/main/src/unveil/dynamo/demo.py:14
# Globals Dynamo created: __import_torch_dot_nn_dot_modules_dot_module, __import_torch_dot_nn_dot_modules_dot_linear, __compiled_fn_5_559a5cd5_dfb8_4f2a_a126_6eea987b6aca, __import_torch_dot__dynamo_dot_utils
def torch_dynamo_resume_in_forward_at_14(__nested_resume_fns, __nested_frame_values, self, h):
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
