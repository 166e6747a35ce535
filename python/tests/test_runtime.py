"""egg.compile on a GPU: the compiled callable matches eager PyTorch. Skipped
where CUDA is not available (CI); run on the GPU host."""
import copy
import glob
import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import egg  # noqa: E402
from egg.kernelbench import load_problem  # noqa: E402

PROBLEMS = sorted(glob.glob(str(Path(__file__).resolve().parents[1] / "problems" / "*.py")))


@pytest.mark.parametrize("path", PROBLEMS, ids=lambda p: Path(p).stem)
def test_compiled_module_matches_eager(path, tmp_path):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    name, model, inputs = load_problem(path)
    compiled = egg.compile(model, inputs, workdir=tmp_path)
    with torch.no_grad():
        want = model.cuda()(*[x.cuda() for x in inputs])
    fresh = [torch.randn_like(x) for x in inputs]  # Not the example values.
    got = compiled(*[x.cuda() for x in inputs])
    _assert_close(name, got, want, "")
    with torch.no_grad():
        want2 = model(*[x.cuda() for x in fresh])
    got2 = compiled(*[x.cuda() for x in fresh])
    _assert_close(name, got2, want2, " on fresh inputs")


def _assert_close(name, got, want, where):
    """Relative L2 error of each output (a module may return a tuple)."""
    gots = got if isinstance(got, (tuple, list)) else (got,)
    wants = want if isinstance(want, (tuple, list)) else (want,)
    assert len(gots) == len(wants), f"{name}: {len(gots)} outputs, {len(wants)} expected"
    for i, (g, w) in enumerate(zip(gots, wants)):
        tol = 2e-2 if w.dtype in (torch.float16, torch.bfloat16) else 1e-4
        err = ((g.float() - w.float()).norm() / w.float().norm()).item()
        assert err < tol, f"{name}: output {i}: relative L2 error {err}{where}"



def test_tma_copies_match_eager(tmp_path):
    """The expert's warpgroup-MMA tuning replayed with copy = tma: the
    runtime encodes the tensor maps for each call's buffers (K = 200 leaves
    a partial last K step, zero-filled by TMA)."""
    class MatMul(torch.nn.Module):
        def forward(self, a, b):
            return a @ b

    def inputs():
        return [torch.randn(1024, 200, dtype=torch.float16), torch.randn(200, 1024, dtype=torch.float16)]

    model = MatMul()
    egg.compile(model, inputs(), workdir=tmp_path / "expert")
    recorded = (tmp_path / "expert" / "forward.decisions.json").read_text()
    assert "copy = cp_async" in recorded and "swizzle = xor128" in recorded
    decisions = tmp_path / "tma.json"
    decisions.write_text(recorded.replace("copy = cp_async", "copy = tma"))
    compiled = egg.compile(model, inputs(), agent="replay", decisions=decisions, workdir=tmp_path / "tma")
    manifest = (tmp_path / "tma" / "forward.manifest.json").read_text()
    assert '"tensor_map"' in manifest
    for _ in range(2):  # New buffers each call: the maps are re-encoded.
        args = [x.cuda() for x in inputs()]
        want = (args[0].double() @ args[1].double()).float()
        got = compiled(*args).float()
        err = ((got - want).norm() / want.norm()).item()
        assert err < 2e-3, f"relative L2 error {err}"


def test_split_product_tma_matches_reference(tmp_path):
    """A long-K bf16 product the expert splits into K slices whose partial
    products take TMA copies: the runtime encodes tensor maps of the 2-D
    inputs, and each slice's boxes start at its share of K."""
    class MatMul(torch.nn.Module):
        def forward(self, a, b):
            return a @ b

    # A 1024-row product of this K keeps its whole K loop
    # in a deep TMA pipeline; 512 rows still split (S = 2, 128x64 tiles).
    def inputs():
        return [torch.randn(512, 8192, dtype=torch.bfloat16), torch.randn(8192, 1024, dtype=torch.bfloat16)]

    compiled = egg.compile(MatMul(), inputs(), workdir=tmp_path)
    recorded = (tmp_path / "forward.decisions.json").read_text()
    assert "split_k = 2" in recorded and "copy = tma" in recorded, recorded
    for _ in range(2):
        args = [x.cuda() for x in inputs()]
        want = args[0].double() @ args[1].double()
        got = compiled(*args).double()
        err = ((got - want).norm() / want.norm()).item()
        assert err < 1e-2, f"relative L2 error {err}"


