"""Operator families KernelBench needs, on small shapes: each import means
what PyTorch means (float64 on both sides, egg-eval's reference interpreter)
and compiles with egg-opt. The shapes here are not KernelBench's; the
KernelBench problems themselves are checked by python -m egg.bench."""
import copy

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from egg import UnsupportedOp  # noqa: E402
from egg.frontend import import_module  # noqa: E402
from egg.kernelbench import reference_check  # noqa: E402
from egg.tools import compile_mlir  # noqa: E402


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


class PositionBias(torch.nn.Module):
    """A bias table gathered by an int64 buffer (Swin's relative positions)."""

    def __init__(self):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(7, 3))
        self.register_buffer("index", torch.randint(0, 7, (5, 5)))

    def forward(self, x):
        return x + self.table[self.index].permute(2, 0, 1)


class CausalDecay(torch.nn.Module):
    """A boolean causal mask made of constants (Mamba's segment sums)."""

    def forward(self, x):
        n = x.size(-1)
        mask = torch.tril(torch.ones(n, n, dtype=torch.bool))
        return torch.exp((x[..., :, None] - x[..., None, :]).masked_fill(~mask, -torch.inf))


CASES = {
    "conv1d_strided_dilated": (torch.nn.Conv1d(3, 5, 3, stride=2, padding=1, dilation=2), [(2, 3, 17)]),
    "conv1d_no_bias": (torch.nn.Conv1d(3, 5, 4, bias=False), [(2, 3, 9)]),
    "conv3d": (torch.nn.Conv3d(3, 4, (3, 2, 3), stride=(1, 2, 1), padding=(1, 0, 1)), [(2, 3, 6, 7, 5)]),
    "conv_transpose1d_dilated": (torch.nn.ConvTranspose1d(3, 5, 3, dilation=2, padding=1), [(2, 3, 9)]),
    "conv_transpose2d": (torch.nn.ConvTranspose2d(3, 4, (3, 5), padding=(1, 2)), [(2, 3, 6, 7)]),
    "conv_transpose3d": (torch.nn.ConvTranspose3d(3, 4, 3, bias=False), [(1, 3, 4, 5, 4)]),
    # Stride 2: the phases as output channels of one stride-1 convolution.
    "conv_transpose2d_stride2": (torch.nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1,
                                                          output_padding=1), [(2, 3, 5, 6)]),
    "conv_transpose2d_k4_stride2": (torch.nn.ConvTranspose2d(3, 4, 4, stride=2), [(2, 3, 5, 5)]),
    "conv_transpose3d_stride2": (torch.nn.ConvTranspose3d(3, 4, 3, stride=2, padding=1,
                                                          output_padding=1), [(1, 3, 3, 4, 3)]),
    # Outputs that are not a multiple of the stride: whole phase blocks, cropped.
    "conv_transpose2d_stride2_cropped": (torch.nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1),
                                         [(2, 3, 5, 6)]),
    "conv_transpose2d_stride5_dilated": (torch.nn.ConvTranspose2d(3, 4, 3, stride=5, dilation=2,
                                                                  padding=1), [(2, 3, 4, 5)]),
    "conv_transpose3d_k5_stride2_cropped": (torch.nn.ConvTranspose3d(2, 3, 5, stride=2, padding=2),
                                            [(1, 2, 3, 4, 3)]),
    # Phase windows: phases no tap reaches are left out and filled in by a
    # pad (stride 2, dilation 2: one phase of three), and a window from -1
    # gives every tap one input offset (stride 2, kernel 4, padding 1).
    "conv_transpose3d_stride2_dilated": (torch.nn.ConvTranspose3d(3, 4, 3, stride=2, padding=1,
                                                                  dilation=2), [(1, 3, 3, 4, 3)]),
    "conv_transpose1d_stride2_dilated": (torch.nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1,
                                                                  dilation=2, bias=False),
                                         [(2, 3, 7)]),
    "conv_transpose2d_k4_stride2_padded": (torch.nn.ConvTranspose2d(3, 4, 4, stride=2, padding=1),
                                           [(2, 3, 5, 6)]),
    "conv_transpose2d_stride3_window": (torch.nn.ConvTranspose2d(3, 4, (5, 2), stride=3,
                                                                 padding=(2, 1),
                                                                 output_padding=(1, 0)),
                                        [(1, 3, 4, 5)]),
    "softplus": (Fn(F.softplus), [(16, 64)]),
    "mish": (Fn(F.mish), [(16, 64)]),
    "elu": (Fn(lambda x: F.elu(x, 0.7)), [(16, 64)]),
    "selu": (Fn(torch.selu), [(16, 64)]),
    "celu": (Fn(lambda x: F.celu(x, 1.3)), [(16, 64)]),
    "hardswish": (Fn(F.hardswish), [(16, 64)]),
    "logsumexp": (Fn(lambda x: torch.logsumexp(x, dim=1, keepdim=True)), [(16, 64)]),
    "where_compare": (Fn(lambda x, y: torch.where(x > y, x, y * 2)), [(16, 64), (16, 64)]),
    "mask_as_float": (Fn(lambda x: x * (x < 0.3).float()), [(16, 64)]),
    "huber_loss": (Fn(F.smooth_l1_loss), [(16, 64), (16, 64)]),
    "where_isnan": (Fn(lambda x: torch.where(torch.isnan(torch.log(x)), 0.0, x)), [(16, 64)]),
    "sum_of_all": (Fn(lambda x: x.sum()), [(8, 16)]),
    "min_over_dim": (Fn(lambda x: torch.min(x, dim=1)[0]), [(4, 5, 6)]),
    "max_over_dim_keepdim": (Fn(lambda x: torch.max(x, dim=2, keepdim=True)[0] + x), [(4, 5, 6)]),
    "vector_norm": (Fn(lambda x: torch.linalg.vector_norm(x, dim=1)), [(4, 8)]),
    "l1_vector_norm": (Fn(lambda x: x / torch.linalg.vector_norm(x, ord=1, dim=1, keepdim=True)),
                       [(4, 8)]),
    "triplet_margin_loss": (Fn(F.triplet_margin_loss), [(8, 16), (8, 16), (8, 16)]),
    "max_pool3d": (torch.nn.MaxPool3d(3, 2, padding=1), [(2, 3, 6, 7, 5)]),
    "max_pool3d_dilated": (torch.nn.MaxPool3d(2, 1, dilation=2), [(1, 2, 6, 6, 6)]),
    "avg_pool3d": (torch.nn.AvgPool3d(2, 2, padding=1), [(1, 2, 4, 5, 4)]),
    # Training mode: batch statistics (the running ones are not updated).
    "batch_norm_training": (torch.nn.BatchNorm2d(4), [(3, 4, 5, 6)]),
    "conv_batch_norm_relu": (torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4),
                                                 torch.nn.ReLU()), [(2, 3, 8, 8)]),
    "instance_norm": (torch.nn.InstanceNorm2d(4), [(2, 4, 5, 6)]),
    "group_norm": (torch.nn.GroupNorm(2, 4), [(2, 4, 5, 6)]),
    "group_norm_3d": (torch.nn.GroupNorm(4, 8), [(2, 8, 3, 4, 5)]),
    "layer_norm_two_dims": (torch.nn.LayerNorm((5, 6)), [(3, 4, 5, 6)]),
    # Scans: egg.scan beyond 32 elements (a warp per row), an elementwise
    # generic up to 32.
    "cumsum_short_rows": (Fn(lambda x: torch.cumsum(x, 1)), [(4, 8)]),
    "cumsum_padded_chunks": (Fn(lambda x: torch.cumsum(x, 1)), [(3, 1000)]),
    "cumsum_outer_dim": (Fn(lambda x: torch.cumsum(x, 0) * 2), [(70, 5)]),
    "cumprod": (Fn(lambda x: torch.cumprod(x, 1)), [("positive", 3, 100)]),
    "cumsum_reversed": (Fn(lambda x: torch.cumsum(x.flip(1), 1).flip(1)), [(3, 77)]),
    "cumsum_exclusive": (Fn(lambda x: torch.cat((torch.zeros_like(x[:, :1]),
                                                 torch.cumsum(x[:, :-1], 1)), 1)), [(3, 50)]),
    "cumsum_reversed_short_rows": (Fn(lambda x: torch.cumsum(x.flip(1), 1).flip(1)), [(4, 20)]),
    "cumprod_reversed_outer_dim": (Fn(lambda x: torch.cumprod(x.flip(0), 0).flip(0)),
                                   [("positive", 40, 3)]),
    "cumsum_exclusive_short_rows": (Fn(lambda x: torch.cat((torch.zeros_like(x[:, :1]),
                                                            torch.cumsum(x[:, :-1], 1)), 1)),
                                    [(4, 20)]),
    "cumprod_exclusive_outer_dim": (Fn(lambda x: torch.cat((torch.ones_like(x[:1]),
                                                            torch.cumprod(x[:-1], 0)), 0)),
                                    [("positive", 40, 3)]),
    # Reads of the flipped input beside the scan keep the flips as copies.
    "cumsum_reversed_flip_reused": (Fn(lambda x: torch.cumsum(x.flip(1), 1).flip(1) + x.flip(1)),
                                    [(3, 40)]),
    "cumsum_masked": (Fn(lambda x, m: torch.cumsum(x * m, 1)), [(3, 40), ("mask", 3, 40)]),
    "where_boolean_input": (Fn(lambda x, m: torch.where(m, x, -x)), [(3, 40), ("mask", 3, 40)]),
    # any / all of a comparison (the float64 reference once took `true`
    # for -1, and logical_not then negated nothing).
    "any_over_dim": (Fn(lambda x: torch.where((x > 1).any(1, keepdim=True), x, -x)), [(4, 8)]),
    "all_over_dim": (Fn(lambda x: (x > -1).all(0).float() + x), [(4, 8)]),
    "transformer_encoder_layer": (torch.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0),
                                  [(5, 2, 16)]),
    # Index reductions: the extreme value, then the first index holding it.
    "argmax_middle_dim": (Fn(lambda x: torch.argmax(x, 1)), [(4, 8, 5)]),
    "argmin_keepdim": (Fn(lambda x: torch.argmin(x, -1, keepdim=True)), [(4, 8)]),
    "argmax_read_as_float": (Fn(lambda x: torch.argmax(x, 0).float() * x[0]), [(6, 8)]),
    # Whole-tensor reductions of many elements: two stages.
    "frobenius_norm_two_stage": (Fn(lambda x: x / torch.norm(x, p="fro")), [(64, 64, 40)]),
    "flat_mean_two_stage": (Fn(lambda x: x.mean()), [(1 << 17,)]),
    "max_of_all_two_stage": (Fn(lambda x: x.amax() - x), [(2, 256, 256)]),
    # Rows over more than three loops, or behind unit dims: seen as 2-D.
    "layer_norm_5d": (torch.nn.LayerNorm(6), [(2, 3, 2, 4, 6)]),
    "instance_norm_of_unit_dims": (Fn(lambda x: F.instance_norm(x.unsqueeze(1).unsqueeze(1))
                                      .squeeze(1).squeeze(1)), [(4, 32)]),
    # A softmax over another dim than the innermost: laid out for it.
    "softmax_over_channels": (Fn(lambda x: torch.softmax(x, 1) * 2), [(2, 5, 3, 4)]),
    "softmax_middle_dim_5d": (Fn(lambda x: torch.softmax(x, 2).sigmoid()), [(2, 3, 6, 4, 5)]),
    # Data movement: copies whose index maps read the source.
    "slice_strided": (Fn(lambda x: x[:, 3:17:2] * 2), [(4, 20)]),
    "slice_head": (Fn(lambda x: x[:, :5] + 1), [(4, 20)]),
    "narrow": (Fn(lambda x: x.narrow(1, 0, 19).exp()), [(4, 20)]),
    "select": (Fn(lambda x: x[2] + x[:, 1, :].sum()), [(4, 5, 6)]),
    "split_equal": (Fn(lambda x: x.split(3, dim=1)[1] * x.split(3, dim=1)[2]), [(4, 9)]),
    "split_sizes": (Fn(lambda x: x.split([2, 5], dim=1)[1].tanh()), [(4, 7)]),
    "unbind": (Fn(lambda x: x.unbind(1)[2] - x.unbind(1)[0]), [(4, 3, 5)]),
    "flip": (Fn(lambda x: x.flip(1) - x), [(4, 7, 3)]),
    "flip_two_dims": (Fn(lambda x: x.flip([0, 1])), [(4, 7)]),
    "cat": (Fn(lambda x, y: torch.cat([x, y.relu(), x], 1)), [(4, 3, 5), (4, 2, 5)]),
    "cat_last_dim": (Fn(lambda x, y: torch.cat([x, y], -1) * 3), [(4, 5), (4, 2)]),
    "unfold_patches": (Fn(lambda x: x.unfold(2, 2, 2).unfold(3, 2, 2).reshape(2, -1, 12)),
                       [(2, 3, 4, 4)]),
    "unfold_overlapping": (Fn(lambda x: x.unfold(1, 3, 1).sum(-1)), [(4, 9)]),
    "triu_of_matmul": (Fn(lambda a, b: torch.triu(a @ b)), [(8, 8), (8, 8)]),
    "tril_below_diagonal": (Fn(lambda a: torch.tril(a, diagonal=-1)), [(3, 6, 6)]),
    "number_argument": (Fn(lambda a, s: a * s + s), [(4, 4), 3.14]),
    "max_pool2d_ceil_mode": (torch.nn.MaxPool2d(3, 2, ceil_mode=True), [(2, 3, 8, 8)]),
    "grouped_conv2d": (torch.nn.Conv2d(6, 9, 3, padding=1, groups=3), [(2, 6, 7, 7)]),
    "grouped_conv_transpose2d_stride2": (torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1,
                                                                  groups=2), [(2, 4, 5, 5)]),
    "grouped_conv_transpose3d": (torch.nn.ConvTranspose3d(4, 6, 3, groups=2), [(1, 4, 3, 4, 3)]),
    "cross_entropy": (Fn(F.cross_entropy), [(16, 10), ("index", 10, 16)]),
    "log_softmax_inner_dim": (Fn(lambda x: torch.log_softmax(x, 1)), [(4, 7, 5)]),
    "gather": (Fn(lambda x, i: torch.gather(x, 1, i) * 2), [(4, 9), ("index", 9, 4, 3)]),
    "roll_two_dims": (Fn(lambda x: torch.roll(x, (-2, 3), (1, 2)) + 1), [(2, 5, 6, 3)]),
    "clamp_tensor_bound": (Fn(lambda x, hi: torch.clamp(x, max=hi)), [(4, 8), (8,)]),
    "integer_buffer_folded": (PositionBias(), [(2, 3, 5, 5)]),
    "adaptive_avg_pool1d": (torch.nn.AdaptiveAvgPool1d(1), [(2, 6, 9)]),
    "causal_mask_of_constants": (CausalDecay(), [(2, 3, 7)]),
    "embedding": (torch.nn.Embedding(11, 6), [("index", 11, 3, 5)]),
    "index_of_a_computed_tensor": (Fn(lambda x, i: (x * 2)[:, i] + 1),
                                   [(4, 9), ("index", 9, 3)]),
    "index_with_a_tensor": (Fn(lambda x, i: x[:, i] + 1), [(4, 9, 2), ("index", 9, 2, 3)]),
    "constant_pad": (Fn(lambda x: F.pad(x, (1, 2, 0, 3), value=0.5) * 2), [(2, 4, 5)]),
}


