# Resume function torch_dynamo_resume_in_forward_at_14: Dynamo made it after a graph break; it runs the rest of forward
# from line 14 of /work/main/src/unveil/dynamo/demo.py.
# Why the graph broke:
#   Graph break in user code at /work/main/src/unveil/dynamo/demo.py:14
#   Graph Break Reason: Data-dependent branching
#     Explanation: Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support tracing dynamic control flow.
#   
#         The branch condition involves a tensor computed as follows:
#           # File "/work/main/src/unveil/dynamo/demo.py", line 14, in forward, code: if h.mean() > 0.1:          # data-dependent branch: a graph break
#           gt = gt(mean, 0.1)
#       
#     Hint: For the common pattern `if tensor_cond: x = transform(x)` (e.g. clamping inf/nan values), consider making the code branchless by always applying the transform. Operations like torch.clamp, torch.nan_to_num, and torch.where are typically no-ops on well-behaved inputs and compile without graph breaks.
#     Hint: This graph break is fundamental - it is unlikely that Dynamo will ever be able to trace through your code. Consider finding a workaround.
#     Hint: Use `torch.cond` to express dynamic control flow.
#   
def torch_dynamo_resume_in_forward_at_14(__nested_resume_fns, __nested_frame_values, self, h):
    __is_tracing_resume_prologue = True
    __is_tracing_resume_prologue = False
    h = h * 2
    return self.decode(h)
