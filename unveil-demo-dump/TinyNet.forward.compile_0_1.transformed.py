# Transformed code of forward (compile 0/1): the bytecode Dynamo runs in place of the original
# Original: /work/main/src/unveil/dynamo/demo.py:12
# Globals Dynamo created: __import_torch_dot_nn_dot_modules_dot_module, __import_torch_dot_nn_dot_modules_dot_linear, __compiled_fn_7_790e0c17_0e40_40fd_bde3_e345f779959a, __import_torch_dot__dynamo_dot_utils, __resume_at_128_8, __resume_at_138_9
def forward(self, x):
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
