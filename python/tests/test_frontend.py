"""The front end on every problem of python/problems (KernelBench format):
the import parses and compiles with egg-opt/egg-translate, and means what
PyTorch means (float64 on both sides, egg-eval's reference interpreter)."""
import glob
import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from egg import UnsupportedOp, to_mlir  # noqa: E402
from egg.kernelbench import import_problem, reference_check  # noqa: E402
from egg.tools import compile_mlir  # noqa: E402

PROBLEMS = sorted(glob.glob(str(Path(__file__).resolve().parents[1] / "problems" / "*.py")))


def test_there_are_enough_problems():
    assert len(PROBLEMS) >= 30


@pytest.mark.parametrize("path", PROBLEMS, ids=lambda p: Path(p).stem)
def test_problem_imports_compiles_and_matches(path, tmp_path):
    name, model, inputs, imported = import_problem(path)
    mlir = tmp_path / f"{name}.mlir"
    mlir.write_text(imported.mlir)
    manifest, decisions = compile_mlir(mlir, tmp_path / "out")
    assert manifest.stat().st_size > 0 and decisions.stat().st_size > 0
    error = reference_check(imported, model, inputs, tmp_path / "ref")
    half = any(x.dtype in (torch.float16, torch.bfloat16) for x in inputs)
    assert error < (2e-3 if half else 1e-5), f"{name}: relative L2 error {error}"


def test_unsupported_op_is_named():
    class Sorter(torch.nn.Module):
        def forward(self, x):
            return torch.sort(x, dim=-1).values

    with pytest.raises(UnsupportedOp, match="sort"):
        to_mlir(Sorter(), [torch.randn(8, 8)])


def test_integer_inputs_are_refused():
    class Adder(torch.nn.Module):
        def forward(self, x):
            return x + 1

    with pytest.raises(UnsupportedOp, match="element type"):
        to_mlir(Adder(), [torch.ones(4, dtype=torch.int32)])