def make_input(spec):
    """A shape (normal values), ("positive", *shape), ("mask", *shape) for a
    boolean tensor, ("index", n, *shape) for int64 values below n, or a
    number as it is."""
    if not isinstance(spec, tuple):
        return spec
    if spec and spec[0] == "index":
        return torch.randint(0, spec[1], spec[2:])
    if spec and spec[0] == "positive":
        return torch.rand(*spec[1:]) + 0.5
    if spec and spec[0] == "mask":
        return torch.rand(*spec[1:]) > 0.5
    return torch.randn(*spec)


@pytest.mark.parametrize("name", sorted(CASES))
def test_family_imports_compiles_and_matches(name, tmp_path):
    model, shapes = CASES[name]
    inputs = [make_input(s) for s in shapes]
    imported = import_module(copy.deepcopy(model), inputs)
    # f32 constants (selu's alpha) round in the import: 1e-7, not 1e-16.
    assert reference_check(imported, copy.deepcopy(model), inputs, tmp_path / "ref") < 1e-6
    source = tmp_path / "f.mlir"
    source.write_text(imported.mlir)
    compile_mlir(source, tmp_path / "out")


@pytest.mark.parametrize("fn,form", [
    (lambda x: torch.cumsum(x.flip(1), 1).flip(1), "egg.scan add reverse %"),
    (lambda x: torch.cat((torch.zeros_like(x[:, :1]), torch.cumsum(x[:, :-1], 1)), 1),
     "egg.scan add exclusive %"),
])
def test_reverse_and_exclusive_scans_are_one_pass(fn, form):
    """A flip around a cumsum, or a cumsum of all but the last element
    after a zero, is one egg.scan of the input: no flipped or sliced copy."""
    text = import_module(Fn(fn), [torch.randn(8, 300)]).mlir
    assert text.count("egg.scan") == 1 and form in text
    assert "linalg.generic" not in text and "tensor.pad" not in text


