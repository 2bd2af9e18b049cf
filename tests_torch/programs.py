"""Programs for the prepare_debug tests: each is compiled, run, and compared.

A program is a function to compile, how to compile it, and the calls to make.
``train`` programs also run ``backward`` and compare the gradients.
"""
import os

import torch

os.environ.setdefault("HF_HUB_OFFLINE", "1")

SCALE = 3.0


class Program:
    def __init__(self, name, make, calls, backend="eager", dynamic=None, fullgraph=False, train=False,
                 graph_breaks=False, skipped=False, guards_read_inputs=True, stateful=False):
        self.name = name
        self.make = make              # () -> (function to compile, parameters to differentiate)
        self.calls = calls            # () -> list of argument tuples
        self.backend = backend
        self.dynamic = dynamic
        self.fullgraph = fullgraph
        self.train = train
        self.graph_breaks = graph_breaks
        self.skipped = skipped        # Dynamo gives up on the whole frame and runs it as it is
        self.guards_read_inputs = guards_read_inputs   # another dtype or shape fails a guard
        self.stateful = stateful      # each call changes what the next returns (an optimizer step)

    def __repr__(self):
        return self.name


def _fn(f):
    return lambda: (f, [])


def _t(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(*shape, generator=g).to(dtype)


def arith(x, y):
    return (x.sin() + y.cos()) * 2 - x / 3


def with_print(x):
    y = x * 2
    print("halfway")
    return y + 1


def data_dependent_if(x):
    z = x.sin()
    if z.sum() > 0:
        return z * 2
    return z - 1


def with_item(x):
    n = x.sum().item()
    return x * n


def list_loop(xs):
    total = xs[0] * 0
    for t in xs:
        total = total + t.relu()
    return total


def no_grad_block(x, w):
    with torch.no_grad():
        scale = (w * 2).sum()
    return x * scale + w


def try_except(x, options):
    try:
        scale = options["scale"]
    except KeyError:
        scale = 2.0
    return (x * scale).sum()


def closure(x):
    k = x.shape[0]

    def inner(v):
        return v * k + x

    return inner(x).tanh()


def generator_sum(x):
    return sum(x * i for i in range(4))


def uses_global(x):
    return x * SCALE


def dict_input(x, cfg):
    if cfg["double"]:
        x = x * 2
    return x + cfg["bias"]


def kw_only(x, *, alpha, beta=1.0):
    return x * alpha + beta


def star_args(*xs, **kw):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out * kw.get("scale", 1)


def inner_compiled(x):
    return x.exp() - 1


_inner = torch.compile(inner_compiled, backend="eager")


def outer_calls_compiled(x):
    return _inner(x) * 2 + x


def break_inside_with_and_try(x):
    with torch.no_grad():
        y = x * 2
        print("inside no_grad")        # graph break inside a with block
        z = y + 1
    try:
        w = z.sum()
        print("inside try")            # graph break inside try/finally
    finally:
        w = w + 1
    return w * x


def while_break(x):
    i = 0
    while True:
        x = x * 0.5
        i += 1
        if i >= 3:
            break
    return x


def comprehension_closure_break(x):
    ys = [x * i for i in range(3)]      # the comprehension closes over x: x is a cell of the frame
    torch._dynamo.graph_break()
    return sum(ys) + x


def nonlocal_across_break(x):
    count = 0

    def bump(v):
        nonlocal count
        count += 1
        return v * count
    y = bump(x)
    torch._dynamo.graph_break()
    y = bump(y) + count                 # the resume function shares the cell with bump
    return y * count


def closure_called_after_break(x, scale):
    def inner(v):
        return v * scale + x
    torch._dynamo.graph_break()
    return inner(x.cos())


def chained_breaks(x):
    x = x + 1
    torch._dynamo.graph_break()
    x = x * 2
    s = x.sum().item()                  # a second break, in the resume function
    return x + s


def fstring_item_break(x):
    y = x.cos()
    note = f"mean {y.mean().item():.2f}"    # the break is inside the f-string: its spec waits on the stack
    return y * len(note)


def _positive_path(x):
    return x.sin() * 2


def _negative_path(x):
    return x.cos() - 1


def with_cond(x):
    return torch.cond(x.sum() > 0, _positive_path, _negative_path, (x,)) + x


def with_checkpoint(x):
    return torch.utils.checkpoint.checkpoint(_positive_path, x, use_reentrant=False) + x


def with_vmap(x):
    return torch.func.vmap(lambda row: row * 2 + row.sum())(x)


def with_func_grad(x):
    return torch.func.grad(lambda r: (r.sin() ** 2).sum())(x) + x


@torch.compiler.disable
def _eager_only(x):
    return x * 3


def calls_disabled(x):
    return _eager_only(x + 1) - 1


def _marked_dynamic(t):
    torch._dynamo.mark_dynamic(t, 0)
    return t


def _inner_layer(x):
    y = x.relu()
    torch._dynamo.graph_break()         # a break in an inlined call: a resume function per frame
    return y * 2


def break_in_nested_call(x):
    return _inner_layer(x + 1) - 1


def generator_across_break(x):
    gen = (x * i for i in range(1, 4))
    first = next(gen)
    torch._dynamo.graph_break()
    return first + sum(gen)


def break_in_try(x):
    try:
        y = x * 2
        torch._dynamo.graph_break()     # Dynamo cannot resume inside a try: it runs the frame as is
        z = y[100]
    except IndexError:
        z = y.sum()
    return z * x


class ScaledSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x * x * k

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * 2 * x * ctx.k, None


class WithAutogradFunction(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.w = torch.nn.Parameter(torch.randn(4))

    def forward(self, x):
        y = ScaledSquare.apply(x * self.w, 3.0)
        torch._dynamo.graph_break()
        return ScaledSquare.apply(y.tanh(), 0.5)


def _optimizer_step(kind):
    """A compiled training step: zero_grad, backward and the optimizer's step."""
    def make():
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 3)
        if kind == "sgd":
            opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        else:
            opt = torch.optim.Adam(model.parameters(), lr=0.01)

        def step(x):
            opt.zero_grad()
            loss = model(x).pow(2).sum()
            loss.backward()
            opt.step()
            return torch.cat([loss.detach().reshape(1)] + [p.detach().reshape(-1) for p in model.parameters()])
        return step, []
    return make


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.l1 = torch.nn.Linear(8, 16)
        self.l2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))