def test_group_norm_rows_in_shared_memory(tmp_path):
    """A group norm whose 128 KB groups the expert holds partly in shared
    memory (row_shared): the runtime gives the kernel its 96 KB of dynamic
    shared memory, and the result matches a float64 group norm."""
    class GroupNorm(torch.nn.Module):
        def forward(self, x):
            g = x.reshape(8, 8, -1)
            m = g.mean(-1, keepdim=True)
            d = g - m
            v = (d * d).mean(-1, keepdim=True)
            return (d * torch.rsqrt(v + 1e-5)).reshape(x.shape)

    def inputs():
        return [torch.randn(8, 64, 64, 64) * 2 + 3]

    compiled = egg.compile(GroupNorm(), inputs(), workdir=tmp_path)
    recorded = (tmp_path / "forward.decisions.json").read_text()
    assert "row_shared = 6" in recorded, recorded
    for _ in range(2):
        x = inputs()[0].cuda()
        g = x.double().reshape(8, 8, -1)
        want = ((g - g.mean(-1, keepdim=True))
                / torch.sqrt(g.var(-1, unbiased=False, keepdim=True) + 1e-5)).reshape(x.shape)
        got = compiled(x).double()
        assert (got - want).abs().max().item() < 1e-4


def test_tf32_follows_pytorch_switch(tmp_path):
    """An f32 linear layer runs on TF32 tensor cores only where the user
    allowed TF32 (by default through PyTorch's own switch), and is then
    within TF32's error of the float64 product; without the permission it
    takes three TF32 products on split inputs, within f32's error."""
    model = torch.nn.Linear(256, 4096, bias=False)

    def inputs():
        return [torch.randn(1024, 256)]

    try:
        torch.backends.cuda.matmul.allow_tf32 = True
        compiled = egg.compile(model, inputs(), workdir=tmp_path / "tf32")
    finally:
        torch.backends.cuda.matmul.allow_tf32 = False
    recorded = (tmp_path / "tf32" / "forward.decisions.json").read_text()
    assert "swizzle = xor128" in recorded and "vector = 4" in recorded
    split = egg.compile(model, inputs(), workdir=tmp_path / "f32")
    plain = (tmp_path / "f32" / "forward.decisions.json").read_text()
    assert "tf32_terms = 3" in plain, plain
    w = model.weight.detach().cuda().double()
    for _ in range(2):
        x = inputs()[0].cuda()
        want = x.double() @ w.t()
        got = compiled(x).double()
        err = ((got - want).norm() / want.norm()).item()
        assert 1e-6 < err < 2e-3, f"relative L2 error {err} (TF32 keeps 10 mantissa bits)"
        err = ((split(x).double() - want).norm() / want.norm()).item()
        assert err < 1e-5, f"relative L2 error {err} of the split products"


def test_split_tf32_products_keep_f32_accuracy(tmp_path):
    """Over a long K (8192), three TF32 products on split inputs stay within
    a small factor of PyTorch's own f32 product (cuBLAS, TF32 off) in their
    error against float64: tensor cores truncate as they accumulate, which
    each K tile's sum, added in f32, keeps from growing with K."""
    model = torch.nn.Linear(8192, 2048, bias=False)

    def inputs():
        return [torch.randn(1024, 8192)]

    compiled = egg.compile(model, inputs(), workdir=tmp_path)
    recorded = (tmp_path / "forward.decisions.json").read_text()
    assert "tf32_terms = 3" in recorded, recorded
    w = model.weight.detach().cuda()
    for _ in range(2):
        x = inputs()[0].cuda()
        want = x.double() @ w.double().t()
        ours = ((compiled(x).double() - want).norm() / want.norm()).item()
        theirs = ((x @ w.t()).double() - want).norm().item() / want.norm().item()
        assert ours < 1e-5 and ours < 4 * theirs, (
            f"relative L2 error {ours} against PyTorch's f32 {theirs}")