def test_zero_dim_results_keep_pytorchs_shape():
    imported = import_module(Fn(lambda x: x.mean()), [torch.randn(4, 8)])
    assert imported.result_shapes == [()]
    assert "-> (tensor<1xf32>)" in imported.mlir


@pytest.mark.parametrize("module,shape,why", [
    (torch.nn.Conv3d(4, 4, 3, groups=2), (1, 4, 6, 6, 6), "grouped 3-D convolution"),
    (torch.nn.AvgPool2d(3, 2, ceil_mode=True), (1, 4, 8, 8), "averages without ceil_mode"),
    (Fn(lambda x: torch.cumsum(x, 1, dtype=torch.float64)), (4, 8), "a scan with a dtype"),
    (torch.nn.Dropout(0.2), (4, 8), "dropout in training mode"),
])
def test_refusals_name_what_is_missing(module, shape, why):
    with pytest.raises(UnsupportedOp, match=why):
        import_module(module, [torch.randn(*shape)])


def test_a_number_argument_is_compiled_in_and_checked_at_call():
    imported = import_module(Fn(lambda a, s: a * s), [torch.randn(4, 4), 2.5])
    assert imported.constant_inputs == {1: 2.5}
    assert len(imported.arg_values) == 1 and "2.5" in imported.mlir
    # A call passes the number again; another value needs another compile.
    from types import SimpleNamespace
    from egg.runtime import CompiledModule
    module = SimpleNamespace(constant_inputs=imported.constant_inputs, boolean_inputs=set(),
                             integer_inputs=set())
    x = torch.randn(4, 4)
    assert CompiledModule._tensor_inputs(module, [x, 2.5]) == [x]
    with pytest.raises(TypeError, match="compiled for the number 2.5"):
        CompiledModule._tensor_inputs(module, [x, 3.0])


