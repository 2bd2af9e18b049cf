# Transformed code of torch_dynamo_resume_in_forward_at_14 (compile 1/1): the bytecode Dynamo runs in place of the original
# Original: /work/main/src/unveil/dynamo/demo.py:14
# Globals Dynamo created: __import_torch_dot_nn_dot_modules_dot_module, __import_torch_dot_nn_dot_modules_dot_linear, __compiled_fn_11_78f378e3_0712_4603_9ce7_a0ca5b081dff, __import_torch_dot__dynamo_dot_utils
def torch_dynamo_resume_in_forward_at_14(__nested_resume_fns, __nested_frame_values, self, h):
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