@pytest.mark.parametrize("a_shape,b_shape,transposed", [
    ((1024, 512), (512, 4096), ""),             # x @ w: w copied along N
    ((512, 1024), (2048, 512), "both"),         # a.T @ b.T: a along M
    ((1000, 1000), (1000, 1000), ""),           # partial M, N and K tiles
    ((8, 512, 384), (8, 384, 200), ""),         # batched, N of 200
], ids=["x_at_w", "both_transposed", "partial_tiles", "batched"])
def test_split_tf32_staged_inputs_keep_f32_accuracy(tmp_path, a_shape, b_shape, transposed):
    """Three TF32 products where an input is contiguous along M/N: its
    16-byte pieces are staged along M/N and transposed into the K-major
    tiles by the split pass. Within f32's error of float64 and of
    PyTorch's own f32 product (TF32 off), on fresh inputs."""
    class Product(torch.nn.Module):
        def forward(self, a, b):
            return a.mT @ b.mT if transposed else a @ b

    def inputs():
        return [torch.randn(*a_shape), torch.randn(*b_shape)]

    compiled = egg.compile(Product(), inputs(), workdir=tmp_path)
    recorded = (tmp_path / "forward.decisions.json").read_text()
    assert "tf32_terms = 3" in recorded, recorded
    for _ in range(2):
        a, b = [x.cuda() for x in inputs()]
        want = Product()(a.double(), b.double())
        ours = ((compiled(a, b).double() - want).norm() / want.norm()).item()
        theirs = ((Product()(a, b).double() - want).norm() / want.norm()).item()
        assert ours < 1e-5 and ours < 4 * theirs + 1e-7, (
            f"relative L2 error {ours} against PyTorch's f32 {theirs}")


@pytest.mark.parametrize("shape", [
    # 62-wide output rows: 64-position tiles past each row's end; K = 27.
    dict(conv=torch.nn.Conv2d, batch=8, cin=3, cout=64, size=(64, 64),
         tiles="threads = [128, 1, 1], block = [1, 64, 1, 64], warp = [1, 64, 1, 64]"),
    # 10-wide rows: 12 of them per 120-position tile; K = 288, 96 filters
    # (a partial tile of 128).
    dict(conv=torch.nn.Conv2d, batch=8, cin=32, cout=96, size=(256, 12),
         tiles="threads = [128, 1, 2], block = [1, 128, 12, 10], warp = [1, 64, 12, 10]"),
    # A 3-D convolution to 30 x 30 planes.
    dict(conv=torch.nn.Conv3d, batch=8, cin=8, cout=64, size=(6, 32, 32),
         tiles="threads = [128, 1, 1], block = [1, 64, 1, 1, 32], warp = [1, 64, 1, 1, 32]"),
])
def test_split_tf32_convolutions_keep_f32_accuracy(tmp_path, shape):
    """An NCHW f32 convolution as split TF32 products (from a decisions
    file: the expert keeps FMA tiles), its image and filter copied an
    element at a time: within f32's error of float64 and of PyTorch's own
    f32 convolution (TF32 off), on fresh inputs."""
    torch.manual_seed(0)
    model = shape["conv"](shape["cin"], shape["cout"], 3)

    def inputs():
        return [torch.randn(shape["batch"], shape["cin"], *shape["size"])]

    egg.compile(model, inputs(), workdir=tmp_path / "expert")
    decisions = json.loads((tmp_path / "expert" / "forward.decisions.json").read_text())
    (conv,) = [k for k in decisions["kernels"] if "conv" in k["anchor"]]
    conv["tuning"] = (f"#egg.tuning<{shape['tiles']}, reduction = [32], shared = [0, 1], "
                      "swizzle = xor128, vector = 4, copy = cp_async, pipeline = 3, "
                      "tf32_terms = 3, mma = wgmma>")
    path = tmp_path / "split.json"
    path.write_text(json.dumps(decisions))
    compiled = egg.compile(model, inputs(), agent="replay", decisions=path,
                           workdir=tmp_path / "split")
    recorded = (tmp_path / "split" / "forward.decisions.json").read_text()
    assert "tf32_terms = 3" in recorded, recorded
    gpu = model.cuda()
    exact = copy.deepcopy(gpu).double()
    for _ in range(2):
        x = inputs()[0].cuda()
        want = exact(x.double())
        ours = ((compiled(x).double() - want).norm() / want.norm()).item()
        theirs = ((gpu(x).double() - want).norm() / want.norm()).item()
        assert ours < 1e-5 and ours < 4 * theirs + 1e-7, (
            f"relative L2 error {ours} against PyTorch's f32 {theirs}")