def test_integer_inputs_pass_as_float32_below_two_to_the_24():
    fn = Fn(lambda x, i: torch.gather(x, 0, i))
    imported = import_module(fn, [torch.randn(8), torch.randint(0, 8, (4,))])
    assert imported.integer_inputs == {1}
    from types import SimpleNamespace
    from egg.runtime import CompiledModule
    module = SimpleNamespace(constant_inputs={}, boolean_inputs=set(), integer_inputs={1})
    got = CompiledModule._tensor_inputs(module, [torch.randn(8), torch.tensor([3, 1])])
    assert got[1].dtype == torch.float32 and got[1].tolist() == [3.0, 1.0]
    with pytest.raises(UnsupportedOp, match="integers of 16777216 or more"):
        import_module(fn, [torch.randn(8), torch.full((4,), 1 << 24)])


def test_a_float_converted_to_integers_is_refused():
    with pytest.raises(UnsupportedOp, match="a float tensor converted to integers"):
        import_module(Fn(lambda x: (x * 3).long() * 2.0), [torch.randn(4, 4)])


def test_an_index_result_is_int64_to_the_user():
    imported = import_module(Fn(lambda x: torch.argmax(x, 1)), [torch.randn(4, 8)])
    assert imported.integer_results == {0}
    assert "-> (tensor<4xf32>)" in imported.mlir


def test_a_boolean_result_is_refused():
    with pytest.raises(UnsupportedOp, match="boolean result"):
        import_module(Fn(lambda x: x > 0), [torch.randn(4, 4)])