def _module(factory):
    def make():
        model = factory()
        return model, list(model.parameters())
    return make


def _hf(kind, train=False, break_in_layer=False):
    """A tiny HuggingFace model with random weights (no download); ``break_in_layer``
    forces a graph break inside a layer (a forward hook on one of its submodules)."""
    def make():
        import transformers as tf
        torch.manual_seed(0)
        common = dict(vocab_size=64, num_hidden_layers=1, num_attention_heads=2)
        if kind == "bert":
            model = tf.BertModel(tf.BertConfig(hidden_size=16, intermediate_size=32, **common))
            layer = model.encoder.layer[0].intermediate
        elif kind == "gpt2":
            model = tf.GPT2Model(tf.GPT2Config(n_embd=16, n_layer=1, n_head=2, vocab_size=64,
                                               bos_token_id=0, eos_token_id=0))
            layer = model.h[0].mlp
        elif kind == "t5":
            model = tf.T5EncoderModel(tf.T5Config(d_model=16, d_ff=32, d_kv=8, num_layers=1, num_heads=2,
                                                  vocab_size=64))
            layer = model.encoder.block[0].layer[1]
        elif kind == "llama":
            model = tf.LlamaModel(tf.LlamaConfig(hidden_size=16, intermediate_size=32, num_key_value_heads=2,
                                                 **common))
            layer = model.layers[0].mlp
        elif kind == "bart":
            model = tf.BartModel(tf.BartConfig(d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                                               decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
                                               vocab_size=64, max_position_embeddings=32))
            layer = model.encoder.layers[0].fc1
        else:
            raise ValueError(kind)
        if break_in_layer:
            layer.register_forward_hook(_break_after)
        model.train(train)
        torch.manual_seed(1)                # the same dropout masks in every run

        def run(ids):
            return model(input_ids=ids).last_hidden_state
        return run, list(model.parameters())
    return make


def _break_after(module, args, output):
    torch._dynamo.graph_break()
    return output


def _ids(n):
    return lambda: [(torch.arange(n).remainder(64).unsqueeze(0),)]


try:   # (not at the top: test_report.py names lines of the code above)
    from unveil.dynamo.adapter.versions import resumes_with_a_live_generator
    LIVE_GENERATOR_RESUMES = resumes_with_a_live_generator()