def test_tf32_transposed_copies(tmp_path):
    """x @ w with w N-contiguous: TF32 tiles are K-major, so w is copied
    transposed, one element at a time."""
    class MatMul(torch.nn.Module):
        def forward(self, a, b):
            return a @ b

    def inputs():
        return [torch.randn(1024, 512), torch.randn(512, 4096)]

    compiled = egg.compile(MatMul(), inputs(), workdir=tmp_path, allow_tf32=True)
    assert "xor128" in (tmp_path / "forward.decisions.json").read_text()
    for _ in range(2):
        a, b = [x.cuda() for x in inputs()]
        want = a.double() @ b.double()
        err = ((compiled(a, b).double() - want).norm() / want.norm()).item()
        assert 1e-6 < err < 2e-3, f"relative L2 error {err} (TF32 keeps 10 mantissa bits)"


def test_recurrent_layers_without_states_match_float64(tmp_path):
    """Called without initial states (PyTorch's zeros): each layer's and
    direction's zero state is a fill of its own."""
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    model = torch.nn.LSTM(12, 40, 2, batch_first=True, bidirectional=True).eval()

    class Wrapped(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = model

        def forward(self, x):
            out, (h, c) = self.layer(x)
            return out, h, c

    wrapped = Wrapped()
    compiled = egg.compile(wrapped, [torch.randn(3, 9, 12)], workdir=tmp_path)
    for _ in range(2):
        x = torch.randn(3, 9, 12)
        with torch.no_grad():
            want = copy.deepcopy(wrapped).double()(x.double())
        got = compiled(x.cuda())
        for g, w in zip(got, want):
            err = ((g.double().cpu() - w).norm() / w.norm()).item()
            assert err < 1e-5, f"relative L2 error {err} against float64"


@pytest.mark.parametrize("layer", [
    # Two layers, batch first: 3 of 6 rows per block; 96 units, 3 threads'
    # worth of warps.
    dict(cell=torch.nn.LSTM, input=40, hidden=96, layers=2, batch=6, steps=33,
         bidirectional=False, batch_first=True),
    # Bidirectional GRU of 70 units (no multiple of 32 or of the unroll of 8).
    dict(cell=torch.nn.GRU, input=16, hidden=70, layers=2, batch=5, steps=20,
         bidirectional=True, batch_first=False),
    # An RNN of more units than threads (units loop) and no biases.
    dict(cell=torch.nn.RNN, input=8, hidden=320, layers=1, batch=3, steps=12,
         bidirectional=False, batch_first=False, bias=False),
])
def test_recurrent_layers_match_float64(tmp_path, layer):
    """LSTM, GRU and RNN layers as egg.recurrence kernels (a block per tile
    of batch rows runs every step): within f32's error of float64 and of
    PyTorch's own f32 layer, on fresh inputs, every output (the sequence
    and the final states)."""
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    model = layer["cell"](layer["input"], layer["hidden"], layer["layers"],
                          bias=layer.get("bias", True), batch_first=layer["batch_first"],
                          bidirectional=layer["bidirectional"]).eval()
    directions = 2 if layer["bidirectional"] else 1
    lstm = layer["cell"] is torch.nn.LSTM

    def inputs():
        b, t = layer["batch"], layer["steps"]
        x = torch.randn(b, t, layer["input"]) if layer["batch_first"] else \
            torch.randn(t, b, layer["input"])
        h = torch.randn(layer["layers"] * directions, b, layer["hidden"])
        return [x, (h, torch.randn_like(h))] if lstm else [x, h]

    class Wrapped(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = model

        def forward(self, x, h, c=None):
            out, state = self.layer(x, (h, c) if lstm else h)
            return (out, *state) if lstm else (out, state)

    def flat(args):
        return [args[0], *args[1]] if lstm else args

    wrapped = Wrapped().eval()
    compiled = egg.compile(wrapped, flat(inputs()), workdir=tmp_path)
    assert "recurrence_block" in (tmp_path / "forward.decisions.json").read_text()
    gpu = wrapped.cuda()
    exact = copy.deepcopy(gpu).double()
    for _ in range(2):
        args = [a.cuda() for a in flat(inputs())]
        want = exact(*[a.double() for a in args])
        ours, theirs = compiled(*args), gpu(*args)
        for o, t, w in zip(ours, theirs, want):
            err = ((o.double() - w).norm() / w.norm()).item()
            ref = ((t.double() - w).norm() / w.norm()).item()
            assert err < 1e-5 and err < 4 * ref + 1e-7, (
                f"relative L2 error {err} against PyTorch's f32 {ref}")


@pytest.mark.parametrize("case", [
    # Stride 2, dilation 2: one phase of two per dim is computed, the other
    # filled in by a pad (the bias alone).
    dict(module=lambda: torch.nn.ConvTranspose3d(8, 16, 3, stride=2, padding=1, dilation=2),
         shape=(2, 8, 6, 10, 10), structure=None),
    # Stride 2, kernel 4, padding 1: a phase window from -1.
    dict(module=lambda: torch.nn.ConvTranspose2d(16, 24, 4, stride=2, padding=1),
         shape=(4, 16, 17, 23), structure=None),
    # Output rows of 62: row thread tiles (4 rows x 2 positions per thread).
    dict(module=lambda: torch.nn.Conv3d(3, 64, 3), shape=(2, 3, 10, 64, 64),
         structure="thread = [1, 8, 1, 4, 2]"),
    # 16 filters: 4 per thread x 4 rows x 2 positions.
    dict(module=lambda: torch.nn.Conv3d(4, 16, 3), shape=(2, 4, 8, 64, 64),
         structure="thread = [1, 4, 1, 4, 2]"),
    # 32 channels, 64 filters, enough blocks for a wave: read through NHWC
    # / FHWC copies, three TF32 products on split inputs (sm_90a), written
    # NCHW; a padded, dilated and strided one, and a stride-1 transposed
    # one with a bias.
    dict(module=lambda: torch.nn.Conv2d(32, 64, 3, padding=1), shape=(4, 32, 64, 64),
         structure="tf32_terms = 3"),
    dict(module=lambda: torch.nn.Conv2d(16, 128, (3, 5), stride=2, padding=(2, 1), dilation=2,
                                        bias=False),
         shape=(4, 16, 64, 300), structure="tf32_terms = 3"),
    dict(module=lambda: torch.nn.ConvTranspose2d(64, 128, 3), shape=(3, 64, 48, 130),
         structure="tf32_terms = 3"),
    # Rows of 56: split tiles of two whole rows, 112 positions.
    dict(module=lambda: torch.nn.Conv2d(64, 128, 3, padding=1), shape=(8, 64, 56, 56),
         structure="block = [1, 128, 2, 56], warp = [1, 64, 2, 56]"),
], ids=["transposed_stride2_dilated", "transposed_k4_window", "rows_62", "rows_62_16_filters",
        "channels_last_split", "channels_last_strided_dilated", "channels_last_transposed",
        "channels_last_rows_56"])
def test_convolution_forms_match_float64(tmp_path, case):
    """Transposed convolutions as phase convolutions and convolutions with
    row thread tiles: within f32's error of float64, on fresh inputs."""
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    model = case["module"]().eval()
    compiled = egg.compile(model, [torch.randn(*case["shape"])], workdir=tmp_path)
    if case["structure"]:
        assert case["structure"] in (tmp_path / "forward.decisions.json").read_text()
    exact = copy.deepcopy(model).cuda().double()
    for _ in range(2):
        x = torch.randn(*case["shape"], device="cuda")
        want = exact(x.double())
        got = compiled(x)
        err = ((got.double() - want).norm() / want.norm()).item()
        assert err < 1e-5, f"relative L2 error {err} against float64"


class _Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


@pytest.mark.parametrize("fn,shape,form", [
    # Rows of 1001 (odd: scalar accesses, a partial last step).
    (lambda x: torch.cumsum(x.flip(1), 1).flip(1), (64, 1001), "reverse"),
    (lambda x: torch.cat((torch.zeros_like(x[:, :1]), torch.cumsum(x[:, :-1], 1)), 1),
     (64, 4096), "exclusive"),
    (lambda x: torch.cat((torch.ones_like(x[:, :1]), torch.cumprod(x[:, :-1], 1)), 1),
     (32, 300), "exclusive"),
    # A reduction over C x D x H x W: one row of 24 * 10 * 14 * 14.
    (lambda x: (x * x).mean(dim=(1, 2, 3, 4)), (16, 24, 10, 14, 14), "reduce_row_per_block"),
], ids=["cumsum_reverse", "cumsum_exclusive", "cumprod_exclusive", "mean_over_cdhw"])
def test_scan_and_row_forms_match_float64(tmp_path, fn, shape, form):
    """Reverse and exclusive scans in one pass, and a reduction over several
    trailing dims as one row: within f32's error of float64."""
    torch.manual_seed(0)
    positive = "cumprod" in str(fn.__code__.co_names)
    draw = (lambda: torch.rand(*shape, device="cuda") * 0.1 + 0.95) if positive else \
        (lambda: torch.randn(*shape, device="cuda"))
    model = _Fn(fn)
    compiled = egg.compile(model, [draw().cpu()], workdir=tmp_path)
    text = (tmp_path / "forward.decisions.json").read_text() + \
        (tmp_path / "forward.mlir").read_text()
    assert form in text
    for _ in range(2):
        x = draw()
        want = fn(x.double())
        got = compiled(x)
        err = ((got.double() - want).norm() / want.norm()).item()
        assert err < 1e-5, f"relative L2 error {err} against float64"


class _Cat(torch.nn.Module):
    def __init__(self, widths, dim):
        super().__init__()
        self.widths, self.dim = widths, dim

    def forward(self, x):
        parts = torch.split(x, self.widths, self.dim)
        return torch.cat([p.relu() if i % 2 else p * 2 for i, p in enumerate(parts)], self.dim)


@pytest.mark.parametrize("widths,dim", [([32, 64], 1), ([8, 16, 24, 8, 32, 8, 16], 1),
                                        ([5, 9, 13], 3)],
                         ids=["two_channels", "seven_in_groups", "three_along_rows"])
def test_concatenations_match_float64(tmp_path, widths, dim):
    """A concatenation as one pass per four operands: each element taken
    from the operand whose range holds it."""
    torch.manual_seed(0)
    shape = [8, sum(widths), 14, 14] if dim == 1 else [8, 16, 14, sum(widths)]
    model = _Cat(widths, dim)
    compiled = egg.compile(model, [torch.randn(*shape)], workdir=tmp_path)
    assert "tensor.pad" not in (tmp_path / "forward.mlir").read_text()
    for _ in range(2):
        x = torch.randn(*shape, device="cuda")
        want = model(x.double())
        # Doubling and ReLU are exact in f32: so is the result.
        assert torch.equal(compiled(x).double(), want)