def test_half_precision_nchw_convolution_is_transposed_to_nhwc(tmp_path):
    class Conv(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(4, 8, 3, stride=2, dtype=torch.float16)

        def forward(self, x):
            return self.conv(x)

    model, inputs = Conv(), [torch.randn(1, 4, 9, 9, dtype=torch.float16)]
    text = to_mlir(model, inputs)
    # Input and weight laid out channels-last by transposes, the NHWC
    # generic accumulating in f32, the result read back as NCHW.
    assert "linalg.conv_2d_nchw_fchw" not in text
    assert "(d0, d1 * 2 + d4 * 1, d2 * 2 + d5 * 1, d6)" in text
    assert "(d3, d4, d5, d6)" in text
    assert text.count("affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>") == 2
    assert "tensor<1x4x4x8xf32>" in text
    from egg.frontend import import_module
    error = reference_check(import_module(model, inputs), model, inputs, tmp_path)
    assert error < 2e-3


@pytest.mark.parametrize("make,shape,channels_last", [
    (lambda: torch.nn.Conv2d(16, 128, 5, stride=2, padding=2), (2, 16, 64, 512), True),
    (lambda: torch.nn.ConvTranspose2d(32, 64, (3, 2)), (1, 32, 126, 127), True),
    # Rows of 56: split tiles of two whole rows (112 positions).
    (lambda: torch.nn.Conv2d(64, 128, 3, padding=1), (8, 64, 56, 56), True),
    # Too few filters, channels no multiple of 4, rows of 56 (no whole
    # split tile) or too few positions: NCHW as laid out.
    (lambda: torch.nn.Conv2d(16, 32, 3), (1, 16, 130, 130), False),
    (lambda: torch.nn.Conv2d(18, 64, 3), (1, 18, 130, 130), False),
    (lambda: torch.nn.Conv2d(16, 64, 3), (1, 16, 5, 58), False),
    (lambda: torch.nn.Conv2d(16, 64, 3), (1, 16, 8, 130), False),
    # Too little product per byte of input to pay for its copy: 1x1, and
    # 3x3 at stride 2 over 64 filters.
    (lambda: torch.nn.Conv2d(64, 128, 1), (1, 64, 128, 128), False),
    (lambda: torch.nn.Conv2d(16, 64, 3, stride=2, padding=1), (2, 16, 64, 512), False),
], ids=["strided_padded", "transposed", "rows_56_pairs", "few_filters", "odd_channels", "rows_56",
        "few_positions", "one_by_one", "strided_shallow"])
def test_f32_convolution_reads_channels_last_copies(tmp_path, make, shape, channels_last):
    """f32 NCHW convolutions of at least 16 channels and 64 filters whose
    rows fill split tiles, a wave of them, with enough product per byte of
    input, read NHWC / FHWC copies and write the NCHW result directly; the
    import matches PyTorch within f32's error of float64."""
    model, inputs = make().eval(), [torch.randn(*shape)]
    text = to_mlir(model, inputs)
    assert ("linalg.conv_2d_nchw_fchw" not in text) == channels_last
    if channels_last:
        # The (n, f, oh, ow, kh, kw, c) generic: image, FHWC weight, NCHW result.
        assert "-> (d1, d4, d5, d6)>" in text
        assert "-> (d0, d1, d2, d3)>], iterator_types" in text
    from egg.frontend import import_module
    error = reference_check(import_module(model, inputs), model, inputs, tmp_path)
    assert error < 1e-5


def test_half_precision_grouped_convolution_is_refused():
    class Conv(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(4, 4, 3, groups=4, dtype=torch.float16)

        def forward(self, x):
            return self.conv(x)

    with pytest.raises(UnsupportedOp, match="grouped"):
        to_mlir(Conv(), [torch.randn(1, 4, 8, 8, dtype=torch.float16)])


def test_pooling_options_it_does_not_implement_are_refused():
    class Pool(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.avg_pool2d(x, 3, stride=2, ceil_mode=True)

    with pytest.raises(UnsupportedOp, match="ceil_mode"):
        to_mlir(Pool(), [torch.randn(1, 2, 8, 8)])


def test_training_mode_is_imported_as_such():
    """A module in training mode is not switched to eval behind the user's
    back: its batch norm normalises with the batch's statistics. The running
    statistics it would update are not computed (num_batches_tracked, an
    int64 buffer only that update reads, is no argument)."""
    model = torch.nn.Sequential(torch.nn.BatchNorm1d(8))
    text = to_mlir(model, [torch.randn(4, 8)])
    assert model.training
    assert "i64" not in text.split("{")[0]
    assert "reduction" in text
    assert "reduction" not in to_mlir(model.eval(), [torch.randn(4, 8)])


def test_batch_norm_is_one_elementwise_op_in_f32():
    class Norm(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = torch.nn.BatchNorm2d(4, dtype=torch.float16)

        def forward(self, x):
            return self.bn(x)

    text = to_mlir(Norm().eval(), [torch.randn(2, 4, 3, 3, dtype=torch.float16)])
    # The int64 num_batches_tracked buffer, read by nothing, is no argument.
    assert "i64" not in text.split("{")[0]
    assert text.count("linalg.generic") == 1
    assert "math.rsqrt" in text and ": f16 to f32" in text and "f32 to f16" in text


def test_channels_last_convolution_is_one_nhwc_generic():
    name, model, inputs, imported = import_problem(
        str(Path(__file__).resolve().parents[1] / "problems" / "conv2d_channels_last_f16.py"))
    text = imported.mlir
    # No transposes: the input is padded along H and W only and read as
    # laid out; the weight is read [F, KH, KW, C].
    assert "low[0, 1, 1, 0]" in text
    assert "(d0, d1 * 2 + d4 * 1, d2 * 2 + d5 * 1, d6)" in text
    assert "(d3, d4, d5, d6)" in text
    assert "linalg.transpose" not in text


def test_channels_last_convolution_bias_is_added_in_f32():
    class Conv(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(8, 3, 3, 4, dtype=torch.float16))
            self.bias = torch.nn.Parameter(torch.randn(8, dtype=torch.float16))

        def forward(self, x):
            y = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2), self.weight.permute(0, 3, 1, 2),
                                           bias=self.bias, padding=1)
            return y.permute(0, 2, 3, 1)

    text = to_mlir(Conv(), [torch.randn(1, 8, 8, 4, dtype=torch.float16)])
    # The NHWC generic, then the bias (widened) added to the f32 accumulator
    # along the channel, then one rounding to f16.
    assert "(d3, d4, d5, d6)" in text
    assert "linalg.transpose" not in text
    bias = text.index("affine_map<(d0, d1, d2, d3) -> (d3)>")
    widened = text.index("f16 to f32", bias)
    added = text.index("arith.addf", widened)
    assert text.index("(d3, d4, d5, d6)") < bias < widened < added < text.index("arith.truncf")


def test_tf32_only_where_allowed(tmp_path):
    """`allowing_tf32` marks the module; only then do f32 products reach
    tensor cores as TF32, and the manifest tells egg-eval so. Without it
    the linear layer takes three TF32 products on split inputs (f32-grade)
    and the manifest claims no TF32."""
    from egg.kernelbench import problem_allows_tf32
    from egg.tools import allowing_tf32

    model = torch.nn.Linear(256, 4096, bias=False)
    text = to_mlir(model, [torch.randn(1024, 256)])
    plain, tf32 = tmp_path / "plain.mlir", tmp_path / "tf32.mlir"
    plain.write_text(text)
    tf32.write_text(allowing_tf32(text))
    manifest, decisions = compile_mlir(plain, tmp_path / "plain")
    assert "tf32_terms = 3" in decisions.read_text()
    assert "allow_tf32" not in manifest.read_text()
    manifest, decisions = compile_mlir(tf32, tmp_path / "tf32")
    text = decisions.read_text()
    assert "reduction = [32]" in text and "vector = 4" in text and "tf32_terms" not in text
    assert '"allow_tf32": true' in manifest.read_text()
    bench = Path(__file__).resolve().parents[2] / "bench" / "gemm"
    assert problem_allows_tf32(bench / "matmul_bt_tf32.py")
    assert not problem_allows_tf32(bench / "matmul_bt_f32.py")


def test_recurrent_layers_are_imported_whole_not_unrolled():
    lstm = torch.nn.LSTM(8, 16, num_layers=2, batch_first=True)
    text = to_mlir(lstm, [torch.randn(2, 5, 8)])
    assert text.count("egg.recurrence") == 2
    assert "math.tanh" not in text.split("egg.recurrence")[0]  # No cell outside one.