except ModuleNotFoundError as missing:   # depyf's venv of benchmarks/prepare_debug_overhead.py
    if missing.name != "unveil":
        raise
    LIVE_GENERATOR_RESUMES = False


def break_inside_nested_withs(x):      # (below the code test_report.py names by line)
    with torch.no_grad():
        y = x + 1
        with torch.enable_grad():
            y = y * 3
            print("inside two withs")     # the resume function enters both withs, then jumps into the inner body
            y = y * 2
        y = y - 1
    with torch.no_grad():
        with torch.enable_grad():
            print("on with's first line")  # both withs' prologue on one line: written as one with statement
            y = y + x
    return y.sum()


PROGRAMS = [
    Program("arith_fullgraph", _fn(arith), lambda: [(_t(4), _t(4, seed=1))], fullgraph=True),
    Program("print_break", _fn(with_print), lambda: [(_t(3),)], graph_breaks=True),
    Program("data_dependent_if", _fn(data_dependent_if), lambda: [(_t(5),), (-_t(5).abs(),)], graph_breaks=True),
    Program("item_break", _fn(with_item), lambda: [(_t(3),)], graph_breaks=True),
    Program("tensor_list_loop", _fn(list_loop), lambda: [([_t(3), _t(3, seed=2), _t(3, seed=4)],)]),
    Program("no_grad", _fn(no_grad_block), lambda: [(_t(3), _t(3, seed=1))]),
    Program("try_except", _fn(try_except), lambda: [(_t(4), {"scale": 3.0}), (_t(4), {})]),
    Program("closure", _fn(closure), lambda: [(_t(4),)]),
    Program("generator", _fn(generator_sum), lambda: [(_t(4),)]),
    Program("global_read", _fn(uses_global), lambda: [(_t(4),)]),
    Program("dict_input", _fn(dict_input), lambda: [(_t(3), {"double": True, "bias": 1.0}),
                                                    (_t(3), {"double": False, "bias": 1.0})]),
    Program("kw_only", _fn(kw_only), lambda: [(_t(3),)], ),
    Program("star_args", _fn(star_args), lambda: [(_t(3), _t(3, seed=1), _t(3, seed=2))]),
    Program("nested_compiled", _fn(outer_calls_compiled), lambda: [(_t(3),)]),
    Program("while_break", _fn(while_break), lambda: [(_t(3),)]),
    Program("break_in_with_and_try", _fn(break_inside_with_and_try), lambda: [(_t(3),)], graph_breaks=True),
    Program("break_in_nested_withs", _fn(break_inside_nested_withs), lambda: [(_t(3),)], graph_breaks=True),
    Program("dynamic_shapes", _fn(arith), lambda: [(_t(3), _t(3)), (_t(5), _t(5)), (_t(7), _t(7))], dynamic=True),
    Program("recompile_shape", _fn(arith), lambda: [(_t(3), _t(3)), (_t(2, 2), _t(2, 2))], dynamic=False),
    Program("recompile_dtype", _fn(arith), lambda: [(_t(3), _t(3)), (_t(3, dtype=torch.float64),
                                                                   _t(3, dtype=torch.float64))]),
    Program("module_forward", _module(MLP), lambda: [(_t(2, 8),)]),
    Program("module_graph_break", _module(lambda: __import__("unveil.dynamo.demo", fromlist=["TinyNet"]).TinyNet()),
            lambda: [(_t(2, 8),), (_t(3, 8) * 0.01,)], graph_breaks=True),
    Program("module_train_aot_eager", _module(MLP), lambda: [(_t(2, 8),)], backend="aot_eager", train=True),
    Program("inductor_fn", _fn(arith), lambda: [(_t(4), _t(4, seed=1))], backend="inductor"),
    Program("inductor_train", _module(MLP), lambda: [(_t(2, 8),)], backend="inductor", train=True),
    Program("inductor_graph_break", _fn(data_dependent_if), lambda: [(_t(5),)], backend="inductor",
            graph_breaks=True),
    Program("hf_bert", _hf("bert"), _ids(6)),
    Program("hf_gpt2", _hf("gpt2"), _ids(6)),
    Program("hf_t5", _hf("t5"), _ids(6)),
    Program("hf_llama", _hf("llama"), _ids(6)),
    Program("hf_bert_train", _hf("bert"), _ids(6), backend="aot_eager", train=True),
    Program("hf_gpt2_train", _hf("gpt2"), _ids(6), backend="aot_eager", train=True),
    Program("hf_t5_train", _hf("t5"), _ids(6), backend="aot_eager", train=True),
    Program("hf_llama_train", _hf("llama"), _ids(6), backend="aot_eager", train=True),
    Program("comprehension_closure_break", _fn(comprehension_closure_break), lambda: [(_t(3),)],
            graph_breaks=True),
    Program("nonlocal_across_break", _fn(nonlocal_across_break), lambda: [(_t(3),)], graph_breaks=True),
    Program("closure_called_after_break", _fn(closure_called_after_break), lambda: [(_t(3), 2.0)],
            graph_breaks=True),
    Program("chained_breaks", _fn(chained_breaks), lambda: [(_t(3),)], graph_breaks=True),
    Program("fstring_item_break", _fn(fstring_item_break), lambda: [(_t(3),)], graph_breaks=True),
    Program("break_in_nested_call", _fn(break_in_nested_call), lambda: [(_t(3),)], graph_breaks=True),
    Program("break_in_nested_call_aot_eager", _fn(break_in_nested_call), lambda: [(_t(3),)], backend="aot_eager",
            graph_breaks=True),
    Program("generator_across_break", _fn(generator_across_break), lambda: [(_t(3),)],
            skipped=not LIVE_GENERATOR_RESUMES, graph_breaks=LIVE_GENERATOR_RESUMES),
    Program("break_in_try", _fn(break_in_try), lambda: [(_t(3),)], skipped=True),
    Program("autograd_function_train", _module(WithAutogradFunction), lambda: [(_t(4),), (_t(4, seed=3),)],
            backend="aot_eager", train=True, graph_breaks=True),
    # the step's own frame breaks before it reads x (at zero_grad): its guards never read the input
    Program("sgd_step", _optimizer_step("sgd"), lambda: [(_t(2, 4),), (_t(2, 4, seed=5),), (_t(2, 4, seed=7),)],
            graph_breaks=True, guards_read_inputs=False, stateful=True),
    Program("adam_step_aot_eager", _optimizer_step("adam"), lambda: [(_t(2, 4),), (_t(2, 4, seed=5),)],
            backend="aot_eager", graph_breaks=True, guards_read_inputs=False, stateful=True),
    Program("dynamic_shapes_break", _fn(chained_breaks), lambda: [(_t(3),), (_t(5),), (_t(7),)], dynamic=True,
            graph_breaks=True),
    Program("cond", _fn(with_cond), lambda: [(_t(4),), (-_t(4).abs(),)]),
    Program("cond_aot_eager", _fn(with_cond), lambda: [(_t(4),)], backend="aot_eager"),
    Program("checkpoint_aot_eager", _fn(with_checkpoint), lambda: [(_t(4),)], backend="aot_eager"),
    Program("vmap", _fn(with_vmap), lambda: [(_t(3, 4),)]),
    Program("func_grad", _fn(with_func_grad), lambda: [(_t(4),)]),
    Program("compiler_disable", _fn(calls_disabled), lambda: [(_t(4),)], graph_breaks=True),
    Program("mark_dynamic", _fn(arith), lambda: [(_marked_dynamic(_t(3)), _marked_dynamic(_t(3, seed=1))),
                                                      (_marked_dynamic(_t(6)), _marked_dynamic(_t(6, seed=1)))]),
] + [Program("hf_%s_train_break" % kind, _hf(kind, train=True, break_in_layer=True), _ids(6), backend="aot_eager",
             train=True, graph_breaks=True) for kind in ("bert", "gpt2", "t5", "llama", "bart")]

# the kw_only program needs keyword arguments: its calls bind them through functools.partial
PROGRAM_KWARGS = {"kw_only": {"alpha": 2.0}, "star_args": {"scale": 2}}


class InnerBlock(torch.nn.Module):
    def forward(self, x):
        return _inner_layer(x) + 1


class OuterBlock(torch.nn.Module):
    """A break inside a ``forward`` called from a ``forward``: the frames share a name."""

    def __init__(self):
        super().__init__()
        self.inner = InnerBlock()

    def forward(self, x):
        return self.inner(x) - 1
