"""PyTorch front end: nn.Module + example inputs -> linalg-on-tensors MLIR.

The module is exported with ``torch.export`` and decomposed to core ATen;
each ATen op becomes linalg on tensors that egg-opt 22 parses. Parameters and
buffers become leading function arguments (in ``ImportedModule.arg_names``
order), then the user inputs. Views (permute, transpose, unsqueeze, squeeze,
expand) cost nothing: they are carried as index maps and folded into the
indexing maps of the ops that read them; a view is copied only where a named
op or the function's result needs it laid out. Anything else raises
``UnsupportedOp`` naming the op. ``check_node`` asks the same of one node
(the torch.compile backend splits graphs with it).
"""
import collections
import contextlib
import itertools
import math
import operator
import re
import warnings
from dataclasses import dataclass, field

MLIR_TYPES = {"torch.float32": "f32", "torch.float16": "f16", "torch.bfloat16": "bf16",
              # Integer tensors (class targets, indices) are held as float32,
              # exact below 2^24: EGG's kernels compute on floats.
              "torch.int64": "f32"}
INTEGER_DTYPES = ("torch.int64",)
# The largest magnitude an integer input may hold (float32 is exact below it).
INTEGER_LIMIT = 1 << 24


class UnsupportedOp(Exception):
    """An op (or a use of it) the front end does not translate."""


def source_line(node):
    """Where the user's code made `node` (file:line and the line), from the
    stack trace torch.export keeps; None where it kept none."""
    trace = (node.meta.get("stack_trace") or "").strip().splitlines()
    for i in range(len(trace) - 1, -1, -1):
        m = re.match(r'\s*File "([^"]+)", line (\d+)', trace[i])
        if m:
            code = trace[i + 1].strip() if i + 1 < len(trace) else ""
            code = "" if code.startswith("File ") else code
            return f"{m.group(1).rsplit('/', 1)[-1]}:{m.group(2)}" + (f" `{code}`" if code else "")
    return None


def refuse(node, why):
    """The UnsupportedOp for `node`: the op, why, and the user's source line
    first (what a reader needs), the graph node last."""
    op = str(node.target) if node.op == "call_function" else f"input {node.name}"
    where = source_line(node)
    return UnsupportedOp(f"{op}: {why}" + (f" at {where}" if where else "")
                         + f" [{node.format_node()}]")


@dataclass
class Value:
    """A logical tensor: a physical SSA tensor seen through a view. `phys[p]`
    is the logical dim that physical dim p follows, or None where the
    physical extent is 1 and the index is always 0 (squeezed or broadcast)."""
    name: str
    phys_shape: tuple
    shape: tuple
    dtype: str
    phys: list = field(default_factory=list)

    def is_plain(self):
        return self.phys == list(range(len(self.shape))) and self.phys_shape == self.shape


# Column statistics are summed in parts where their columns alone would
# give fewer threads than this (rows cut into parts of at least
# MIN_PART_ROWS, as for TWO_STAGE_ELEMENTS).
COLUMN_THREADS = 1 << 16
MIN_PART_ROWS = 64
MIN_PARTS = 4  # Fewer would not pay for the launches the parts add.


def column_parts(rows, columns):
    """Parts to cut `rows` into for column sums over `columns` columns: the
    fewest that divide rows and give COLUMN_THREADS parts x columns, or
    else the most that leave parts of MIN_PART_ROWS rows; 1 where the
    columns alone give threads enough or the parts would be few."""
    if columns >= COLUMN_THREADS:
        return 1
    want, most = -(-COLUMN_THREADS // columns), rows // MIN_PART_ROWS
    for p in list(range(want, most + 1)) + list(range(min(want, most), 1, -1)):
        if rows % p == 0:
            return p if p >= MIN_PARTS else 1
    return 1


def unit_dims_only(v):
    """Whether the view v holds its physical tensor's elements in order, only
    size-1 dims added or removed (no transpose, no broadcast)."""
    held = [l for l in v.phys if l is not None]
    return (held == sorted(set(held))
            and all(v.shape[l] == 1 for l in range(len(v.shape)) if l not in held)
            and all(v.phys_shape[p] == (1 if l is None else v.shape[l])
                    for p, l in enumerate(v.phys)))


@dataclass
class ImportedModule:
    mlir: str
    function: str
    arg_names: list  # parameters/buffers/constants, then user inputs
    arg_values: list  # the tensors for those arguments (user inputs as given)
    result_count: int
    num_lifted: int = 0  # leading arguments that are parameters/buffers/constants
    result_shapes: list = None  # PyTorch's shapes of the results (a 0-d one is 1 element)
    # User inputs that are numbers (position among the user inputs: value):
    # compiled in as constants, so a call must pass the same values.
    constant_inputs: dict = field(default_factory=dict)
    # User inputs that are boolean tensors (their positions): passed to the
    # kernels as float32 zeros and ones.
    boolean_inputs: set = field(default_factory=set)
    # Results that are int64 to PyTorch (indices), computed as float32.
    integer_results: set = field(default_factory=set)
    # User inputs that are int64 tensors (their positions): passed to the
    # kernels as float32, exact below INTEGER_LIMIT.
    integer_inputs: set = field(default_factory=set)


@dataclass
class Predicate:
    """A boolean tensor, kept as the comparison that makes it: EGG's kernels
    hold no i1 tensors, so each consumer (where, a cast to a float type)
    computes the comparison in its own body. `compare(names, dtype)` gives
    (lines, i1 result) for the operands' SSA names."""
    operands: list
    compare: object
    shape: tuple


def tensor_type(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def affine_map(rank, exprs):
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({', '.join(exprs)})>"


class Pieces:
    """The results of an op that returns several tensors (split, unbind),
    each translated when a graph node first reads it: an unread piece
    costs no kernel."""

    def __init__(self, builders):
        self.builders = builders
        self.built = {}

    def __getitem__(self, i):
        if i not in self.built:
            self.built[i] = self.builders[i]()
        return self.built[i]

    def __len__(self):
        return len(self.builders)


class Emitter:
    def __init__(self):
        self.lines = []
        self.counter = 0
        self.fill_values = {}  # Name of each linalg.fill's result -> its value.

    def fresh(self, hint="v"):
        self.counter += 1
        return f"%{hint}{self.counter}"

    def emit(self, line):
        self.lines.append("  " + line)

    # -- building blocks ---------------------------------------------------

    def empty(self, shape, dtype):
        name = self.fresh("e")
        self.emit(f"{name} = tensor.empty() : {tensor_type(shape, dtype)}")
        return name

    def filled(self, shape, dtype, value):
        cst, name = self.fresh("c"), self.fresh("f")
        self.emit(f"{cst} = arith.constant {float_literal(value, dtype)} : {dtype}")
        e = self.empty(shape, dtype)
        t = tensor_type(shape, dtype)
        self.emit(f"{name} = linalg.fill ins({cst} : {dtype}) outs({e} : {t}) -> {t}")
        self.fill_values[name] = value
        return name

    def zero_pad(self, source, shape, dtype, pads, value=0.0):
        """tensor.pad of `source` with zeros (or `value`), pads[d] elements on
        both sides of dimension d; returns the padded tensor's name and shape."""
        return self.pad_sides(source, shape, dtype, pads, pads, value)

    def pad_sides(self, source, shape, dtype, low, high, value=0.0):
        """tensor.pad of `source` with zeros (or `value`), low[d] / high[d]
        elements before / after dim d; returns the padded tensor's name and
        shape."""
        padded = tuple(n + a + b for n, a, b in zip(shape, low, high))
        zero, name = self.fresh("c"), self.fresh("p")
        indices = ", ".join(f"%i{d}: index" for d in range(len(shape)))
        self.emit(f"{zero} = arith.constant {float_literal(value, dtype)} : {dtype}")
        self.emit(f"{name} = tensor.pad {source} low[{', '.join(map(str, low))}] "
                  f"high[{', '.join(map(str, high))}] {{")
        self.emit(f"^bb0({indices}):")
        self.emit(f"  tensor.yield {zero} : {dtype}")
        self.emit(f"}} : {tensor_type(shape, dtype)} to {tensor_type(padded, dtype)}")
        return name, padded

    def input_map(self, v, dim_of_logical, rank):
        """Indexing map of view `v` in an iteration space of `rank` dims where
        logical dim l of v is iteration dim dim_of_logical[l] (None: 0)."""
        exprs = []
        for p, l in enumerate(v.phys):
            if l is None or dim_of_logical[l] is None:
                exprs.append("0")
            else:
                exprs.append(f"d{dim_of_logical[l]}")
        return affine_map(rank, exprs)

    def generic(self, rank, iterators, inputs, out_shape, out_dtype, out_map, body,
                init=None):
        """inputs: [(Value, dim_of_logical)]; body(args) -> list of (line) and
        the result SSA name, given block argument names for the inputs and the
        output accumulator."""
        maps = [self.input_map(v, dims, rank) for v, dims in inputs] + [out_map]
        out_t = tensor_type(out_shape, out_dtype)
        init = init or self.empty(out_shape, out_dtype)
        name = self.fresh("g")
        ins = ", ".join(v.name for v, _ in inputs)
        in_types = ", ".join(tensor_type(v.phys_shape, v.dtype) for v, _ in inputs)
        iters = ", ".join(f'"{i}"' for i in iterators)
        head = f"{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{iters}]}}"
        if inputs:
            head += f" ins({ins} : {in_types})"
        head += f" outs({init} : {out_t}) {{"
        self.emit(head)
        args = [f"%a{i}" for i in range(len(inputs))] + ["%acc"]
        types = [v.dtype for v, _ in inputs] + [out_dtype]
        self.emit("^bb0(" + ", ".join(f"{a}: {t}" for a, t in zip(args, types)) + "):")
        lines, result = body(args)
        for line in lines:
            self.emit("  " + line)
        self.emit(f"  linalg.yield {result} : {out_dtype}")
        self.emit(f"}} -> {out_t}")
        return name


def exact_constant(fresh, value, dtype):
    """(lines, name) of `value` as a `dtype` constant written in f64 and
    truncated: the kernels get the same rounded constant (egg-opt folds the
    truncation), while egg-eval's float64 reference keeps the exact value,
    as PyTorch does in float64 (a norm's eps of 1e-5; ill-conditioned
    models such as batch statistics over two values magnify the difference)."""
    wide, name = fresh("k"), fresh("k")
    return [f"{wide} = arith.constant {float_literal(value, 'f64')} : f64",
            f"{name} = arith.truncf {wide} : f64 to {dtype}"], name


def float_literal(value, dtype):
    if isinstance(value, float) and math.isnan(value):  # MLIR spells NaN in hex.
        return "0x7FC00000" if dtype == "f32" else ("0x7E00" if dtype == "f16" else "0x7FC0")
    if value == math.inf:
        return "0x7F800000" if dtype == "f32" else ("0x7C00" if dtype == "f16" else "0x7F80")
    if value == -math.inf:
        return "0xFF800000" if dtype == "f32" else ("0xFC00" if dtype == "f16" else "0xFF80")
    text = repr(float(value))
    if "e" in text and "." not in text:  # MLIR wants digits before the exponent: 1.0e-05
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def phase_blocks(q):
    """The phase convolution's extent for q output blocks: q rounded up to
    a multiple of 8 where that adds at most 1/16, so that the kernels' tiles
    divide it (q = 257, a prime, left one thread per row); the crop drops
    the blocks past the output."""
    rounded = -(-q // 8) * 8
    return rounded if (rounded - q) * 16 <= q else q


@dataclass
class PhaseWindow:
    """How one dim of a strided transposed convolution splits into phases:
    output q*s + r for r in the window [start_window, start_window + s);
    the phases computed are start + step*j for j < count; tap k is phase
    phase_of[k] and reads input q + offsets[k]; `blocks` blocks of s
    outputs from the window's start cover every output (phase_blocks)."""
    start_window: int
    start: int
    step: int
    count: int
    phase_of: list
    offsets: list
    blocks: int


def phase_window(stride, shifts, outputs):
    """The PhaseWindow of one dim whose tap k adds input i into output
    i*stride + shifts[k], with the least work: computed phases x kernel
    extent x blocks over `outputs` outputs. A window starting below 0 can
    give every tap the same input offset (stride 2, kernel 4, padding 1:
    two phases of 2 taps rather than 3); a run of phases whose step
    divides the stride leaves out phases no tap reaches. Ties keep the
    window at 0."""
    best = None
    for w in range(0, -stride, -1):
        phase = [w + (v - w) % stride for v in shifts]
        offsets = [(r - v) // stride for r, v in zip(phase, shifts)]
        present = sorted(set(phase))
        step = stride
        for r in present[1:]:
            step = math.gcd(step, r - present[0])
        count = (present[-1] - present[0]) // step + 1
        blocks = phase_blocks(-(-(outputs - w) // stride))
        cost = count * (max(offsets) - min(offsets) + 1) * blocks
        if best is None or cost < best[0]:
            best = (cost, PhaseWindow(w, present[0], step, count,
                                      [(r - present[0]) // step for r in phase], offsets,
                                      blocks))
    return best[1]


def block_diagonal(t, groups):
    """A grouped transposed convolution's weight [C, F/G, K..] as the dense
    [C, F, K..] one: group g's input channels feed only its F/G outputs."""
    c, f = t.shape[0], t.shape[1]
    out = t.new_zeros((c, f * groups) + tuple(t.shape[2:]))
    for g in range(groups):
        rows = slice(g * c // groups, (g + 1) * c // groups)
        out[rows, g * f:(g + 1) * f] = t[rows]
    return out


def reads_channels_last(x_shape, w_shape, out_shape):
    """Whether an f32 NCHW convolution reads its input and weight through
    NHWC / FHWC copies (docs/principles/structure.md, principle 7): the
    channels contiguous give the implicit GEMM 16-byte pieces along K, so
    sm_90a splits its f32 products over TF32 tensor cores, where the NCHW
    image is gathered an element at a time into FMA tiles (2-D images;
    1-D ones are 2-D of height 1). It pays where the split product takes
    the convolution and is deep and wide enough to outweigh the copies: at
    least 16 input channels (a multiple of 4) and 64 filters (a warpgroup
    tile's rows), output rows that fill the split tiles' 128 positions
    (rows of at least 128, whole rows of a divisor of 128, or whole rows
    making 64-127 positions, a multiple of 8: 2 x 56), about a tile per SM
    (128 tiles of them), and at least CHANNELS_LAST_FLOPS_PER_BYTE of
    product per byte of the input copied. Other products keep FMA tiles,
    which the transposes would only slow: 7- or 14-wide rows, 1x1
    convolutions at stride 1 (products already), strided convolutions of
    few filters. 3-D images keep NCDHW: FMA tiles over an NDHWC copy have
    not been timed."""
    if len(x_shape) != 4:
        return False
    # A 1x1 convolution at stride 1 is already a product whose NCHW image
    # is contiguous along N: its copies only add traffic (4-44% slower on
    # the H100, ShuffleNet's 2.4x).
    if math.prod(w_shape[2:]) == 1 and x_shape[2:] == out_shape[2:]:
        return False
    channels, filters, width = x_shape[1], w_shape[0], out_shape[-1]
    # Or whole rows up to 128 positions, a multiple of 8 (wgmma's N step):
    # 2 x 56 = 112.
    per_tile = 128 // width if width < 128 else 1
    rows_fit = (width >= 128 or 128 % width == 0
                or (per_tile * width >= 64 and per_tile * width % 8 == 0
                    and out_shape[2] % per_tile == 0))
    positions = out_shape[0] * math.prod(out_shape[2:])
    # 2 N F C KH KW OH OW FLOPs over 4 N C H W bytes of input.
    flops_per_byte = (filters * math.prod(w_shape[2:]) * math.prod(out_shape[2:])
                      / (2 * math.prod(x_shape[2:])))
    return (channels % 4 == 0 and channels >= 16 and filters >= 64 and rows_fit
            and positions >= 128 * 128 and flops_per_byte >= CHANNELS_LAST_FLOPS_PER_BYTE)


# The least product, in FLOPs per byte of input, that pays for an f32
# convolution's channels-last copy: the copy reads and writes the input
# once. Measured on KernelBench's f32 convolutions (docs/principles/
# structure.md, principle 7): 192 and more ran up to 1.9x faster than FMA
# tiles, 64-160 (1x1, stride 3, 1-D ones of 64 filters) 4-44% slower.
CHANNELS_LAST_FLOPS_PER_BYTE = 176

# Rows at most this long scan as an elementwise generic (short_scan), which
# its consumer's kernel can take; longer ones as egg.scan, a kernel of its
# own whose warps read and write each element once.
SCAN_CHUNK = 32
# Gates of each recurrent layer's cell (PyTorch's order: LSTM i, f, g, o;
# GRU r, z, n).
RECURRENT_GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}
# How egg.recurrence is told to walk the steps from the last to the first.
RECURRENCE_REVERSE = "attributes {reverse}"
# Operands a concatenation reads in one pass over its result (each element
# reads all of them, the ones outside their range at their clamped edge);
# more are concatenated in groups of this many first.
CAT_FAN_IN = 4
# A scan's combining op, its identity and egg.scan's kind, by kind.
SCAN_OPS = {"sum": ("addf", 0.0, "add"), "prod": ("mulf", 1.0, "mul")}

# A whole-tensor reduction of at least this many elements runs in two stages:
# many rows reduced in parallel, then one row of their partial results (one
# row of all the elements would leave the GPU to one block).
TWO_STAGE_ELEMENTS = 1 << 17
MAX_PARTIAL_RESULTS = 16384
MIN_PARTIAL_RESULTS = 32


def whole_reduction_parts(shape):
    """How a reduction of every element of `shape` splits into two stages:
    (kept, rows). kept > 0: the first stage keeps the leading `kept` dims
    (as many as hold at most MAX_PARTIAL_RESULTS elements) and reduces the
    rest, so the ops that feed it share its loops and fuse. Otherwise rows
    > 1: the first stage reduces `rows` rows of a flat view. (0, 1): one
    stage."""
    n = math.prod(shape)
    if n < TWO_STAGE_ELEMENTS:
        return 0, 1
    kept = 0
    while kept < len(shape) - 1 and math.prod(shape[:kept + 1]) <= MAX_PARTIAL_RESULTS:
        kept += 1
    if not kept and len(shape) > 1 and shape[0] <= 16 * MAX_PARTIAL_RESULTS:
        kept = 1  # A long first dim: its rows are the parts.
    if kept and math.prod(shape[:kept]) >= MIN_PARTIAL_RESULTS:
        return kept, 1
    rows = max((d for d in range(1, MAX_PARTIAL_RESULTS + 1) if n % d == 0))
    return 0, (rows if rows >= MIN_PARTIAL_RESULTS else 1)


def broadcast_shape(shapes):
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        sizes = {s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0} - {1}
        if len(sizes) > 1:
            raise UnsupportedOp(f"shapes {shapes} do not broadcast")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


class Importer:
    def __init__(self, name, parameters=(), folded=None):
        self.e = Emitter()
        self.name = name
        self.values = {}
        # Placeholders that hold the module's parameters (their values are
        # known when the module is compiled), and the arguments prepared
        # from them: (placeholder name, argument name, Value, transform).
        self.parameters = set(parameters)
        self.prepared = []
        self.constants = {}  # Number arguments, by placeholder: their traced values.
        self.boolean_inputs = set()  # Boolean tensor arguments, passed as float32.
        self.integer_inputs = set()  # Integer tensor arguments, passed as float32.
        self.arguments = set()  # SSA names of the function's tensor arguments.
        # Nodes computed from integer or boolean buffers and constants when
        # the module is compiled (fold_integer_work): name -> the tensor, an
        # argument of its own.
        self.folded = folded or {}

    def prepared_parameter(self, node, suffix, shape, transform):
        """A parameter laid out anew once, when the module is compiled (as
        compilers prepack weights): a function argument of its own, holding
        transform(parameter). None where `node` is not a parameter."""
        if getattr(node, "op", None) != "placeholder" or node.name not in self.parameters:
            return None
        dtype = self.dtype_of(node)
        value = self.plain(f"%{sanitize(node.name)}_{suffix}", shape, dtype)
        if all(p[1].name != value.name for p in self.prepared):
            self.prepared.append((node.name, value, transform))
        return value

    # -- helpers -------------------------------------------------------------

    @staticmethod
    def dtype_of(node):
        val = node.meta.get("val")
        key = str(getattr(val, "dtype", ""))
        if key not in MLIR_TYPES:
            raise refuse(node, f"element type {key or '?'} (EGG takes float32, float16, "
                               "bfloat16 and int64)")
        return MLIR_TYPES[key]

    @staticmethod
    def shape_of(node):
        return tuple(int(d) for d in node.meta["val"].shape)

    def materialize(self, v):
        """The view laid out as a tensor of its logical shape. A function
        argument seen with size-1 dims added or removed is reshaped instead:
        a view of the argument, where a copy would be a kernel of its own
        (a copy of a computed tensor joins its producer's kernel)."""
        if not v.is_plain() and v.name in self.arguments and v.shape:
            view = self.unit_view(v, v.shape)
            if view:
                return view
        return self.relayout(v, list(range(len(v.shape))))

    def indexed(self, v):
        """v, or v materialized where a logical dim has no physical one:
        every loop of a generic reading it needs an operand that indexes it."""
        if any(d not in v.phys for d in range(len(v.shape))):
            return self.materialize(v)
        return v

    def unit_view(self, v, shape):
        """v's physical tensor reshaped to `shape` where v holds its elements
        in order (size-1 dims added or removed only); else None."""
        if v.phys_shape and unit_dims_only(v):
            return self.view_reshape(self.plain(v.name, v.phys_shape, v.dtype), shape)
        return None

    def relayout(self, v, order):
        """The view laid out as a tensor whose physical dim p follows logical
        dim order[p] (e.g. [0, 2, 3, 1]: an NCHW view stored NHWC)."""
        if v.phys == list(order) and v.phys_shape == tuple(v.shape[l] for l in order):
            return v
        rank = len(v.shape)
        phys_shape = tuple(v.shape[l] for l in order)
        out_map = affine_map(rank, [f"d{i}" for i in range(rank)])
        name = self.e.generic(rank, ["parallel"] * rank, [(v, [order.index(l) for l in range(rank)])],
                              phys_shape, v.dtype, out_map, lambda a: ([], a[0]))
        return Value(name, phys_shape, v.shape, v.dtype, list(order))

    def result(self, v):
        """A function result laid out as its shape says; a 0-d one stays in
        its 1-element tensor (ImportedModule.result_shapes says it is 0-d)."""
        if v.shape:
            return self.materialize(v)
        return self.plain(v.name, v.phys_shape, v.dtype)

    def plain(self, name, shape, dtype):
        return Value(name, tuple(shape), tuple(shape), dtype, list(range(len(shape))))

    # -- elementwise -----------------------------------------------------------

    def elementwise(self, node, operands, body, out_dtype=None, out_shape=None):
        """operands: Values, Python numbers or Predicates (a comparison used
        as a number: 1 where true, else 0); body(list of SSA operand names,
        dtype) -> (lines, result). The result has node's shape and type, or
        out_shape and out_dtype."""
        out_shape = self.shape_of(node) if out_shape is None else tuple(out_shape)
        dtype = out_dtype or self.dtype_of(node)
        scalar = not out_shape  # EGG's kernels need a loop: a 0-d result is a 1-element one.
        out_shape = out_shape or (1,)
        rank = len(out_shape)
        inputs = []

        def ref(op):
            if isinstance(op, Predicate):
                return ("pred", op, [ref(x) for x in op.operands])
            if isinstance(op, Value):
                if op.dtype != dtype:
                    raise refuse(node, "mixed element types")
                offset = rank - len(op.shape)
                dims = [None if (op.shape[l] == 1 and out_shape[offset + l] != 1) else offset + l
                        for l in range(len(op.shape))]
                inputs.append((op, dims))
                return ("arg", len(inputs) - 1)
            return ("const", float(op))
        refs = [ref(op) for op in operands]
        out_map = affine_map(rank, [f"d{i}" for i in range(rank)])

        def name_of(r, args, lines):
            if r[0] == "arg":
                return args[r[1]]
            c = self.e.fresh("k")
            if r[0] == "const":
                lines.append(f"{c} = arith.constant {float_literal(r[1], dtype)} : {dtype}")
                return c
            more, cond = r[1].compare([name_of(x, args, lines) for x in r[2]], dtype)
            one, zero = self.e.fresh("k"), self.e.fresh("k")
            lines += list(more) + [f"{one} = arith.constant 1.0 : {dtype}",
                                   f"{zero} = arith.constant 0.0 : {dtype}",
                                   f"{c} = arith.select {cond}, {one}, {zero} : {dtype}"]
            return c

        def full_body(args):
            lines = []
            names = [name_of(r, args, lines) for r in refs]
            more, result = body(names, dtype)
            return lines + more, result

        name = self.e.generic(rank, ["parallel"] * rank, inputs, out_shape, dtype, out_map,
                              full_body)
        return self.scalar_view(name, dtype) if scalar else self.plain(name, out_shape, dtype)

    def scalar_view(self, name, dtype):
        """A 0-d value held in a 1-element tensor."""
        return Value(name, (1,), (), dtype, [None])

    def unary(self, node, x, expr):
        return self.elementwise(node, [x], lambda n, t: expr(n[0], t))

    # -- ops ------------------------------------------------------------------

    def arg(self, a):
        if isinstance(a, (int, float)):
            return a
        if hasattr(a, "name") and a.name in self.values:
            if self.values[a.name] is None:
                raise UnsupportedOp(f"{a.name}: the mean/rstd results of native_layer_norm")
            return self.values[a.name]
        raise UnsupportedOp(f"argument {a!r}")

    def op_call(self, node):
        import torch
        aten = torch.ops.aten
        t = node.target
        args = node.args
        A = lambda i: self.arg(args[i])  # noqa: E731
        fresh = self.e.fresh

        def binop(opname):
            def body(n, dt):
                r = fresh("t")
                return [f"{r} = arith.{opname} {n[0]}, {n[1]} : {dt}"], r
            return body

        def un(opname, dialect="math"):
            def expr(x, dt):
                r = fresh("t")
                return [f"{r} = {dialect}.{opname} {x} : {dt}"], r
            return expr

        if t in (aten.add.Tensor, aten.sub.Tensor):
            alpha = node.kwargs.get("alpha", 1)
            b = A(1)
            if alpha != 1:
                if not isinstance(b, Value):
                    b = b * alpha
                else:
                    b = self.elementwise(node, [b, alpha], binop("mulf"))
            return self.elementwise(node, [A(0), b],
                                    binop("addf" if t == aten.add.Tensor else "subf"))
        if t in (aten.add.Scalar,):
            return self.elementwise(node, [A(0), A(1)], binop("addf"))
        if t in (aten.mul.Tensor, aten.mul.Scalar):
            return self.elementwise(node, [A(0), A(1)], binop("mulf"))
        if t in (aten.div.Tensor, aten.div.Scalar):
            return self.elementwise(node, [A(0), A(1)], binop("divf"))
        if t in (aten.sub.Scalar,):
            return self.elementwise(node, [A(0), A(1)], binop("subf"))
        if t == aten.rsub.Scalar:
            return self.elementwise(node, [A(1), A(0)], binop("subf"))
        if t in (aten.maximum.default,):
            return self.elementwise(node, [A(0), A(1)], binop("maximumf"))
        if t in (aten.minimum.default,):
            return self.elementwise(node, [A(0), A(1)], binop("minimumf"))
        if t == aten.relu.default:
            return self.elementwise(node, [A(0), 0.0], binop("maximumf"))
        if t in (aten.clamp.default, aten.clamp.Tensor, aten.hardtanh.default):
            # Bounds are numbers or (clamp.Tensor) tensors broadcast to x.
            default = (-1.0, 1.0) if t == aten.hardtanh.default else (None, None)
            lo = args[1] if len(args) > 1 else node.kwargs.get("min", default[0])
            hi = args[2] if len(args) > 2 else node.kwargs.get("max", default[1])
            ops = [A(0)] + [self.arg(x) for x in (lo, hi) if x is not None]

            def body(n, dt):
                lines, cur, i = [], n[0], 1
                for bound, op in ((lo, "maximumf"), (hi, "minimumf")):
                    if bound is None:
                        continue
                    r = fresh("t")
                    lines.append(f"{r} = arith.{op} {cur}, {n[i]} : {dt}")
                    cur, i = r, i + 1
                return lines, cur
            return self.elementwise(node, ops, body)
        if t == aten._assert_tensor_metadata.default:
            return None  # A check of the traced metadata: nothing to compute.
        if t == aten.scalar_tensor.default:
            return float(args[0])  # A 0-d constant: a number to its consumers.
        predicate = self.predicate(node, t, args, A)
        if predicate is not None:
            return predicate
        if t == aten.where.self:
            return self.where(node, A(0), A(1), A(2))
        if t == aten.elu.default:
            # elu, selu and celu: scale * (x > 0 ? x : alpha * (exp(x * input_scale) - 1)).
            alpha = args[1] if len(args) > 1 else node.kwargs.get("alpha", 1.0)
            scale = args[2] if len(args) > 2 else node.kwargs.get("scale", 1.0)
            in_scale = args[3] if len(args) > 3 else node.kwargs.get("input_scale", 1.0)

            def body(n, dt):
                z, e, m, neg, c, pos, r = (fresh("k"), fresh("t"), fresh("t"), fresh("t"),
                                           fresh("t"), fresh("t"), fresh("t"))
                return [f"{z} = arith.constant 0.0 : {dt}",
                        f"{m} = arith.mulf {n[0]}, {n[3]} : {dt}",
                        f"{e} = math.expm1 {m} : {dt}",
                        f"{neg} = arith.mulf {e}, {n[1]} : {dt}",
                        f"{c} = arith.cmpf ogt, {n[0]}, {z} : {dt}",
                        f"{pos} = arith.select {c}, {n[0]}, {neg} : {dt}",
                        f"{r} = arith.mulf {pos}, {n[2]} : {dt}"], r
            return self.elementwise(node, [A(0), alpha, scale, in_scale], body)
        simple = {aten.exp.default: ("exp", "math"), aten.log.default: ("log", "math"),
                  aten.tanh.default: ("tanh", "math"), aten.sqrt.default: ("sqrt", "math"),
                  aten.rsqrt.default: ("rsqrt", "math"), aten.erf.default: ("erf", "math"),
                  aten.abs.default: ("absf", "math"), aten.neg.default: ("negf", "arith"),
                  aten.log1p.default: ("log1p", "math"), aten.expm1.default: ("expm1", "math"),
                  aten.sin.default: ("sin", "math"), aten.cos.default: ("cos", "math"),
                  aten.floor.default: ("floor", "math"), aten.ceil.default: ("ceil", "math")}
        if t in simple:
            return self.unary(node, A(0), un(*simple[t]))
        if t == aten.sigmoid.default:
            def expr(x, dt):
                one, n, e, d, r = fresh("k"), fresh("t"), fresh("t"), fresh("t"), fresh("t")
                return [f"{one} = arith.constant 1.0 : {dt}", f"{n} = arith.negf {x} : {dt}",
                        f"{e} = math.exp {n} : {dt}", f"{d} = arith.addf {one}, {e} : {dt}",
                        f"{r} = arith.divf {one}, {d} : {dt}"], r
            return self.unary(node, A(0), expr)
        if t == aten.gelu.default:
            approx = node.kwargs.get("approximate", "none")

            def expr(x, dt):
                lines, names = [], {}
                def c(v):
                    k = fresh("k")
                    lines.append(f"{k} = arith.constant {float_literal(v, dt)} : {dt}")
                    return k
                def op(o, *xs):
                    r = fresh("t")
                    lines.append(f"{r} = {o} {', '.join(xs)} : {dt}")
                    return r
                half, one = c(0.5), c(1.0)
                if approx == "tanh":
                    x3 = op("arith.mulf", op("arith.mulf", x, x), x)
                    inner = op("arith.mulf", c(math.sqrt(2 / math.pi)),
                               op("arith.addf", x, op("arith.mulf", c(0.044715), x3)))
                    core = op("math.tanh", inner)
                else:
                    core = op("math.erf", op("arith.mulf", x, c(1 / math.sqrt(2))))
                return lines, op("arith.mulf", op("arith.mulf", half, x), op("arith.addf", one, core))
            return self.unary(node, A(0), expr)
        if t == aten.leaky_relu.default:
            slope = args[1] if len(args) > 1 else 0.01

            def body(n, dt):
                m, s, r = fresh("t"), fresh("t"), fresh("t")
                z = fresh("k")
                return [f"{z} = arith.constant 0.0 : {dt}",
                        f"{m} = arith.mulf {n[0]}, {n[1]} : {dt}",
                        f"{s} = arith.cmpf ogt, {n[0]}, {z} : {dt}",
                        f"{r} = arith.select {s}, {n[0]}, {m} : {dt}"], r
            return self.elementwise(node, [A(0), slope], body)
        if t == aten.pow.Tensor_Scalar:
            exponent = args[1]
            if exponent == 2:
                def square(n, dt):
                    r = fresh("t")
                    return [f"{r} = arith.mulf {n[0]}, {n[0]} : {dt}"], r
                return self.elementwise(node, [A(0)], square)

            def power(n, dt):
                r = fresh("t")
                return [f"{r} = math.powf {n[0]}, {n[1]} : {dt}"], r
            return self.elementwise(node, [A(0), exponent], power)
        if t == aten._to_copy.default and isinstance(A(0), Predicate):
            cond = A(0)
            k = len(cond.operands)

            def as_number(n, dt):
                lines, c = cond.compare(n[:k], dt)
                one, zero, r = self.e.fresh("k"), self.e.fresh("k"), self.e.fresh("t")
                return lines + [f"{one} = arith.constant 1.0 : {dt}",
                                f"{zero} = arith.constant 0.0 : {dt}",
                                f"{r} = arith.select {c}, {one}, {zero} : {dt}"], r
            operand_dtype = next(v.dtype for v in cond.operands if isinstance(v, Value))
            if operand_dtype != self.dtype_of(node):
                raise refuse(node, "a comparison cast to another float type")
            return self.elementwise(node, cond.operands, as_number)
        if t == aten._to_copy.default and str(node.meta["val"].dtype) in INTEGER_DTYPES and \
                str(args[0].meta["val"].dtype) not in INTEGER_DTYPES:
            raise refuse(node, "a float tensor converted to integers")
        if t in (aten.clone.default, aten.alias.default, aten.contiguous.default) or \
                (t == aten._to_copy.default and self.dtype_of(node) == A(0).dtype):
            return A(0)
        if t == aten._to_copy.default:
            src, dst = A(0).dtype, self.dtype_of(node)
            width = {"f16": 16, "bf16": 16, "f32": 32}
            op = "extf" if width[dst] > width[src] else "truncf"
            name = self.e.generic(len(A(0).shape), ["parallel"] * len(A(0).shape),
                                  [(A(0), list(range(len(A(0).shape))))], A(0).shape, dst,
                                  affine_map(len(A(0).shape), [f"d{i}" for i in range(len(A(0).shape))]),
                                  lambda a: self.cast(a[0], op, src, dst))
            return self.plain(name, A(0).shape, dst)
        # -- views --
        if t == aten.permute.default:
            v, perm = A(0), list(args[1])
            perm = [p % len(v.shape) for p in perm]
            inv = {old: new for new, old in enumerate(perm)}
            return Value(v.name, v.phys_shape, tuple(v.shape[p] for p in perm), v.dtype,
                         [None if l is None else inv[l] for l in v.phys])
        if t == aten.t.default:
            v = A(0)
            if len(v.shape) < 2:
                return v
            return Value(v.name, v.phys_shape, (v.shape[1], v.shape[0]), v.dtype,
                         [None if l is None else 1 - l for l in v.phys])
        if t == aten.transpose.int:
            v = A(0)
            a, b = (args[1] % len(v.shape), args[2] % len(v.shape))
            swap = lambda l: b if l == a else a if l == b else l  # noqa: E731
            shape = list(v.shape)
            shape[a], shape[b] = shape[b], shape[a]
            return Value(v.name, v.phys_shape, tuple(shape), v.dtype,
                         [None if l is None else swap(l) for l in v.phys])
        if t in (aten.unsqueeze.default,):
            v = A(0)
            d = args[1] % (len(v.shape) + 1)
            return Value(v.name, v.phys_shape, v.shape[:d] + (1,) + v.shape[d:], v.dtype,
                         [None if l is None else (l + 1 if l >= d else l) for l in v.phys])
        if t in (aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default):
            v = A(0)
            if t == aten.squeeze.default:
                dims = [i for i, s in enumerate(v.shape) if s == 1]
            else:
                dims = [args[1]] if t == aten.squeeze.dim else list(args[1])
                dims = [d % len(v.shape) for d in dims if v.shape[d % len(v.shape)] == 1]
            keep = [i for i in range(len(v.shape)) if i not in dims]
            new = {old: i for i, old in enumerate(keep)}
            return Value(v.name, v.phys_shape, tuple(v.shape[i] for i in keep), v.dtype,
                         [None if (l is None or l in dims) else new[l] for l in v.phys])
        if t == aten.expand.default:
            v = A(0)
            shape = self.shape_of(node)
            offset = len(shape) - len(v.shape)
            return Value(v.name, v.phys_shape, shape, v.dtype,
                         [None if (l is None or (v.shape[l] == 1 and shape[offset + l] != 1))
                          else offset + l for l in v.phys])
        if t in (aten.view.default, aten._unsafe_view.default, aten.reshape.default):
            return self.reshape(node, A(0), self.shape_of(node))
        if t == aten.as_strided.default:
            # Only as a reshape: a contiguous input read in its own order.
            size, stride = list(args[1]), list(args[2])
            offset = args[3] if len(args) > 3 else node.kwargs.get("storage_offset", 0)
            src = args[0].meta.get("val")
            row_major = [math.prod(size[i + 1:]) for i in range(len(size))]
            if offset or src is None or not src.is_contiguous() or \
                    math.prod(size) != src.numel() or \
                    any(n != 1 and a != b for n, a, b in zip(size, stride, row_major)):
                raise refuse(node, "as_strided other than a contiguous reshape")
            return self.reshape(node, A(0), tuple(size))
        # -- contractions --
        if t in (aten.mm.default, aten.bmm.default):
            return self.matmul(node, A(0), A(1))
        if t == aten.addmm.default:
            beta, alpha = node.kwargs.get("beta", 1), node.kwargs.get("alpha", 1)
            if beta != 1 or alpha != 1:
                raise refuse(node, "addmm with beta/alpha")
            mm = self.matmul(node, A(1), A(2))
            return self.elementwise(node, [mm, A(0)], binop("addf"))
        if t == aten.convolution.default:
            return self.convolution(node)
        # -- reductions --
        if t in (aten.sum.dim_IntList, aten.mean.dim, aten.amax.default, aten.amin.default,
                 aten.sum.default, aten.mean.default):
            v = A(0)
            if isinstance(v, Predicate):  # A count of where a comparison holds.
                v = self.elementwise(node, [v], lambda n, dt: ([], n[0]), out_dtype="f32",
                                     out_shape=v.shape)
            if t in (aten.sum.default, aten.mean.default):
                dims, keep = list(range(len(v.shape))), False
            else:
                dims = args[1] if len(args) > 1 else list(range(len(v.shape)))
                dims = [d % len(v.shape) for d in (dims or range(len(v.shape)))]
                keep = args[2] if len(args) > 2 else node.kwargs.get("keepdim", False)
            kind = {aten.amax.default: "max", aten.amin.default: "min"}.get(t, "sum")
            r = self.reduce(v, dims, kind)
            if t in (aten.mean.dim, aten.mean.default):
                count = math.prod(v.shape[d] for d in dims)
                r = self.elementwise_plain(r, count, "divf")
            if r.dtype != v.dtype:  # A 16-bit sum accumulated in f32.
                r = self.truncate(r, v.dtype)
            return self.keep_dims(r, v.shape, dims) if keep else r
        if t in (aten.max.dim, aten.min.dim):
            # Values over a dim; the indices (int64) are not computed and a
            # use of them is refused by the element it would read.
            v = A(0)
            dim = args[1] % len(v.shape)
            keep = args[2] if len(args) > 2 else node.kwargs.get("keepdim", False)
            r = self.reduce(v, [dim], "max" if t == aten.max.dim else "min")
            return (self.keep_dims(r, v.shape, [dim]) if keep else r, None)
        # -- data movement --
        if t == aten.slice.Tensor:
            return self.slice(node, A(0), *(list(args[1:]) + [None] * 4)[:4])
        if t == aten.select.int:
            return self.select(A(0), args[1], args[2])
        if t in (aten.split_with_sizes.default, aten.split.Tensor):
            return self.split(node, A(0), args[1], args[2] if len(args) > 2 else
                              node.kwargs.get("dim", 0))
        if t == aten.unbind.int:
            v, dim = A(0), (args[1] if len(args) > 1 else 0)
            return Pieces([lambda i=i: self.select(v, dim, i)
                           for i in range(v.shape[dim % len(v.shape)])])
        if t == aten.flip.default:
            return self.flip(A(0), args[1])
        if t == aten.gather.default:
            return self.take_along(A(0), args[1], A(2))
        if t == aten.index.Tensor:
            return self.index_with(node, A(0), args[1])
        if t == aten.embedding.default:
            return self.index_with(node, A(0), [args[1]])
        if t == aten.constant_pad_nd.default:
            value = args[2] if len(args) > 2 else node.kwargs.get("value", 0.0)
            return self.constant_pad(node, A(0), args[1], value)
        if t == aten.roll.default:
            dims = args[2] if len(args) > 2 else node.kwargs.get("dims", [])
            return self.roll(node, A(0), args[1], dims)
        if t == aten.cat.default:
            return self.concatenate(node, [self.arg(a) for a in args[0]],
                                    args[1] if len(args) > 1 else node.kwargs.get("dim", 0))
        if t == aten.unfold.default:
            return self.unfold(A(0), args[1], args[2], args[3])
        if t in (aten.triu.default, aten.tril.default):
            return self.triangle(node, A(0), args[1] if len(args) > 1 else
                                 node.kwargs.get("diagonal", 0), upper=t == aten.triu.default)
        if t in (aten.any.dim, aten.all.dim):
            return self.any_or_all(node, A(0), args[1], args[2] if len(args) > 2 else
                                   node.kwargs.get("keepdim", False), t == aten.any.dim)
        if t == aten.native_dropout.default:
            p, train = args[1], args[2]
            if train and p:
                raise refuse(node, f"dropout in training mode (p={p}) draws random numbers; "
                                   "EGG's kernels are deterministic (call model.eval())")
            return (A(0), None)  # The identity; the mask is not computed.
        if t in (aten.argmax.default, aten.argmin.default):
            v, dim = A(0), (args[1] if len(args) > 1 else node.kwargs.get("dim"))
            keep = args[2] if len(args) > 2 else node.kwargs.get("keepdim", False)
            if dim is None:
                raise refuse(node, "an argmax/argmin over the whole tensor")
            return self.arg_extreme(v, dim % len(v.shape), keep,
                                    "max" if t == aten.argmax.default else "min")
        if t in (aten.cumsum.default, aten.cumprod.default):
            if node.kwargs.get("dtype") is not None:
                raise refuse(node, "a scan with a dtype")
            return self.scan(node, A(0), args[1], "sum" if t == aten.cumsum.default else "prod")
        if t in (aten.full.default, aten.full_like.default):
            value = args[1]
            if not isinstance(value, (int, float)):
                raise refuse(node, "a fill with a value that is not a number")
            shape, dtype = self.shape_of(node), self.dtype_of(node)
            if not shape:  # A 0-d fill: a number to its consumers.
                return float(value)
            return self.plain(self.e.filled(shape, dtype, float(value)), shape, dtype)
        if t == aten.linalg_vector_norm.default:
            return self.vector_norm(node, A(0), args)
        if t in (aten.max_pool3d_with_indices.default, aten.avg_pool3d.default):
            return self.pool3d(node, "max" if t == aten.max_pool3d_with_indices.default else "avg")
        if t == aten._softmax.default:
            # Over the innermost dim of a tensor laid out for it (a softmax
            # over channels reads a copy with the channels innermost): the
            # kernels spread rows along the innermost dim only.
            x = A(0)
            rank = len(x.shape)
            dim = args[1] % rank
            if dim == rank - 1:
                return self.softmax_rows(self.materialize(x))
            # Laid out with `dim` innermost, as [rows, length]: a grid
            # spreads rows over at most three loops.
            order = [d for d in range(rank) if d != dim] + [dim]
            v = self.relayout(x, order)
            rows = self.reshape(node, self.plain(v.name, v.phys_shape, v.dtype),
                                (math.prod(v.phys_shape[:-1]), v.phys_shape[-1]))
            y = self.reshape(node, self.softmax_rows(rows), v.phys_shape)
            return Value(y.name, v.phys_shape, v.shape, v.dtype, list(order))
        if t == aten._log_softmax.default:
            return self.log_softmax(node, A(0), args[1])
        if t == aten.native_layer_norm.default:
            return self.layer_norm(node)
        if t == aten._native_batch_norm_legit_no_training.default:
            return self.batch_norm(node)
        if t == aten._native_batch_norm_legit_functional.default:
            return self.batch_norm_batch_stats(node, training_at=5, eps_at=7)
        if t == aten._native_batch_norm_legit.no_stats:
            return self.batch_norm_batch_stats(node, training_at=3, eps_at=5)
        if t == aten.native_group_norm.default:
            return self.group_norm(node)
        if t in (aten.max_pool2d_with_indices.default, aten.avg_pool2d.default):
            return self.pool2d(node, "max" if t == aten.max_pool2d_with_indices.default else "avg")
        if t in (aten.lstm.input, aten.gru.input, aten.rnn_tanh.input, aten.rnn_relu.input):
            return self.recurrent(node)
        raise refuse(node, "not supported")

    COMPARISONS = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}

    def predicate(self, node, t, args, A):
        """A comparison (eq, ne, lt, le, gt, ge of a tensor and a tensor or
        number), isnan, or logical_not of one, as a Predicate; None for
        other ops."""
        name = getattr(t, "__name__", "")
        op, _, overload = name.partition(".")
        if op == "logical_not" or op == "bitwise_not":
            inner = A(0)
            if not isinstance(inner, Predicate):
                raise refuse(node, "logical not of a tensor that is not a comparison")

            def negate(n, dt):
                lines, c = inner.compare(n, dt)
                one, r = self.e.fresh("k"), self.e.fresh("t")
                return lines + [f"{one} = arith.constant true", f"{r} = arith.xori {c}, {one} : i1"], r
            return Predicate(inner.operands, negate, inner.shape)
        if op == "isnan" and overload == "default":
            def unordered(n, dt):
                r = self.e.fresh("t")
                return [f"{r} = arith.cmpf uno, {n[0]}, {n[0]} : {dt}"], r
            return Predicate([A(0)], unordered, self.shape_of(node))
        if op not in self.COMPARISONS or overload not in ("Scalar", "Tensor"):
            return None
        operands = [A(0), A(1)]
        if any(isinstance(v, Predicate) for v in operands):
            raise refuse(node, "a comparison of boolean tensors")
        kind = self.COMPARISONS[op]

        def compare(n, dt):
            r = self.e.fresh("t")
            return [f"{r} = arith.cmpf {kind}, {n[0]}, {n[1]} : {dt}"], r
        return Predicate(operands, compare, self.shape_of(node))

    def where(self, node, cond, a, b):
        """where(cond, a, b) with the comparison computed in the select's own
        body (EGG's kernels hold no boolean tensors)."""
        if not isinstance(cond, Predicate):
            raise refuse(node, "where() on a boolean tensor that is not a comparison "
                               "(a boolean input)")
        k = len(cond.operands)

        def body(n, dt):
            lines, c = cond.compare(n[:k], dt)
            r = self.e.fresh("t")
            return lines + [f"{r} = arith.select {c}, {n[k]}, {n[k + 1]} : {dt}"], r
        return self.elementwise(node, cond.operands + [a, b], body)

    def any_or_all(self, node, cond, dim, keep, any_of):
        """any / all of a Predicate along `dim`: the largest (any) or least
        (all) of its 1-or-0 numbers, compared with 0.5 as a Predicate."""
        if not isinstance(cond, Predicate):
            raise refuse(node, "any/all of a tensor that is not a comparison")
        dtype = next((v.dtype for v in cond.operands if isinstance(v, Value)), "f32")
        number = self.elementwise(node, [cond], lambda n, dt: ([], n[0]), out_dtype=dtype,
                                  out_shape=cond.shape)
        rank = len(cond.shape)
        dim = dim % rank
        r = self.reduce(number, [dim], "max" if any_of else "min")
        if keep:
            kept = [i for i in range(rank) if i != dim]
            shape = tuple(1 if i == dim else cond.shape[i] for i in range(rank))
            r = Value(r.name, r.phys_shape, shape, r.dtype, [kept[p] for p in r.phys])

        def above_half(n, dt):
            half, c = self.e.fresh("k"), self.e.fresh("t")
            return [f"{half} = arith.constant 0.5 : {dt}",
                    f"{c} = arith.cmpf ogt, {n[0]}, {half} : {dt}"], c
        return Predicate([r], above_half, self.shape_of(node))

    def boolean_argument(self, v):
        """The Predicate of a boolean argument held as float32 zeros and ones."""
        def nonzero(n, dt):
            zero, r = self.e.fresh("k"), self.e.fresh("t")
            return [f"{zero} = arith.constant 0.0 : {dt}",
                    f"{r} = arith.cmpf une, {n[0]}, {zero} : {dt}"], r
        return Predicate([v], nonzero, v.shape)

    def softmax_rows(self, v):
        """linalg.softmax over the innermost dim of the plain tensor v."""
        ty = tensor_type(v.shape, v.dtype)
        e, name = self.e.empty(v.shape, v.dtype), self.e.fresh("s")
        self.e.emit(f"{name} = linalg.softmax dimension({len(v.shape) - 1}) ins({v.name} : "
                    f"{ty}) outs({e} : {ty}) -> {ty}")
        return self.plain(name, v.shape, v.dtype)

    def cast(self, x, op, src, dst):
        r = self.e.fresh("t")
        return [f"{r} = arith.{op} {x} : {src} to {dst}"], r

    def elementwise_plain(self, v, scalar, op):
        if not v.shape:
            v = Value(v.name, v.phys_shape, (1,), v.dtype, [0] if v.phys else [])
            if v.phys_shape != (1,):
                raise UnsupportedOp("a 0-d value that is not held in a 1-element tensor")
            out = self.elementwise_plain(v, scalar, op)
            return self.scalar_view(out.name, out.dtype)
        rank = len(v.shape)
        def body(a):
            k, r = self.e.fresh("k"), self.e.fresh("t")
            return [f"{k} = arith.constant {float_literal(scalar, v.dtype)} : {v.dtype}",
                    f"{r} = arith.{op} {a[0]}, {k} : {v.dtype}"], r
        name = self.e.generic(rank, ["parallel"] * rank, [(v, list(range(rank)))], v.shape,
                              v.dtype, affine_map(rank, [f"d{i}" for i in range(rank)]), body)
        return self.plain(name, v.shape, v.dtype)

    # -- data movement ---------------------------------------------------------

    def gather(self, v, out_shape, reads):
        """A copy of `v` into a tensor of `out_shape`: element `d` reads v at
        reads[l] (an affine expression in d0..) for each logical dim l. A
        plain `dk` read of a dim whose extent differs from out_shape[k] reads
        `dk + w` with a window loop w of extent 1 (a window operand gives it
        that extent): linalg takes a plain dim's extent from every operand it
        indexes. A copy of a fill is a fill of its own: the copies of one
        fill (the zero states of several recurrent layers) would otherwise
        join the fill's kernel as loop nests that no result of theirs
        feeds."""
        if v.name in self.e.fill_values:
            return self.plain(self.e.filled(out_shape, v.dtype, self.e.fill_values[v.name]),
                              out_shape, v.dtype)
        v = self.materialize(v)
        rank = len(out_shape)
        reads, windows = list(reads), 0
        for l, expr in enumerate(reads):
            m = re.fullmatch(r"d(\d+)", expr)
            if m and v.shape[l] != out_shape[int(m.group(1))]:
                reads[l] = f"{expr} + d{rank + windows}"
                windows += 1
        dims = ", ".join(f"d{i}" for i in range(rank + windows))
        maps = [f"affine_map<({dims}) -> ({', '.join(reads) or '0'})>"]
        ins, types = [v.name], [tensor_type(v.shape, v.dtype)]
        if windows:
            window = self.e.empty((1,) * windows, v.dtype)
            maps.append(f"affine_map<({dims}) -> "
                        f"({', '.join(f'd{rank + j}' for j in range(windows))})>")
            ins.append(window)
            types.append(tensor_type((1,) * windows, v.dtype))
        maps.append(f"affine_map<({dims}) -> ({', '.join(f'd{i}' for i in range(rank))})>")
        init = self.e.empty(out_shape, v.dtype)
        iters = ", ".join(['"parallel"'] * rank + ['"reduction"'] * windows)
        name, ot = self.e.fresh("gt"), tensor_type(out_shape, v.dtype)
        args = ", ".join(f"%b{i}: {v.dtype}" for i in range(len(ins) + 1))
        self.e.emit(f"{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
                    f"iterator_types = [{iters}]}} ins({', '.join(ins)} : {', '.join(types)}) "
                    f"outs({init} : {ot}) {{")
        self.e.emit(f"^bb0({args}):")
        self.e.emit(f"  linalg.yield %b0 : {v.dtype}")
        self.e.emit(f"}} -> {ot}")
        return self.plain(name, out_shape, v.dtype)

    def slice(self, node, v, dim, start, end, step):
        """v[..., start:end:step, ...] along `dim`; the whole dim is v itself."""
        rank = len(v.shape)
        dim = (dim or 0) % rank
        n, step = v.shape[dim], step or 1
        start, end = slice(start, end).indices(n)[:2]
        if step < 1:
            raise refuse(node, f"slice with step {step}")
        if start == 0 and end >= n and step == 1:
            return v
        count = max(0, -(-(end - start) // step))
        out_shape = v.shape[:dim] + (count,) + v.shape[dim + 1:]
        read = f"d{dim}" + (f" * {step}" if step != 1 else "") + (f" + {start}" if start else "")
        return self.gather(v, out_shape, [read if l == dim else f"d{l}" for l in range(rank)])

    def select(self, v, dim, index):
        """v[..., index, ...] along `dim` (the dim dropped)."""
        rank = len(v.shape)
        dim = dim % rank
        index = index % v.shape[dim]
        out_shape = v.shape[:dim] + v.shape[dim + 1:]
        reads = [str(index) if l == dim else f"d{l - (l > dim)}" for l in range(rank)]
        return self.gather(v, out_shape, reads)

    def split(self, node, v, sizes, dim):
        """The pieces of v along `dim`: given sizes, or equal pieces of one
        size (the last may be shorter). Each is built when it is read."""
        dim = dim % len(v.shape)
        n = v.shape[dim]
        if isinstance(sizes, int):
            sizes = [min(sizes, n - i) for i in range(0, n, sizes)]
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
        return Pieces([lambda a=a, b=b: self.slice(node, v, dim, a, a + b, 1)
                       for a, b in zip(starts, sizes)])

    def flip(self, v, dims):
        """v reversed along `dims`."""
        rank = len(v.shape)
        flipped = {d % rank for d in dims}
        reads = [f"{v.shape[l] - 1} - d{l}" if l in flipped and v.shape[l] > 1 else f"d{l}"
                 for l in range(rank)]
        return self.gather(v, v.shape, reads)

    @staticmethod
    def keep_dims(r, shape, dims):
        """The reduction r of a tensor of `shape` over `dims`, viewed with
        those dims kept as size 1."""
        kept = [i for i in range(len(shape)) if i not in dims]
        return Value(r.name, r.phys_shape, tuple(1 if i in dims else shape[i]
                                                 for i in range(len(shape))),
                     r.dtype, [kept[p] for p in r.phys])

    def log_softmax(self, node, x, dim):
        """log_softmax along `dim` as x - max - log(sum(exp(x - max))): no
        probability is formed, so none underflows to a log of zero."""
        dim = dim % len(x.shape)

        def op(opname, dialect="arith"):
            def body(n, dt):
                r = self.e.fresh("t")
                return [f"{r} = {dialect}.{opname} {', '.join(n)} : {dt}"], r
            return body

        def row_reduce(v, kind):
            r = self.reduce(v, [dim], kind)
            if r.dtype != v.dtype:  # A 16-bit sum accumulated in f32.
                r = self.truncate(r, v.dtype)
            return self.keep_dims(r, v.shape, [dim])
        shifted = self.elementwise(node, [x, row_reduce(x, "max")], op("subf"))
        total = row_reduce(self.elementwise(node, [shifted], op("exp", "math")), "sum")
        log_total = self.elementwise(node, [total], op("log", "math"), out_shape=total.shape)
        return self.elementwise(node, [shifted, log_total], op("subf"))

    def constant_pad(self, node, v, pad, value):
        """F.pad in constant mode: pad holds (before, after) pairs from the
        last dim back."""
        if any(p < 0 for p in pad):
            raise refuse(node, "padding by a negative amount")
        v = self.materialize(v)
        rank = len(v.shape)
        low, high = [0] * rank, [0] * rank
        for i in range(len(pad) // 2):
            low[rank - 1 - i], high[rank - 1 - i] = pad[2 * i], pad[2 * i + 1]
        name, shape = self.e.pad_sides(v.name, v.shape, v.dtype, low, high, float(value))
        return self.plain(name, shape, v.dtype)

    def index_with(self, node, v, indices):
        """v[..., index, ...] with one index tensor (an embedding lookup, a
        bias table read at positions): the result's dims are v's before it,
        the index's, then v's after it."""
        at = [i for i, x in enumerate(indices) if x is not None]
        if len(at) != 1:
            raise refuse(node, "indexing with several index tensors")
        p = at[0]
        index = self.arg(indices[p])
        if not isinstance(index, Value):
            raise refuse(node, "indexing with a boolean mask")
        index = self.materialize(index)
        k = len(index.shape)
        out_shape = v.shape[:p] + index.shape + v.shape[p + 1:]
        reads = [None if l == p else (l if l < p else l + k - 1) for l in range(len(v.shape))]
        return self.read_by_value(v, index, list(range(p, p + k)), out_shape, reads)

    def take_along(self, v, dim, index):
        """torch.gather: the result, of index's shape, holds v at index's
        value along `dim` and at its own position along the other dims."""
        rank = len(index.shape)
        dim = dim % rank
        return self.read_by_value(v, self.materialize(index), list(range(rank)), index.shape,
                                  [None if l == dim else l for l in range(rank)])

    def read_by_value(self, v, index, index_dims, out_shape, reads):
        """A tensor of `out_shape` reading v with tensor.extract: along v's
        dim l at the index's value where reads[l] is None (the index read
        at the result's loops `index_dims`), else at the result's loop
        reads[l]."""
        v, out_rank, fresh = self.materialize(v), len(out_shape), self.e.fresh

        def body(a):
            lines, at = [], []
            for read in reads:
                i = fresh("i")
                if read is None:
                    n = fresh("t")
                    lines += [f"{n} = arith.fptosi {a[0]} : {index.dtype} to i64",
                              f"{i} = arith.index_cast {n} : i64 to index"]
                else:
                    lines.append(f"{i} = linalg.index {read} : index")
                at.append(i)
            r = fresh("t")
            lines.append(f"{r} = tensor.extract {v.name}[{', '.join(at)}] : "
                         f"{tensor_type(v.shape, v.dtype)}")
            return lines, r
        name = self.e.generic(out_rank, ["parallel"] * out_rank, [(index, index_dims)],
                              out_shape, v.dtype,
                              affine_map(out_rank, [f"d{i}" for i in range(out_rank)]), body)
        return self.plain(name, out_shape, v.dtype)

    def roll(self, node, v, shifts, dims):
        """torch.roll along `dims`: the result cut into blocks (per rolled
        dim: the input's last `shift` elements, then the rest), each block
        read from the input, padded with zeros to its place and the padded
        blocks summed (each element has exactly one nonzero term), as a
        concatenation is."""
        shifts = [shifts] if isinstance(shifts, int) else list(shifts)
        dims = [dims] if isinstance(dims, int) else list(dims)
        if not dims or len(dims) != len(shifts):
            raise refuse(node, "roll of the flattened tensor")
        rank = len(v.shape)
        total = collections.Counter()  # Shifts along one dim add up.
        for shift, dim in zip(shifts, dims):
            total[dim % rank] += shift
        # The result's front is the input from `cut` on.
        cuts = {d: -s % v.shape[d] for d, s in total.items() if s % v.shape[d]}
        if not cuts:
            return v
        v = self.materialize(v)
        padded = []
        for choice in itertools.product((0, 1), repeat=len(cuts)):
            # Per rolled dim: 0 takes the input's [cut, n) to the result's
            # front, 1 takes [0, cut) after it.
            starts, sizes, low = [0] * rank, list(v.shape), [0] * rank
            for (d, cut), c in zip(sorted(cuts.items()), choice):
                n = v.shape[d]
                starts[d], sizes[d], low[d] = (cut, n - cut, 0) if c == 0 else (0, cut, n - cut)
            block = self.gather(v, tuple(sizes),
                                [f"d{l} + {starts[l]}" if starts[l] else f"d{l}"
                                 for l in range(rank)])
            high = [v.shape[l] - low[l] - sizes[l] for l in range(rank)]
            name, shape = self.e.pad_sides(block.name, block.shape, v.dtype, low, high)
            padded.append(self.plain(name, shape, v.dtype))
        return self.elementwise(node, padded, self.sum_body)

    def sum_body(self, n, dt):
        """An elementwise body adding all its operands."""
        lines, cur = [], n[0]
        for x in n[1:]:
            r = self.e.fresh("t")
            lines.append(f"{r} = arith.addf {cur}, {x} : {dt}")
            cur = r
        return lines, cur

    def unfold(self, v, dim, size, step):
        """Tensor.unfold: the windows of `size` every `step` along `dim`, the
        window dim last."""
        rank = len(v.shape)
        dim = dim % rank
        count = (v.shape[dim] - size) // step + 1
        out_shape = v.shape[:dim] + (count,) + v.shape[dim + 1:] + (size,)
        read = f"d{dim} * {step} + d{rank}" if step != 1 else f"d{dim} + d{rank}"
        return self.gather(v, out_shape, [read if l == dim else f"d{l}" for l in range(rank)])

    def concatenate(self, node, values, dim, out_shape=None):
        """cat along `dim`: one pass over the result per CAT_FAN_IN operands
        (concatenate_few), more operands concatenated in groups first. The
        result has node's shape, or out_shape."""
        if any(not isinstance(v, Value) for v in values):
            raise refuse(node, "concatenation of boolean tensors or numbers")
        if len({v.dtype for v in values}) != 1:
            raise refuse(node, "concatenation of mixed element types")
        out_shape = self.shape_of(node) if out_shape is None else tuple(out_shape)
        dim = dim % len(out_shape)
        values = [v for v in values if len(v.shape) == len(out_shape) and v.shape[dim]]
        while len(values) > CAT_FAN_IN:
            groups = [values[i:i + CAT_FAN_IN] for i in range(0, len(values), CAT_FAN_IN)]
            values = [self.concatenate_few(g, dim, tuple(
                sum(v.shape[dim] for v in g) if d == dim else out_shape[d]
                for d in range(len(out_shape)))) for g in groups]
        return self.concatenate_few(values, dim, out_shape)

    def concatenate_few(self, values, dim, out_shape):
        """cat of a few operands in one generic over the result: element i
        along `dim` reads every operand with tensor.extract at i less its
        offset, clamped into the operand (the reads of the others fall on
        their edge, in cache), and keeps the one whose range holds i."""
        if len(values) == 1:
            return values[0]
        values = [self.materialize(v) for v in values]
        rank, dt, fresh = len(out_shape), values[0].dtype, self.e.fresh
        offsets = [sum(v.shape[dim] for v in values[:j]) for j in range(len(values))]

        def body(_):
            at = [fresh("i") for _ in range(rank)]
            lines = [f"{at[d]} = linalg.index {d} : index" for d in range(rank)]
            zero = fresh("c")
            lines.append(f"{zero} = arith.constant 0 : index")
            reads = []
            for v, offset in zip(values, offsets):
                off, last, shifted, low, idx, r = (fresh("c"), fresh("c"), fresh("i"),
                                                   fresh("i"), fresh("i"), fresh("t"))
                lines += [f"{off} = arith.constant {offset} : index",
                          f"{last} = arith.constant {v.shape[dim] - 1} : index",
                          f"{shifted} = arith.subi {at[dim]}, {off} : index",
                          f"{low} = arith.maxsi {shifted}, {zero} : index",
                          f"{idx} = arith.minsi {low}, {last} : index"]
                where = [idx if d == dim else at[d] for d in range(rank)]
                lines.append(f"{r} = tensor.extract {v.name}[{', '.join(where)}] : "
                             f"{tensor_type(v.shape, dt)}")
                reads.append(r)
            result = reads[-1]
            for j in range(len(values) - 2, -1, -1):
                bound, below, chosen = fresh("c"), fresh("t"), fresh("t")
                lines += [f"{bound} = arith.constant {offsets[j + 1]} : index",
                          f"{below} = arith.cmpi slt, {at[dim]}, {bound} : index",
                          f"{chosen} = arith.select {below}, {reads[j]}, {result} : {dt}"]
                result = chosen
            return lines, result
        name = self.e.generic(rank, ["parallel"] * rank, [], out_shape, dt,
                              affine_map(rank, [f"d{i}" for i in range(rank)]), body)
        return self.plain(name, out_shape, dt)

    def arg_extreme(self, v, dim, keep, kind):
        """argmax / argmin along `dim` in one pass: a reduction carrying the
        extreme value and its index, which takes an element's index only
        where the element is strictly beyond the value so far (PyTorch's
        first occurrence). The index is float32 (exact below 2^24
        elements): an int64 index tensor to the user
        (ImportedModule.integer_results), a float32 one to ops that read it."""
        n = v.shape[dim]
        if n >= 1 << 24:
            raise UnsupportedOp(f"an argmax/argmin over {n} elements (float32 indices)")
        v = self.materialize(v)
        rank = len(v.shape)
        kept = [i for i in range(rank) if i != dim]
        out_shape = tuple(v.shape[i] for i in kept)
        dt, fresh = v.dtype, self.e.fresh
        values = self.e.filled(out_shape, dt, -math.inf if kind == "max" else math.inf)
        indices = self.e.filled(out_shape, "f32", 0.0)
        in_map = affine_map(rank, [f"d{i}" for i in range(rank)])
        out_map = affine_map(rank, [f"d{i}" for i in kept])
        iters = ", ".join('"reduction"' if i == dim else '"parallel"' for i in range(rank))
        vt, it = tensor_type(out_shape, dt), tensor_type(out_shape, "f32")
        name = fresh("g")
        self.e.emit(f"{name}:2 = linalg.generic {{indexing_maps = [{in_map}, {out_map}, {out_map}], "
                    f"iterator_types = [{iters}]}} ins({v.name} : {tensor_type(v.shape, dt)}) "
                    f"outs({values}, {indices} : {vt}, {it}) {{")
        self.e.emit(f"^bb0(%a: {dt}, %best: {dt}, %at: f32):")
        i, w, f, beyond, nv, ni = (fresh("t") for _ in range(6))
        for line in [f"{i} = linalg.index {dim} : index",
                     f"{w} = arith.index_cast {i} : index to i32",
                     f"{f} = arith.uitofp {w} : i32 to f32",
                     f"{beyond} = arith.cmpf {'ogt' if kind == 'max' else 'olt'}, %a, %best : {dt}",
                     f"{nv} = arith.select {beyond}, %a, %best : {dt}",
                     f"{ni} = arith.select {beyond}, {f}, %at : f32",
                     f"linalg.yield {nv}, {ni} : {dt}, f32"]:
            self.e.emit("  " + line)
        self.e.emit(f"}} -> ({vt}, {it})")
        r = self.plain(f"{name}#1", out_shape, "f32")
        if keep:
            shape = tuple(1 if i == dim else v.shape[i] for i in range(rank))
            r = Value(r.name, r.phys_shape, shape, r.dtype, list(kept))
        return r

    def scan(self, node, v, dim, kind, reverse=False, exclusive=False):
        """cumsum / cumprod along `dim`, on rows laid out with `dim` innermost
        (scan_rows); the result is read back through the permuted view.
        `reverse`: from the last element; `exclusive`: each element left
        out of its own result (scan_forms)."""
        rank = len(v.shape)
        dim = dim % rank
        order = [d for d in range(rank) if d != dim] + [dim]
        u = self.relayout(v, order)
        rows = self.reshape(node, self.plain(u.name, u.phys_shape, u.dtype),
                            (math.prod(u.phys_shape[:-1]), u.phys_shape[-1]))
        y = self.reshape(node, self.scan_rows(node, rows, kind, reverse, exclusive),
                         u.phys_shape)
        return Value(y.name, u.phys_shape, v.shape, v.dtype, list(order))

    def scan_rows(self, node, x, kind, reverse=False, exclusive=False):
        """Scan of each row of the plain [R, N] tensor x: an elementwise
        generic for short rows, else egg.scan."""
        r, n = x.shape
        if n <= SCAN_CHUNK:
            return self.short_scan(x, kind, reverse, exclusive)
        x = self.materialize(x)
        init, name = self.e.empty((r, n), x.dtype), self.e.fresh("s")
        ty = tensor_type((r, n), x.dtype)
        flags = (" reverse" if reverse else "") + (" exclusive" if exclusive else "")
        self.e.emit(f"{name} = egg.scan {SCAN_OPS[kind][2]}{flags} {x.name} into {init} "
                    f": {ty}, {ty} -> {ty}")
        return self.plain(name, (r, n), x.dtype)

    def short_scan(self, x, kind, reverse=False, exclusive=False):
        """Scan of rows of at most SCAN_CHUNK elements as an elementwise
        generic: element k of the row is an operand of its own (map
        (d0, d1) -> (d0, k)), kept where k is before (or at) the element
        (after it with `reverse`; `exclusive` leaves the element out). No
        reduction, so the consumer a short scan feeds (a segment sum reading
        rows whole) can share its kernel."""
        r, n = x.shape
        x = self.materialize(x)
        dt, fresh = x.dtype, self.e.fresh
        op, identity, _ = SCAN_OPS[kind]
        keeps = {(False, False): "ule", (False, True): "ult",
                 (True, False): "uge", (True, True): "ugt"}[(reverse, exclusive)]
        maps = [f"affine_map<(d0, d1) -> (d0, {k})>" for k in range(n)]
        maps.append("affine_map<(d0, d1) -> (d0, d1)>")
        init, name, ty = self.e.empty((r, n), dt), fresh("g"), tensor_type((r, n), dt)
        self.e.emit(f"{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
                    f'iterator_types = ["parallel", "parallel"]}} '
                    f"ins({', '.join([x.name] * n)} : {', '.join([ty] * n)}) "
                    f"outs({init} : {ty}) {{")
        self.e.emit("^bb0(" + ", ".join(f"%b{k}: {dt}" for k in range(n + 1)) + "):")
        i, unit = fresh("i"), fresh("k")
        lines = [f"{i} = linalg.index 1 : index",
                 f"{unit} = arith.constant {float_literal(identity, dt)} : {dt}"]
        cur = unit
        for k in range(n):
            at, keep, term, nxt = fresh("i"), fresh("t"), fresh("t"), fresh("t")
            lines += [f"{at} = arith.constant {k} : index",
                      f"{keep} = arith.cmpi {keeps}, {at}, {i} : index",
                      f"{term} = arith.select {keep}, %b{k}, {unit} : {dt}",
                      f"{nxt} = arith.{op} {cur}, {term} : {dt}"]
            cur = nxt
        for line in lines:
            self.e.emit("  " + line)
        self.e.emit(f"  linalg.yield {cur} : {dt}")
        self.e.emit(f"}} -> {ty}")
        return self.plain(name, (r, n), dt)

    def triangle(self, node, v, diagonal, upper):
        """triu (upper) or tril of the last two dims: elements with
        column - row >= diagonal (triu) or <= diagonal (tril) kept, the
        others zero, the positions from linalg.index."""
        rank = len(v.shape)
        if rank < 2:
            raise refuse(node, "triu/tril of fewer than two dims")

        def body(n, dt):
            i, j, d, k, c, z, r = (self.e.fresh("t") for _ in range(7))
            return [f"{i} = linalg.index {rank - 2} : index",
                    f"{j} = linalg.index {rank - 1} : index",
                    f"{d} = arith.subi {j}, {i} : index",
                    f"{k} = arith.constant {int(diagonal)} : index",
                    f"{c} = arith.cmpi {'sge' if upper else 'sle'}, {d}, {k} : index",
                    f"{z} = arith.constant 0.0 : {dt}",
                    f"{r} = arith.select {c}, {n[0]}, {z} : {dt}"], r
        return self.elementwise(node, [v], body)

    def reshape(self, node, v, shape):
        if math.prod(shape) != math.prod(v.shape):
            raise refuse(node, "reshape changes the size")
        # Only size-1 dims added or removed: a view.
        core_in = [s for s in v.shape if s != 1]
        core_out = [s for s in shape if s != 1]
        if core_in == core_out:
            logical_in = [i for i, s in enumerate(v.shape) if s != 1]
            logical_out = [i for i, s in enumerate(shape) if s != 1]
            m = dict(zip(logical_in, logical_out))
            return Value(v.name, v.phys_shape, tuple(shape), v.dtype,
                         [m.get(l) if l is not None else None for l in v.phys])
        # Otherwise collapse to 1-D and expand: contiguous data only (a view
        # holding its tensor's elements in order is that tensor reshaped).
        return self.unit_view(v, shape) or self.view_reshape(self.materialize(v), shape)

    def view_reshape(self, src, shape):
        """The plain tensor src, its elements in order, seen with `shape`
        (collapsed to 1-D and expanded: views, no copy)."""
        flat, out = self.e.fresh("r"), self.e.fresh("r")
        n = math.prod(shape)
        self.e.emit(f"{flat} = tensor.collapse_shape {src.name} [[{', '.join(str(i) for i in range(len(src.shape)))}]] : "
                    f"{tensor_type(src.shape, src.dtype)} into {tensor_type((n,), src.dtype)}")
        self.e.emit(f"{out} = tensor.expand_shape {flat} [[{', '.join(str(i) for i in range(len(shape)))}]] "
                    f"output_shape [{', '.join(str(s) for s in shape)}] : "
                    f"{tensor_type((n,), src.dtype)} into {tensor_type(shape, src.dtype)}")
        return self.plain(out, shape, src.dtype)

    def reduce(self, v, dims, kind):
        """Reduces `dims` of `v`. Sums of 16-bit floats accumulate in f32 (as
        PyTorch does) and return f32; the caller truncates. A reduction of
        every dim is one row of all the elements, held in a 1-element tensor
        (EGG's kernels need a loop to spread); over a large tensor it runs in
        two stages (whole_reduction_parts)."""
        rank = len(v.shape)
        if rank and len(set(dims)) == rank and rank > 0:
            kept, rows = whole_reduction_parts(v.shape)
            if kept:  # Rows of the trailing dims, then their partial results.
                return self.reduce(self.reduce(v, list(range(kept, rank)), kind),
                                   list(range(kept)), kind)
            if rows > 1:  # Rows of a flat view, then their partial results.
                part = self.reduce(self.reshape(None, v, (rows, math.prod(v.shape) // rows)),
                                   [1], kind)
                return self.reduce(part, [0], kind)
            row = self.reshape(None, v, (1, math.prod(v.shape)))
            r = self.reduce(row, [1], kind)
            return self.scalar_view(r.name, r.dtype)
        kept = [i for i in range(rank) if i not in dims]
        if any(d not in v.phys for d in dims):
            # A reduced dim no operand indexes (a size-1 view dim): its loop
            # would have no extent, so lay the view out first.
            v = self.materialize(v)
        out_shape = tuple(v.shape[i] for i in kept)
        acc = "f32" if kind == "sum" and v.dtype in ("f16", "bf16") else v.dtype
        init_value = {"sum": 0.0, "max": -math.inf, "min": math.inf}[kind]
        init = self.e.filled(out_shape, acc, init_value)
        out_map = affine_map(rank, [f"d{i}" for i in kept])
        op = {"sum": "addf", "max": "maximumf", "min": "minimumf"}[kind]
        iters = ["reduction" if i in dims else "parallel" for i in range(rank)]

        def body(a):
            lines, x = [], a[0]
            if acc != v.dtype:
                lines, x = self.cast(a[0], "extf", v.dtype, acc)
                lines = list(lines)
            r = self.e.fresh("t")
            return lines + [f"{r} = arith.{op} {x}, {a[1]} : {acc}"], r
        name = self.e.generic(rank, iters, [(v, list(range(rank)))], out_shape, acc,
                              out_map, body, init=init)
        return self.plain(name, out_shape, acc)

    def truncate(self, v, dtype):
        r = len(v.shape)
        name = self.e.generic(r, ["parallel"] * r, [(v, list(range(r)))], v.shape, dtype,
                              affine_map(r, [f"d{i}" for i in range(r)]),
                              lambda x: self.cast(x[0], "truncf", v.dtype, dtype))
        return self.plain(name, v.shape, dtype)

    def matmul(self, node, a, b, out_shape=None):
        """[B..] x M x K times [B..] x K x N, f32 accumulation; the result has
        node's shape, or out_shape."""
        out_shape = self.shape_of(node) if out_shape is None else tuple(out_shape)
        batch = len(out_shape) - 2
        rank = batch + 3  # batch dims, m, n, k
        dt = a.dtype
        acc_t = "f32"
        a_dims = list(range(batch)) + [batch, batch + 2]
        b_dims = list(range(batch)) + [batch + 2, batch + 1]
        if len(a.shape) != batch + 2 or len(b.shape) != batch + 2:
            raise refuse(node, "broadcast batch matmul")
        init = self.e.filled(out_shape, acc_t, 0.0)
        out_map = affine_map(rank, [f"d{i}" for i in range(batch + 2)])
        iters = ["parallel"] * (batch + 2) + ["reduction"]

        def body(x):
            lines = []
            ops = x[:2]
            if dt != acc_t:
                ext = [self.e.fresh("x"), self.e.fresh("x")]
                lines += [f"{ext[i]} = arith.extf {x[i]} : {dt} to {acc_t}" for i in range(2)]
                ops = ext
            m, s = self.e.fresh("t"), self.e.fresh("t")
            lines += [f"{m} = arith.mulf {ops[0]}, {ops[1]} : {acc_t}",
                      f"{s} = arith.addf {x[2]}, {m} : {acc_t}"]
            return lines, s
        name = self.e.generic(rank, iters, [(a, a_dims), (b, b_dims)], out_shape, acc_t,
                              out_map, body, init=init)
        result = self.plain(name, out_shape, acc_t)
        if dt != acc_t:
            result = self.truncate(result, dt)
        return result

    def convolution(self, node):
        x, w = self.arg(node.args[0]), self.arg(node.args[1])
        bias = node.args[2]
        stride, padding, dilation, transposed, output_padding, groups = node.args[3:9]
        out_shape = self.shape_of(node)
        spatial = len(x.shape) - 2
        if spatial not in (1, 2, 3):
            raise refuse(node, f"{spatial}-D convolution")
        if transposed:
            return self.transposed_convolution(node, x, w, bias, stride, padding, dilation,
                                               output_padding, groups, out_shape)
        if spatial == 1:
            return self.convolution_1d(node, x, w, bias, stride, padding, dilation, groups,
                                       out_shape)
        # Channels-last input and weight (NCHW views of NHWC and FHWC
        # tensors, as permute() or channels_last memory give): an NHWC
        # convolution on the tensors as laid out, no transposes. f16/bf16
        # NCHW tensors (PyTorch's default layout) are transposed to NHWC and
        # FHWC first, as cuDNN does: tensor cores want the channels
        # contiguous, and a transpose moves its bytes near the copy rate.
        if spatial == 2 and groups == 1 and x.dtype == w.dtype:
            channels_last = x.phys == [0, 2, 3, 1] and w.phys == [0, 2, 3, 1]
            if channels_last or x.dtype in ("f16", "bf16"):
                x, w = self.relayout(x, [0, 2, 3, 1]), self.relayout(w, [0, 2, 3, 1])
                return self.convolution_nhwc(x, w, bias, stride, padding, dilation, out_shape)
        return self.convolution_nchw(node, self.materialize(x), self.materialize(w), bias,
                                     stride, padding, dilation, groups, out_shape)

    def convolution_nchw(self, node, x, w, bias, stride, padding, dilation, groups, out_shape):
        """An f32 convolution of plain NC(D)HW tensors as a named linalg op
        (2-D or 3-D; 2-D depthwise), zero padding as tensor.pad, the bias
        added after."""
        spatial = len(x.shape) - 2
        if x.dtype != "f32" or w.dtype != "f32":
            raise refuse(node, f"grouped or {spatial}-D convolutions in {x.dtype}, or of "
                               "mixed element types (only f32 ones are implemented)")
        if groups == 1 and reads_channels_last(x.shape, w.shape, out_shape):
            last = [0] + list(range(2, 2 + spatial)) + [1]
            x, w = self.relayout(x, last), self.relayout(w, last)
            return self.convolution_nhwc_to_nchw(x, w, bias, stride, padding, dilation,
                                                 out_shape)
        if any(padding):
            name, padded = self.e.zero_pad(x.name, x.shape, "f32", (0, 0) + tuple(padding))
            x = self.plain(name, padded, "f32")
        name = self.e.fresh("cv")
        ot = tensor_type(out_shape, "f32")
        vec = lambda v: f"dense<[{', '.join(str(i) for i in v)}]> : tensor<{spatial}xi64>"  # noqa: E731
        attrs = f"{{dilations = {vec(dilation)}, strides = {vec(stride)}}}"
        ins = f"{tensor_type(x.shape, 'f32')}, {tensor_type(w.shape, 'f32')}"
        if groups == 1:
            op = {2: "conv_2d_nchw_fchw", 3: "conv_3d_ncdhw_fcdhw"}[spatial]
            init = self.e.filled(out_shape, "f32", 0.0)
            self.e.emit(f"{name} = linalg.{op} {attrs} ins({x.name}, {w.name} : {ins}) "
                        f"outs({init} : {ot}) -> {ot}")
        elif spatial == 2 and groups == x.shape[1] and w.shape[0] == groups and w.shape[1] == 1:
            init = self.e.filled(out_shape, "f32", 0.0)
            wv = self.materialize(Value(w.name, w.phys_shape, (w.shape[0], w.shape[2], w.shape[3]),
                                        "f32", [0, None, 1, 2]))
            self.e.emit(f"{name} = linalg.depthwise_conv_2d_nchw_chw {attrs} ins({x.name}, {wv.name} : "
                        f"{tensor_type(x.shape, 'f32')}, {tensor_type(wv.shape, 'f32')}) "
                        f"outs({init} : {ot}) -> {ot}")
        elif spatial == 2:
            # [N, G, C/G, H, W] by [G, F/G, C/G, KH, KW]: expand_shape views.
            xg = self.split_dim(x, 1, groups)
            wg = self.split_dim(w, 0, groups)
            gshape = (out_shape[0], groups, out_shape[1] // groups) + tuple(out_shape[2:])
            init = self.e.filled(gshape, "f32", 0.0)
            gt = tensor_type(gshape, "f32")
            self.e.emit(f"{name} = linalg.conv_2d_ngchw_gfchw {attrs} ins({xg.name}, {wg.name} : "
                        f"{tensor_type(xg.shape, 'f32')}, {tensor_type(wg.shape, 'f32')}) "
                        f"outs({init} : {gt}) -> {gt}")
            name = self.merge_dims(self.plain(name, gshape, "f32"), 1).name
        else:
            raise refuse(node, f"grouped {spatial}-D convolution (groups={groups})")
        out = self.plain(name, out_shape, "f32")
        return self.add_channel_bias(out, bias) if bias is not None else out

    def add_channel_bias(self, out, bias):
        """out[n, f, ...] + bias[f] for a plain NC... tensor."""
        return self.add_channel_bias_value(out, self.arg(bias))

    def add_channel_bias_value(self, out, b):
        rank = len(out.shape)

        def add(args):
            r = self.e.fresh("t")
            return [f"{r} = arith.addf {args[0]}, {args[1]} : f32"], r
        name = self.e.generic(rank, ["parallel"] * rank, [(out, list(range(rank))), (b, [1])],
                              out.shape, "f32", affine_map(rank, [f"d{i}" for i in range(rank)]), add)
        return self.plain(name, out.shape, "f32")

    def split_dim(self, v, at, parts):
        """The plain tensor v with dim `at` split into (parts, rest)
        (tensor.expand_shape: no copy)."""
        shape = v.shape[:at] + (parts, v.shape[at] // parts) + v.shape[at + 1:]
        groups = [[i] if i < at else [at, at + 1] if i == at else [i + 1]
                  for i in range(len(v.shape))]
        name = self.e.fresh("r")
        self.e.emit(f"{name} = tensor.expand_shape {v.name} {groups} output_shape "
                    f"[{', '.join(str(s) for s in shape)}] : {tensor_type(v.shape, v.dtype)} into "
                    f"{tensor_type(shape, v.dtype)}")
        return self.plain(name, shape, v.dtype)

    def merge_dims(self, v, at):
        """The plain tensor v with dims `at` and `at + 1` merged
        (tensor.collapse_shape: no copy)."""
        shape = v.shape[:at] + (v.shape[at] * v.shape[at + 1],) + v.shape[at + 2:]
        groups = [[i] if i < at else [at, at + 1] if i == at else [i + 1]
                  for i in range(len(shape))]
        name = self.e.fresh("r")
        self.e.emit(f"{name} = tensor.collapse_shape {v.name} {groups} : "
                    f"{tensor_type(v.shape, v.dtype)} into {tensor_type(shape, v.dtype)}")
        return self.plain(name, shape, v.dtype)

    def unit_dim(self, v, at):
        """A plain tensor with a size-1 dim inserted before dim `at`
        (tensor.expand_shape: no copy)."""
        return self.split_dim(v, at, 1)

    def drop_unit_dim(self, v, at):
        """The plain tensor v without its size-1 dim `at` (not the last)."""
        return self.merge_dims(v, at)

    def convolution_1d(self, node, x, w, bias, stride, padding, dilation, groups, out_shape):
        """A 1-D convolution as a 2-D one of height 1 (NCL -> NC1L): the 2-D
        formulations and their tunings serve it."""
        x2 = self.unit_dim(self.materialize(x), 2)
        w2 = self.unit_dim(self.materialize(w), 2)
        n, f, length = out_shape
        out = self.convolution_nchw(node, x2, w2, bias, (1, stride[0]), (0, padding[0]),
                                    (1, dilation[0]), groups, (n, f, 1, length))
        return self.drop_unit_dim(out, 2)

    def transposed_convolution(self, node, x, w, bias, stride, padding, dilation,
                               output_padding, groups, out_shape):
        """A stride-1 transposed convolution is the plain convolution of its
        input, padded by d*(k-1)-p on each side, with the weight's channels
        swapped and its taps reversed: one formulation, with no zeros
        inserted."""
        densify = lambda t: t  # noqa: E731
        if groups != 1:
            # Groups as one convolution whose prepared weight is block
            # diagonal: correct, at `groups` times the products.
            densify = lambda t, g=groups: block_diagonal(t, g)  # noqa: E731
            w = Value(w.name, w.phys_shape, (w.shape[0], w.shape[1] * groups) + w.shape[2:],
                      w.dtype, w.phys)
        if any(s != 1 for s in stride):
            return self.strided_transposed_convolution(node, x, w, bias, stride, padding,
                                                       dilation, output_padding, out_shape,
                                                       densify)
        kernel = w.shape[2:]
        pads = [d * (k - 1) - p for d, k, p in zip(dilation, kernel, padding)]
        if any(p < 0 for p in pads):
            raise refuse(node, "transposed convolution with padding over d*(k-1)")
        spatial = len(kernel)
        # The weight's channels swapped and taps reversed, prepared from the
        # parameter once: a reversed index map in a kernel is not tileable.
        flipped = self.prepared_parameter(
            node.args[1], "flipped", (w.shape[1], w.shape[0]) + tuple(kernel),
            lambda t, n=spatial: densify(t).transpose(0, 1).flip(list(range(2, 2 + n)))
            .contiguous())
        if flipped is None:
            raise refuse(node, "transposed convolution of a weight that is not a parameter")
        x = self.materialize(x)
        if spatial == 1:
            x2, w2 = self.unit_dim(x, 2), self.unit_dim(flipped, 2)
            n, f, length = out_shape
            out = self.convolution_nchw(node, x2, w2, bias, (1, 1), (0, pads[0]),
                                        (1, dilation[0]), 1, (n, f, 1, length))
            return self.drop_unit_dim(out, 2)
        return self.convolution_nchw(node, x, flipped, bias, (1,) * spatial, tuple(pads),
                                     tuple(dilation), 1, out_shape)

    def strided_transposed_convolution(self, node, x, w, bias, stride, padding, dilation,
                                       output_padding, out_shape, densify):
        """A transposed convolution of stride s as one stride-1 convolution
        whose output channels are its phases: tap k of a dim adds input i
        into output i*s + k*d - p, which is output q*s + r of phase r for
        the input q + e (e = (r - k*d + p) / s). Each phase's taps form a
        sub-kernel; all phases share one input offset and kernel extent
        (taps a phase lacks are zeros), so the phases are output channels of
        one convolution whose weight is prepared from the parameter at
        compile time. Phases are counted from a window [w, w + s) with
        w <= 0 (`phase_window`), and only an arithmetic run of them is
        computed: a phase no tap reaches (stride 2, dilation 2) is zero,
        filled in by a pad of the result. The result, [N, phases*F, Q...],
        is the output seen as [N, F, Q0, s0, Q1, s1, ...] with the dims
        permuted: one copy lays it out. No zeros are inserted into the
        input."""
        kernel, spatial = w.shape[2:], len(w.shape) - 2
        windows, low, high, extent, blocks = [], [], [], [], []
        for i in range(spatial):
            s, p, d, k_n = stride[i], padding[i], dilation[i], kernel[i]
            win = phase_window(s, [k * d - p for k in range(k_n)], out_shape[2 + i])
            lo, hi, q_n = min(win.offsets), max(win.offsets), win.blocks
            if lo > 0:
                raise refuse(node, "transposed convolution whose padding crops its input")
            windows.append(win)
            extent.append(hi - lo + 1)
            low.append(-lo)
            high.append(max(0, q_n - 1 + hi - (x.shape[2 + i] - 1)))
            blocks.append(q_n)
        counts = [win.count for win in windows]
        phases = math.prod(counts)
        channels = w.shape[1]

        def phase_weight(t, windows=windows, extent=extent, counts=counts):
            t = densify(t)
            out = t.new_zeros((phases * t.shape[1], t.shape[0]) + tuple(extent))
            lows = [min(win.offsets) for win in windows]
            for k in itertools.product(*(range(len(win.offsets)) for win in windows)):
                r = 0
                for win, tap, n in zip(windows, k, counts):
                    r = r * n + win.phase_of[tap]
                j = tuple(win.offsets[tap] - lo for win, tap, lo in zip(windows, k, lows))
                out[(slice(r * t.shape[1], (r + 1) * t.shape[1]), slice(None)) + j] = \
                    t[(slice(None), slice(None)) + k].transpose(0, 1)
            return out
        weight = self.prepared_parameter(node.args[1], "phases",
                                         (phases * channels, w.shape[0]) + tuple(extent),
                                         phase_weight)
        if weight is None:
            raise refuse(node, "transposed convolution of a weight that is not a parameter")
        # Phases the run leaves out hold no tap: they are the bias alone,
        # added after the pad that fills them in.
        whole_run = all(win.count == s for win, s in zip(windows, stride))
        phase_bias = None
        if bias is not None and whole_run:
            phase_bias = self.prepared_parameter(bias, "phases", (phases * channels,),
                                                 lambda t: t.repeat(phases))
            if phase_bias is None:
                raise refuse(node, "transposed convolution of a bias that is not a parameter")
        x = self.materialize(x)
        if any(low) or any(high):
            name, padded = self.e.pad_sides(x.name, x.shape, x.dtype, [0, 0] + low, [0, 0] + high)
            x = self.plain(name, padded, x.dtype)
        n = out_shape[0]
        y_shape = (n, phases * channels) + tuple(blocks)
        if spatial == 1:
            y = self.convolution_nchw(node, self.unit_dim(x, 2), self.unit_dim(weight, 2), None,
                                      (1, 1), (0, 0), (1, 1), 1, (n, phases * channels, 1, blocks[0]))
            y = self.drop_unit_dim(y, 2)
        else:
            y = self.convolution_nchw(node, x, weight, None, (1,) * spatial, (0,) * spatial,
                                      (1,) * spatial, 1, y_shape)
        if phase_bias is not None:
            y = self.add_channel_bias_value(y, phase_bias)
        # [N, c0, .., F, Q0, ..] -> [N, F, Q0, c0, Q1, c1, ..].
        split = (n,) + tuple(counts) + (channels,) + tuple(blocks)
        y = self.view_reshape(y, split)
        logical = [0] + [3 + 2 * i for i in range(spatial)] + [1] + [2 + 2 * i for i in range(spatial)]
        inter = (n, channels) + tuple(v for i in range(spatial) for v in (blocks[i], counts[i]))
        view = Value(y.name, y.phys_shape, inter, y.dtype, logical)
        out = self.materialize(view)
        if not whole_run:
            # Phase start + step*j of the window sits at [j + a0, c] of the
            # block's s outputs seen as [s / step, step].
            wide = (n, channels) + tuple(v for i in range(spatial)
                                         for v in (blocks[i], counts[i], 1))
            out = self.view_reshape(out, wide)
            lo_pad, hi_pad = [0, 0], [0, 0]
            for win, s in zip(windows, stride):
                a0, c = divmod(win.start - win.start_window, win.step)
                lo_pad += [0, a0, c]
                hi_pad += [0, s // win.step - a0 - win.count, win.step - 1 - c]
            name, padded = self.e.pad_sides(out.name, wide, out.dtype, lo_pad, hi_pad)
            out = self.plain(name, padded, out.dtype)
        whole = (n, channels) + tuple(q * s for q, s in zip(blocks, stride))
        out = self.reshape(node, out, whole)
        offsets = [-win.start_window for win in windows]
        if whole != tuple(out_shape) or any(offsets):
            out = self.crop(out, tuple(out_shape), [0, 0] + offsets)
        if bias is not None and phase_bias is None:
            out = self.add_channel_bias(out, bias)
        return out

    def crop(self, v, shape, offsets=None):
        """The part of the plain tensor v of `shape` from `offsets` (the
        leading part where None), copied."""
        offsets = offsets or [0] * len(shape)
        return self.gather(v, shape, [f"d{i} + {o}" if o else f"d{i}"
                                      for i, o in enumerate(offsets)])

    def convolution_nhwc(self, x, w, bias, stride, padding, dilation, out_shape):
        """out[n, oh, ow, f] = sum x[n, oh*s + kh*d, ow*s + kw*d, c] w[f, kh, kw, c]
        (+ bias[f]) on the physical NHWC / FHWC tensors, accumulated in f32,
        the bias added before rounding; the result is an NCHW view of an
        NHWC tensor."""
        dt = x.dtype
        xp = self.padded_image(x, padding)
        n, f, oh, ow = out_shape
        phys_out = (n, oh, ow, f)
        (sh, sw), (dh, dw) = stride, dilation
        dims = "(d0, d1, d2, d3, d4, d5, d6)"
        maps = [f"affine_map<{dims} -> (d0, d1 * {sh} + d4 * {dh}, d2 * {sw} + d5 * {dw}, d6)>",
                f"affine_map<{dims} -> (d3, d4, d5, d6)>",
                f"affine_map<{dims} -> (d0, d1, d2, d3)>"]
        out = self.multiply_add(xp, w, maps, 4, 3, phys_out)
        if bias is not None:
            b = self.arg(bias)

            def add_bias(args):
                lines, b32 = (([], args[1]) if b.dtype == "f32"
                              else self.cast(args[1], "extf", b.dtype, "f32"))
                r = self.e.fresh("t")
                return lines + [f"{r} = arith.addf {args[0]}, {b32} : f32"], r
            name = self.e.generic(4, ["parallel"] * 4, [(out, [0, 1, 2, 3]), (b, [3])], phys_out,
                                  "f32", affine_map(4, [f"d{i}" for i in range(4)]), add_bias)
            out = self.plain(name, phys_out, "f32")
        if dt != "f32":
            out = self.truncate(out, dt)
        return Value(out.name, phys_out, tuple(out_shape), dt, [0, 2, 3, 1])

    def convolution_nhwc_to_nchw(self, x, w, bias, stride, padding, dilation, out_shape):
        """out[n, f, o...] = sum x[n, o*s + k*d..., c] w[f, k..., c] (+ bias[f])
        for f32 channels-last input and weight (2-D or 3-D), written
        channels-first: loops (n, f, o..., k..., c)."""
        spatial = len(out_shape) - 2
        xp = self.padded_image(x, padding)
        loops = 2 * spatial + 3
        d = [f"d{i}" for i in range(loops)]
        out_dims, tap_dims, c = d[2:2 + spatial], d[2 + spatial:2 + 2 * spatial], d[-1]
        image = [f"{o} * {s} + {k} * {dl}" for o, k, s, dl in zip(out_dims, tap_dims, stride, dilation)]
        dims = f"({', '.join(d)})"
        maps = [f"affine_map<{dims} -> ({', '.join([d[0]] + image + [c])})>",
                f"affine_map<{dims} -> ({', '.join([d[1]] + tap_dims + [c])})>",
                f"affine_map<{dims} -> ({', '.join(d[:2 + spatial])})>"]
        out = self.multiply_add(xp, w, maps, 2 + spatial, spatial + 1, out_shape)
        return self.add_channel_bias(out, bias) if bias is not None else out

    def padded_image(self, x, padding):
        """The physical channels-last image x, zero-padded along its spatial
        dims."""
        if not any(padding):
            return self.plain(x.name, x.phys_shape, x.dtype)
        name, padded = self.e.zero_pad(x.name, x.phys_shape, x.dtype,
                                       (0,) + tuple(padding) + (0,))
        return self.plain(name, padded, x.dtype)

    def multiply_add(self, x, w, maps, parallel, reduction, out_shape):
        """A generic summing x * w into an f32 tensor of out_shape (16-bit
        operands widened first): a convolution's product over the maps."""
        dt = x.dtype
        iters = ", ".join(['"parallel"'] * parallel + ['"reduction"'] * reduction)
        init = self.e.filled(out_shape, "f32", 0.0)
        name, ot = self.e.fresh("cv"), tensor_type(out_shape, "f32")
        self.e.emit(f"{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{iters}]}} "
                    f"ins({x.name}, {w.name} : {tensor_type(x.phys_shape, dt)}, {tensor_type(w.phys_shape, dt)}) "
                    f"outs({init} : {ot}) {{")
        self.e.emit(f"^bb0(%a: {dt}, %b: {dt}, %acc: f32):")
        a, b = "%a", "%b"
        if dt != "f32":
            a, b = self.e.fresh("t"), self.e.fresh("t")
            self.e.emit(f"  {a} = arith.extf %a : {dt} to f32")
            self.e.emit(f"  {b} = arith.extf %b : {dt} to f32")
        m, r = self.e.fresh("t"), self.e.fresh("t")
        self.e.emit(f"  {m} = arith.mulf {a}, {b} : f32")
        self.e.emit(f"  {r} = arith.addf %acc, {m} : f32")
        self.e.emit(f"  linalg.yield {r} : f32")
        self.e.emit(f"}} -> {ot}")
        return self.plain(name, out_shape, "f32")

    def layer_norm(self, node):
        x = self.arg(node.args[0])
        shape = list(node.args[1])
        weight, bias = node.args[2], node.args[3]
        eps = node.args[4]
        rank = len(x.shape)
        if len(shape) != 1:
            dims = list(range(rank - len(shape), rank))
            affine = [(self.arg(v), dims) for v in (weight, bias)]
            return (self.normalize(node, x, dims, eps, *affine), None, None)
        if rank > 4:
            # Rows over more than three loops, as [rows, length]: a grid
            # spreads rows over at most three.
            rows = self.reshape(node, x, (math.prod(x.shape[:-1]), x.shape[-1]))
            y = self.layer_norm_rows(rows, weight, bias, eps)
            return (self.reshape(node, y, x.shape), None, None)
        return (self.layer_norm_rows(x, weight, bias, eps), None, None)

    def layer_norm_rows(self, x, weight, bias, eps):
        """Layer norm over the innermost dim of x: the mean, then the squared
        deviations (two passes over the row), then the normalised row."""
        rank = len(x.shape)
        n = x.shape[-1]
        s = self.reduce(x, [rank - 1], "sum")
        mean = self.elementwise_plain(s, n, "divf")
        if mean.dtype != x.dtype:
            mean = self.truncate(mean, x.dtype)
        rows = list(range(rank - 1))
        dt = x.dtype
        # Variance: mean of squared deviations (two passes over the row).
        init = self.e.filled(mean.shape, dt, 0.0)
        out_map = affine_map(rank, [f"d{i}" for i in rows])

        def var_body(a):
            d, q, r = self.e.fresh("t"), self.e.fresh("t"), self.e.fresh("t")
            return [f"{d} = arith.subf {a[0]}, {a[1]} : {dt}", f"{q} = arith.mulf {d}, {d} : {dt}",
                    f"{r} = arith.addf {q}, {a[2]} : {dt}"], r
        sq = self.e.generic(rank, ["parallel"] * (rank - 1) + ["reduction"],
                            [(x, list(range(rank))), (mean, rows)], mean.shape, dt, out_map,
                            var_body, init=init)
        sq = self.plain(sq, mean.shape, dt)
        ins = [(x, list(range(rank))), (mean, rows), (sq, rows)]
        if weight is not None:
            ins.append((self.arg(weight), [rank - 1]))
        if bias is not None:
            ins.append((self.arg(bias), [rank - 1]))

        body = self.normalized_body(dt, n, eps, weight is not None, bias is not None)
        name = self.e.generic(rank, ["parallel"] * rank, ins, x.shape, dt,
                              affine_map(rank, [f"d{i}" for i in range(rank)]), body)
        return self.plain(name, x.shape, dt)

    def normalized_body(self, dt, count, eps, has_weight, has_bias):
        """The body of a norm's last pass over (x, mean, sum of squared
        deviations[, weight][, bias]): (x - mean) * rsqrt(sq / count + eps)
        * weight + bias."""
        def body(a):
            lines = []

            def op(o, *xs):
                r = self.e.fresh("t")
                lines.append(f"{r} = {o} {', '.join(xs)} : {dt}")
                return r
            kn = self.e.fresh("k")
            lines += [f"{kn} = arith.constant {float_literal(count, dt)} : {dt}"]
            eps_lines, ke = exact_constant(self.e.fresh, eps, dt)
            lines += eps_lines
            rs = op("math.rsqrt", op("arith.addf", op("arith.divf", a[2], kn), ke))
            y = op("arith.mulf", op("arith.subf", a[0], a[1]), rs)
            i = 3
            if has_weight:
                y, i = op("arith.mulf", y, a[i]), i + 1
            if has_bias:
                y = op("arith.addf", y, a[i])
            return lines, y
        return body

    def normalize(self, node, x, dims, eps, weight=(None, None), bias=(None, None)):
        """(x - mean) * rsqrt(var + eps) * weight + bias with the mean and the
        biased variance over `dims` of x (two passes: the mean, then the
        squared deviations), weight and bias (Value, dims of x they follow)
        or None. In f32 for 16-bit x, as PyTorch computes norms."""
        dt = x.dtype
        if dt != "f32":
            raise refuse(node, f"normalisation over several dims in {dt} (f32 is implemented)")
        rank = len(x.shape)
        dims = sorted(d % rank for d in dims)
        unit = [d for d in range(rank) if x.shape[d] == 1]
        if unit and x.shape[-1] != 1:
            # Without its unit dims (an instance norm of [N, 1, 1, L] reduces
            # rows of L), then seen with them again: views, no copies.
            keep = [d for d in range(rank) if d not in unit]
            new = {d: i for i, d in enumerate(keep)}
            squeezed = Value(x.name, x.phys_shape, tuple(x.shape[d] for d in keep), dt,
                             [None if (l is None or l in unit) else new[l] for l in x.phys])
            affine = [(v, None if v is None else
                       [None if (d is None or d in unit) else new[d] for d in ds])
                      for v, ds in (weight, bias)]
            y = self.normalize(node, squeezed, [new[d] for d in dims if d in new], eps, *affine)
            return Value(y.name, y.phys_shape, x.shape, dt, [keep[l] for l in y.phys])
        kept = [i for i in range(rank) if i not in dims]
        x = self.indexed(x)
        count = math.prod(x.shape[d] for d in dims)
        # Reduced dims with a kept one after them (batch norm's N beside H
        # and W, around C): each statistic sums the trailing reduced dims
        # first, as one row (a view of x with them collapsed) that lanes
        # share, then the rest over those partial sums. One reduction over
        # both would leave every thread a whole row of its own. (Trailing
        # reduced dims alone stay apart: the normalising map shares the
        # statistics' kernel and must walk the same row.)
        inner = []
        for d in reversed(range(rank)):
            if d not in dims:
                break
            inner.insert(0, d)
        outer = [d for d in dims if d not in inner]
        staged = math.prod(x.shape[d] for d in inner) > 1 and \
            math.prod(x.shape[d] for d in outer) > 1
        # Column statistics (the leading dims reduced, as a BatchNorm1d over
        # [N, K]): one thread a column would leave the GPU nearly idle where
        # the columns are few, so the rows are cut into parts summed apart
        # (a view [parts, N / parts, K]), then the parts' sums added.
        columns = math.prod(x.shape[d] for d in kept)
        parts = column_parts(count, columns) if dims == list(range(len(dims))) else 1
        split = not staged and parts > 1
        src_kept = kept  # The kept dims in src's loops.
        if staged:
            lead = rank - len(inner)  # x's dims before the inner ones.
            src = self.indexed(self.reshape(node, x, x.shape[:lead] + (math.prod(x.shape[lead:]),)))
            first, after = [lead], outer
        elif split:
            src = self.indexed(self.reshape(node, x, (parts, count // parts, columns)))
            first, after, src_kept = [1], [0], [2]
        else:
            src, first, after = x, dims, []
        src_rank = len(src.shape)

        def rest(part):  # A staged statistic's second stage, seen as kept.
            if not after:
                return part
            total = self.reduce(part, after, "sum")
            if split:
                return self.reshape(node, total, tuple(x.shape[d] for d in kept))
            return total
        mean = self.elementwise_plain(rest(self.reduce(src, first, "sum")), count, "divf")

        def var_body(a):
            d, q, r = self.e.fresh("t"), self.e.fresh("t"), self.e.fresh("t")
            return [f"{d} = arith.subf {a[0]}, {a[1]} : {dt}", f"{q} = arith.mulf {d}, {d} : {dt}",
                    f"{r} = arith.addf {q}, {a[2]} : {dt}"], r
        sq_dims = [i for i in range(src_rank) if i not in first]
        sq_shape = tuple(src.shape[i] for i in sq_dims)
        iters = ["reduction" if i in first else "parallel" for i in range(src_rank)]
        mean_in_src = self.reshape(node, mean, tuple(src.shape[d] for d in src_kept)) \
            if split else mean
        sq = self.e.generic(src_rank, iters, [(src, list(range(src_rank))), (mean_in_src, src_kept)],
                            sq_shape, dt, affine_map(src_rank, [f"d{i}" for i in sq_dims]),
                            var_body, init=self.e.filled(sq_shape, dt, 0.0))
        sq = rest(self.plain(sq, sq_shape, dt))
        ins = [(x, list(range(rank))), (mean, kept), (sq, kept)]
        ins += [v for v in (weight, bias) if v[0] is not None]

        body = self.normalized_body(dt, count, eps, weight[0] is not None, bias[0] is not None)
        name = self.e.generic(rank, ["parallel"] * rank, ins, x.shape, dt,
                              affine_map(rank, [f"d{i}" for i in range(rank)]), body)
        return self.plain(name, x.shape, dt)

    def batch_norm_batch_stats(self, node, training_at, eps_at):
        """Batch norm on the batch's own statistics (training mode; instance
        norm is one on a [1, N*C, ...] view): normalised over every dim but
        the channels. Running statistics are not updated: EGG computes the
        forward result alone (the import drops buffer mutations)."""
        x = self.arg(node.args[0])
        weight, bias = node.args[1], node.args[2]
        if not node.args[training_at]:
            raise refuse(node, "batch norm in eval mode through the functional form")
        # An instance norm (a batch of one) reduces trailing dims only: its
        # spatial dims as one (views), so lanes share a row along one loop.
        # A batch's statistics are staged over a collapsed view anyway
        # (normalize), and its normalising map keeps the input's shape, so
        # that what follows (a ReLU, a scale) joins its kernel.
        shape = x.shape
        if len(shape) > 3 and shape[0] == 1:
            x = self.reshape(node, x, shape[:2] + (math.prod(shape[2:]),))
        dims = [0] + list(range(2, len(x.shape)))
        affine = [(self.arg(v), [1]) if v is not None else (None, None) for v in (weight, bias)]
        y = self.normalize(node, x, dims, node.args[eps_at], *affine)
        if y.shape != shape:
            y = self.reshape(node, y, shape)
        return (y, None, None) + ((None, None) if len(node.meta["val"]) > 3 else ())

    def group_norm(self, node):
        """Group norm: the [N, C, ...] tensor viewed as [N, G, C/G, ...] and
        normalised over all but N and G; weight and bias per channel."""
        x = self.materialize(self.arg(node.args[0]))
        weight, bias = node.args[1], node.args[2]
        n, c, _, groups, eps = node.args[3:8]
        shape = x.shape
        # The spatial dims as one (a view): egg-distribute-rows shares a row
        # among lanes along its innermost loop, which a [.., D, H, W] row
        # leaves W long.
        view = (shape[0], groups, shape[1] // groups) + \
            ((math.prod(shape[2:]),) if len(shape) > 2 else ())
        xg = self.reshape(node, x, view)
        affine = []
        for v in (weight, bias):
            if v is None:
                affine.append((None, None))
            else:
                affine.append((self.reshape(node, self.materialize(self.arg(v)),
                                            (groups, shape[1] // groups)), [1, 2]))
        y = self.normalize(node, xg, list(range(2, len(view))), eps, *affine)
        return (self.reshape(node, y, shape), None, None)

    def batch_norm(self, node):
        """Inference batch norm: (x - mean[c]) * rsqrt(var[c] + eps) * w[c] +
        b[c] over channel dim 1, one elementwise op (it fuses into a
        producing convolution's epilogue), computed in f32 for 16-bit x as
        PyTorch does. The saved mean/rstd results are not computed."""
        x = self.arg(node.args[0])
        weight, bias, mean, var = node.args[1:5]
        eps = node.args[6]
        rank, dt = len(x.shape), x.dtype
        if rank < 2:
            raise refuse(node, f"batch norm of a {rank}-D tensor")
        ins = [(x, list(range(rank)))]
        for v in (mean, var, weight, bias):
            if v is not None:
                ins.append((self.arg(v), [1]))
        fresh = self.e.fresh

        def body(a):
            lines = []

            def wide(name, src):
                if src == "f32":
                    return name
                n, r = self.cast(name, "extf", src, "f32")
                lines.extend(n)
                return r
            vals = [wide(a[0], dt)] + [wide(a[i + 1], v.dtype)
                                       for i, (v, _) in enumerate(ins[1:])]
            xv, m, var_ = vals[0], vals[1], vals[2]
            d, s, r, y = fresh("t"), fresh("t"), fresh("t"), fresh("t")
            eps_lines, k = exact_constant(fresh, eps, "f32")
            lines += eps_lines + [f"{d} = arith.subf {xv}, {m} : f32",
                                  f"{s} = arith.addf {var_}, {k} : f32",
                                  f"{r} = math.rsqrt {s} : f32",
                                  f"{y} = arith.mulf {d}, {r} : f32"]
            i = 3
            if weight is not None:
                w = fresh("t")
                lines.append(f"{w} = arith.mulf {y}, {vals[i]} : f32")
                y, i = w, i + 1
            if bias is not None:
                b = fresh("t")
                lines.append(f"{b} = arith.addf {y}, {vals[i]} : f32")
                y = b
            if dt != "f32":
                more, y = self.cast(y, "truncf", "f32", dt)
                lines.extend(more)
            return lines, y
        name = self.e.generic(rank, ["parallel"] * rank, ins, x.shape, dt,
                              affine_map(rank, [f"d{i}" for i in range(rank)]), body)
        return (self.plain(name, x.shape, dt), None, None)

    def pool_args(self, node, kind, spatial):
        """A pooling op's input (laid out and padded: -inf for max, zeros for
        the average), its window (kernel, stride, dilation per spatial dim),
        the average's divisor, the output shape and the accumulator type (f32
        for 16-bit averages). Refuses ceil_mode and averages that leave the
        padding uncounted."""
        args = list(node.args)
        x = self.materialize(self.arg(args[0]))
        kernel = list(args[1])
        stride = list(args[2]) if len(args) > 2 and args[2] else kernel
        padding = list(args[3]) if len(args) > 3 else [0] * spatial
        if kind == "max":
            dilation = list(args[4]) if len(args) > 4 else [1] * spatial
            ceil_mode = args[5] if len(args) > 5 else False
            include_pad, divisor = True, None
        else:
            dilation = [1] * spatial
            ceil_mode = args[4] if len(args) > 4 else False
            include_pad = args[5] if len(args) > 5 else True
            divisor = args[6] if len(args) > 6 else None
        expand = lambda v: v * spatial if len(v) == 1 else v  # noqa: E731
        kernel, stride, padding, dilation = map(expand, (kernel, stride, padding, dilation))
        val = node.meta["val"]  # max_pool*_with_indices: (values, indices)
        out_shape = tuple(int(d) for d in (val[0] if kind == "max" else val).shape)
        # ceil_mode's last window may run past the padded input: it reads
        # -inf there (max); for an average the divisor would change.
        over = [max(0, (o - 1) * s + d * (k - 1) + 1 - (n + 2 * p)) for o, s, d, k, n, p in
                zip(out_shape[2:], stride, dilation, kernel, x.shape[2:], padding)]
        if len(x.shape) != 2 + spatial or (kind != "max" and any(over)) or \
                (not include_pad and any(padding)):
            raise refuse(node, f"only {2 + spatial}-D {spatial}-D pooling (averages without "
                               "ceil_mode and with the padding counted)")
        dt = x.dtype
        if any(padding) or any(over):
            name, padded = self.e.pad_sides(x.name, x.shape, dt, [0, 0] + list(padding),
                                            [0, 0] + [p + e for p, e in zip(padding, over)],
                                            -math.inf if kind == "max" else 0.0)
            x = self.plain(name, padded, dt)
        acc = dt if kind == "max" or dt == "f32" else "f32"
        return x, kernel, stride, dilation, divisor, out_shape, acc

    def pool2d(self, node, kind):
        """max_pool2d (its values; the indices are not computed) and
        avg_pool2d of an NCHW tensor as linalg pooling ops: padding with -inf
        for max, zeros counted in the average (count_include_pad) for avg; a
        16-bit average sums in f32."""
        x, kernel, stride, dilation, divisor, out_shape, acc = self.pool_args(node, kind, 2)
        dt = x.dtype
        init = self.e.filled(out_shape, acc, -math.inf if kind == "max" else 0.0)
        window = self.e.empty(tuple(kernel), acc)
        name, ot = self.e.fresh("pl"), tensor_type(out_shape, acc)
        op = "linalg.pooling_nchw_max" if kind == "max" else "linalg.pooling_nchw_sum"
        self.e.emit(f"{name} = {op} {{dilations = dense<[{dilation[0]}, {dilation[1]}]> : "
                    f"tensor<2xi64>, strides = dense<[{stride[0]}, {stride[1]}]> : tensor<2xi64>}} "
                    f"ins({x.name}, {window} : {tensor_type(x.shape, dt)}, "
                    f"{tensor_type(kernel, acc)}) outs({init} : {ot}) -> {ot}")
        out = self.plain(name, out_shape, acc)
        if kind == "max":
            return (out, None)
        out = self.elementwise_plain(out, float(divisor or kernel[0] * kernel[1]), "divf")
        return self.truncate(out, dt) if acc != dt else out

    def vector_norm(self, node, x, args):
        """linalg_vector_norm of order 1 (sum of |x|) or 2 (sqrt of the sum of
        squares) over dims (all by default), keepdim."""
        order = args[1] if len(args) > 1 else node.kwargs.get("ord", 2)
        dims = args[2] if len(args) > 2 else node.kwargs.get("dim", None)
        keep = args[3] if len(args) > 3 else node.kwargs.get("keepdim", False)
        if order not in (1, 2) or node.kwargs.get("dtype") is not None:
            raise refuse(node, f"vector norm of order {order} (1 and 2 are implemented)")
        rank = len(x.shape)
        dims = sorted(d % rank for d in (dims if dims is not None else range(rank)))
        op = "absf" if order == 1 else None

        def term(a):
            r = self.e.fresh("t")
            if op:
                return [f"{r} = math.absf {a[0]} : {x.dtype}"], r
            return [f"{r} = arith.mulf {a[0]}, {a[0]} : {x.dtype}"], r
        name = self.e.generic(rank, ["parallel"] * rank, [(x, list(range(rank)))], x.shape,
                              x.dtype, affine_map(rank, [f"d{i}" for i in range(rank)]), term)
        r = self.reduce(self.plain(name, x.shape, x.dtype), dims, "sum")
        if r.dtype != x.dtype:
            r = self.truncate(r, x.dtype)
        if order == 2:
            phys = r.phys_shape
            sq = self.e.generic(len(phys), ["parallel"] * len(phys),
                                [(self.plain(r.name, phys, r.dtype), list(range(len(phys))))],
                                phys, r.dtype, affine_map(len(phys), [f"d{i}" for i in range(len(phys))]),
                                lambda a: (lambda t: ([f"{t} = math.sqrt {a[0]} : {r.dtype}"], t))(
                                    self.e.fresh("t")))
            r = Value(sq, r.phys_shape, r.shape, r.dtype, r.phys)
        if keep:
            kept = [i for i in range(rank) if i not in dims]
            shape = tuple(1 if i in dims else x.shape[i] for i in range(rank))
            r = Value(r.name, r.phys_shape, shape, r.dtype,
                      [kept[p] for p in r.phys if p is not None] if kept else [None])
        return r

    def pool3d(self, node, kind):
        """max_pool3d (its values) and avg_pool3d of an NCDHW tensor as one
        windowed reduction generic: -inf padding for max, zeros counted in
        the average."""
        x, kernel, stride, dilation, divisor, out_shape, acc = self.pool_args(node, kind, 3)
        dt = x.dtype
        init = self.e.filled(out_shape, acc, -math.inf if kind == "max" else 0.0)
        dims = "(d0, d1, d2, d3, d4, d5, d6, d7)"
        window = ", ".join(f"d{2 + i} * {stride[i]} + d{5 + i} * {dilation[i]}" for i in range(3))
        # The window operand (read by nothing) gives the window loops their
        # extents, as linalg's pooling ops do.
        maps = [f"affine_map<{dims} -> (d0, d1, {window})>",
                f"affine_map<{dims} -> (d5, d6, d7)>",
                f"affine_map<{dims} -> (d0, d1, d2, d3, d4)>"]
        extent = self.e.empty(tuple(kernel), acc)
        iters = ", ".join(['"parallel"'] * 5 + ['"reduction"'] * 3)
        name, ot = self.e.fresh("pl"), tensor_type(out_shape, acc)
        op = "arith.maximumf" if kind == "max" else "arith.addf"
        self.e.emit(f"{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
                    f"iterator_types = [{iters}]}} ins({x.name}, {extent} : "
                    f"{tensor_type(x.shape, dt)}, {tensor_type(kernel, acc)}) "
                    f"outs({init} : {ot}) {{")
        self.e.emit(f"^bb0(%a: {dt}, %w: {acc}, %acc: {acc}):")
        a = "%a"
        if acc != dt:
            a = self.e.fresh("t")
            self.e.emit(f"  {a} = arith.extf %a : {dt} to {acc}")
        r = self.e.fresh("t")
        self.e.emit(f"  {r} = {op} %acc, {a} : {acc}")
        self.e.emit(f"  linalg.yield {r} : {acc}")
        self.e.emit(f"}} -> {ot}")
        out = self.plain(name, out_shape, acc)
        if kind == "max":
            return (out, None)
        out = self.elementwise_plain(out, float(divisor or math.prod(kernel)), "divf")
        return self.truncate(out, dt) if acc != dt else out

    # -- recurrent layers ------------------------------------------------------

    def recurrent(self, node):
        """aten.lstm / gru / rnn_tanh / rnn_relu (.input) whole, per layer and
        direction: the input projection of every step at once (x @ w_ih^T +
        b_ih, a GEMM with a bias epilogue), then egg.recurrence for the steps
        (the hidden side h @ w_hh^T + b_hh and the cell), the reverse
        direction a second recurrence that walks the steps backwards. Returns
        (output, h_n[, c_n]) as PyTorch does, as Pieces: the last layer's
        output and the stacked final states are built where read (a result
        left unread would otherwise be a kernel of no use)."""
        t = node.target
        kind = t.overloadpacket.__name__
        gates = RECURRENT_GATES[kind]
        names = [a.name for a in t._schema.arguments]
        a = dict(zip(names, node.args))
        a.update(node.kwargs)
        x = self.arg(a["input"])
        hx = a["hx"] if kind == "lstm" else [a["hx"]]
        states = [self.arg(h) for h in hx]
        params = [self.arg(p) for p in a["params"]]
        has_biases, layers = a["has_biases"], a["num_layers"]
        directions = 2 if a["bidirectional"] else 1
        batch_first = a["batch_first"]
        for v in [x] + states + params:
            if not isinstance(v, Value) or v.dtype != "f32":
                dtype = getattr(v, "dtype", type(v).__name__)
                raise refuse(node, f"a recurrent layer in {dtype} (f32 is implemented)")
        per = 4 if has_biases else 2
        if len(params) != layers * directions * per:
            if kind == "lstm" and len(params) == layers * directions * (per + 1):
                raise refuse(node, "an LSTM with proj_size (its weight_hr projections are "
                                   "not implemented)")
            raise refuse(node, f"{len(params)} parameters for {layers} layers of "
                               f"{directions} directions")
        if a["train"] and a["dropout"] and layers > 1:
            raise refuse(node, f"dropout between recurrent layers in training mode "
                               f"(p={a['dropout']}) draws random numbers; EGG's kernels are "
                               "deterministic (call model.eval())")
        if len(x.shape) != 3:
            raise refuse(node, f"a recurrent layer over a {len(x.shape)}-D input")
        if batch_first:  # Time-major: a view, laid out by the projection.
            x = Value(x.name, x.phys_shape, (x.shape[1], x.shape[0], x.shape[2]), x.dtype,
                      [None if l is None else (1 - l if l < 2 else l) for l in x.phys])
        steps, batch = x.shape[0], x.shape[1]
        hidden = params[1].shape[1]
        finals = [[] for _ in states]
        width = (steps, batch, directions * hidden)
        layer_input = x
        for layer in range(layers):
            if layer:
                layer_input = self.concatenate(node, sequences, 2, width)
            sequences = []
            # [T * B, I], laid out once for both directions.
            rows = self.merge_dims(self.materialize(layer_input), 0)
            for d in range(directions):
                at = (layer * directions + d) * per
                w_ih, w_hh = params[at], params[at + 1]
                b_ih, b_hh = (params[at + 2], params[at + 3]) if has_biases else (None, None)
                xg = self.projection(node, rows, steps, w_ih, b_ih)
                weight = self.prepared_parameter(a["params"][at + 1], "t",
                                                 (hidden, gates * hidden),
                                                 lambda w: w.t().contiguous())
                if weight is None:  # Not a parameter: a transposed copy.
                    weight = self.relayout(Value(w_hh.name, w_hh.phys_shape,
                                                 (w_hh.shape[1], w_hh.shape[0]), w_hh.dtype,
                                                 [None if l is None else 1 - l
                                                  for l in w_hh.phys]), [0, 1])
                bias = (self.materialize(b_hh) if b_hh is not None else
                        self.plain(self.e.filled((gates * hidden,), "f32", 0.0),
                                   (gates * hidden,), "f32"))
                inits = [self.initial_state(node, s, layer * directions + d, batch, hidden)
                         for s in states]
                seq, ends = self.recurrence(kind, xg, weight, bias, inits, reverse=d == 1)
                sequences.append(seq)
                for i, end in enumerate(ends):
                    finals[i].append(end)

        def output():
            out = self.concatenate(node, sequences, 2, width)
            if batch_first:
                out = Value(out.name, out.phys_shape, (batch, steps, out.shape[2]), out.dtype,
                            [1, 0, 2])
            return out

        def stacked(ends):  # [L * D, B, H]
            return self.concatenate(node, [self.view_reshape(f, (1, batch, hidden)) for f in ends],
                                    0, (len(ends), batch, hidden))
        return Pieces([output] + [lambda ends=ends: stacked(ends) for ends in finals])

    def projection(self, node, rows, steps, w, b):
        """The input side of every gate of every step: the layer's input
        (`rows`, plain [T * B, I]) @ w^T (+ b) as a linear layer's GEMM,
        [T, B, N] plain."""
        n = w.shape[0]
        wt = Value(w.name, w.phys_shape, (w.shape[1], n), w.dtype,
                   [None if l is None else 1 - l for l in w.phys])
        y = self.matmul(node, rows, wt, (rows.shape[0], n))
        if b is not None:
            def add(names, dt):
                r = self.e.fresh("t")
                return [f"{r} = arith.addf {names[0]}, {names[1]} : {dt}"], r
            y = self.elementwise(node, [y, b], add, out_dtype="f32", out_shape=y.shape)
        return self.split_dim(y, 0, steps)

    def initial_state(self, node, state, index, batch, hidden):
        """hx[index] ([B, H]) as a plain tensor: hx of one layer and
        direction reshaped (no copy where it is laid out in order), else a
        copy of the slice."""
        if state.shape[0] == 1:
            return self.unit_view(state, (batch, hidden)) or \
                self.materialize(self.reshape(node, state, (batch, hidden)))
        return self.materialize(self.select(state, 0, index))

    def recurrence(self, kind, xg, weight, bias, inits, reverse):
        """egg.recurrence over the plain [T, B, G*H] input projection xg with
        the cell of `kind`; returns the sequence [T, B, H] and the final
        states [B, H]."""
        steps, batch, _ = xg.shape
        hidden, gates = weight.shape[0], weight.shape[1] // weight.shape[0]
        shapes = [(steps, batch, hidden)] + [(batch, hidden)] * len(inits)
        types = [tensor_type(s, "f32") for s in shapes]
        outs = [self.e.empty(s, "f32") for s in shapes]
        ins = [xg, weight, bias] + inits
        name = self.e.fresh("rc")
        self.e.emit(f"{name}:{len(shapes)} = egg.recurrence ins("
                    f"{', '.join(v.name for v in ins)} : "
                    f"{', '.join(tensor_type(v.shape, 'f32') for v in ins)}) "
                    f"outs({', '.join(outs)} : {', '.join(types)})"
                    + (f" {RECURRENCE_REVERSE}" if reverse else "") + " {")
        xs = [self.e.fresh("rx") for _ in range(gates)]
        hs = [self.e.fresh("rh") for _ in range(gates)]
        olds = [self.e.fresh("rs") for _ in inits]
        self.e.emit("^bb0(" + ", ".join(f"{v}: f32" for v in xs + hs + olds) + "):")
        lines, new = self.cell(kind, xs, hs, olds)
        for line in lines:
            self.e.emit("  " + line)
        self.e.emit(f"  egg.yield {', '.join(new)} : {', '.join(['f32'] * len(new))}")
        self.e.emit(f"}} -> {', '.join(types)}")
        results = [self.plain(f"{name}#{i}", s, "f32") for i, s in enumerate(shapes)]
        return results[0], results[1:]

    def cell(self, kind, xs, hs, olds):
        """(lines, new states) of one unit's step: PyTorch's LSTM (gates i,
        f, g, o), GRU (r, z, n) or RNN cell, on scalars."""
        lines, dt = [], "f32"

        def op(o, *operands):
            r = self.e.fresh("t")
            lines.append(f"{r} = {o} {', '.join(operands)} : {dt}")
            return r

        def const(value):
            k = self.e.fresh("k")
            lines.append(f"{k} = arith.constant {float_literal(value, dt)} : {dt}")
            return k

        def sigmoid(v):  # 1 / (1 + exp(-v)), as aten.sigmoid is imported.
            one = const(1.0)
            return op("arith.divf", one,
                      op("arith.addf", one, op("math.exp", op("arith.negf", v))))

        gate = [op("arith.addf", x, h) for x, h in zip(xs, hs)] if kind != "gru" else None
        if kind == "lstm":
            i, f, o = sigmoid(gate[0]), sigmoid(gate[1]), sigmoid(gate[3])
            g = op("math.tanh", gate[2])
            c = op("arith.addf", op("arith.mulf", f, olds[1]), op("arith.mulf", i, g))
            return lines, [op("arith.mulf", o, op("math.tanh", c)), c]
        if kind == "gru":
            r = sigmoid(op("arith.addf", xs[0], hs[0]))
            z = sigmoid(op("arith.addf", xs[1], hs[1]))
            n = op("math.tanh", op("arith.addf", xs[2], op("arith.mulf", r, hs[2])))
            keep = op("arith.subf", const(1.0), z)
            return lines, [op("arith.addf", op("arith.mulf", keep, n),
                              op("arith.mulf", z, olds[0]))]
        if kind == "rnn_tanh":
            return lines, [op("math.tanh", gate[0])]
        return lines, [op("arith.maximumf", gate[0], const(0.0))]

    # -- driver ---------------------------------------------------------------

    def translate(self, node):
        """The Value (or tuple of them) of one call_function node."""
        if node.op != "call_function":
            raise UnsupportedOp(f"graph node {node.format_node()}")
        if node.target is operator.getitem:
            return self.values[node.args[0].name][node.args[1]]
        return self.op_call(node)

    def run(self, graph, placeholders, user_outputs=None, needed=None):
        """The function's text and result count. `user_outputs` (names) are
        its results, of the graph's outputs; only `needed` nodes are
        translated (default: all)."""
        for node in placeholders:
            if isinstance(node.meta.get("val"), (bool, int, float)):
                # A number argument: torch.export traced the model with its
                # value, so it is a constant of this function.
                self.values[node.name] = node.meta["val"]
                self.constants[node.name] = node.meta["val"]
                continue
            if str(getattr(node.meta.get("val"), "dtype", "")) == "torch.bool":
                # A boolean tensor comes in as float32 zeros and ones (the
                # compiled module converts it): a Predicate, true where not 0.
                shape = self.shape_of(node)
                self.values[node.name] = self.boolean_argument(
                    self.plain(f"%{sanitize(node.name)}", shape, "f32"))
                self.boolean_inputs.add(node.name)
                continue
            dtype, shape = self.dtype_of(node), self.shape_of(node)
            self.values[node.name] = self.plain(f"%{sanitize(node.name)}", shape, dtype)
            self.arguments.add(f"%{sanitize(node.name)}")
            if str(node.meta["val"].dtype) in INTEGER_DTYPES:
                self.integer_inputs.add(node.name)
        results = None
        forms, folded_away = scan_forms(graph)
        for node in graph.nodes:
            if node.op == "placeholder" or (needed is not None and node.op != "output"
                                            and node.name not in needed):
                continue
            if node.name in folded_away:
                continue
            if node.name in forms:
                source, dim, kind, reverse, exclusive = forms[node.name]
                self.values[node.name] = self.scan(node, self.arg(source), dim, kind,
                                                   reverse=reverse, exclusive=exclusive)
                continue
            if node.name in self.folded:
                # Integers and booleans come in as float32 (booleans as a
                # Predicate: true where not 0).
                value = self.folded[node.name]
                boolean = str(value.dtype) == "torch.bool"
                arg = self.plain(f"%{sanitize(node.name)}_folded", self.shape_of(node),
                                 "f32" if boolean else self.dtype_of(node))
                if boolean or str(value.dtype) in INTEGER_DTYPES:
                    value = value.float()
                self.prepared.append((None, arg, lambda _, v=value: v))
                self.values[node.name] = self.boolean_argument(arg) if boolean else arg
                continue
            if node.op == "output":
                outs = node.args[0]
                if user_outputs is not None:
                    outs = [a for a in outs if getattr(a, "name", None) in user_outputs]
                if any(isinstance(self.arg(a), Predicate) for a in outs):
                    raise UnsupportedOp("a boolean result (EGG returns float32, float16, bfloat16)")
                graph_outputs = outs
                results = [self.result(self.arg(a)) for a in graph_outputs]
                continue
            self.values[node.name] = self.translate(node)
        self.result_shapes = [tuple(self.arg(a).shape) for a in graph_outputs]
        self.integer_results = {i for i, a in enumerate(graph_outputs)
                                if str(getattr(a.meta.get("val"), "dtype", "")) == "torch.int64"}
        rets = ", ".join(r.name for r in results)
        types = ", ".join(tensor_type(r.shape, r.dtype) for r in results)
        # Arguments: the parameters (those only prepared ones read are
        # dropped), the prepared parameters, then the user inputs.
        body = "\n".join(self.e.lines + [rets])
        used = lambda v: re.search(re.escape(v.name) + r"\b", body) is not None  # noqa: E731
        self.arguments = [n.name for n in placeholders if n.name not in self.constants and
                          (n.name not in self.parameters or used(self.values[n.name]))]
        params = [a for a in self.arguments if a in self.parameters]
        self.arguments = params + [p[1].name for p in self.prepared] + \
            [a for a in self.arguments if a not in self.parameters]
        values = {**{n: self.values[n] for n in self.values if n in
                     {p.name for p in placeholders}}, **{p[1].name: p[1] for p in self.prepared}}
        values.update({n: values[n].operands[0] for n in self.boolean_inputs})
        sig = [f"{values[a].name}: {tensor_type(values[a].shape, values[a].dtype)}"
               for a in self.arguments]
        text = [f"func.func @{self.name}({', '.join(sig)}) -> ({types}) {{"]
        text += self.e.lines
        text.append(f"  return {rets} : {types}")
        text.append("}")
        return "\n".join(text) + "\n", len(results)


def check_node(node):
    """Whether the importer takes one node of a core-ATen graph (torch.export
    + run_decompositions, "val" metadata on every node), found by translating
    it alone with its inputs as plain tensors, so that the importer stays the
    one list of what EGG takes. Returns (reason, computes): why the node is
    refused (None when taken) and whether its translation does work (a linalg
    op) rather than only carry a view, a reshape or a tuple element."""
    # A tuple element is taken where its producer is and the element exists.
    element = node.op == "call_function" and node.target is operator.getitem
    producer = node.args[0] if element else node
    importer = Importer("check")
    try:
        for i, a in enumerate(producer.all_input_nodes):
            dtype = importer.dtype_of(a)  # First: it refuses non-tensors.
            importer.values[a.name] = importer.plain(f"%in{i}", importer.shape_of(a), dtype)
        value = importer.translate(producer)
        if element and (not isinstance(value, (tuple, Pieces)) or value[node.args[1]] is None):
            raise refuse(node, "an element EGG does not compute")
    except UnsupportedOp as e:
        return str(e), False
    return None, not element and any("= linalg." in line for line in importer.e.lines)


# Recurrent layers (their .input overloads) are imported whole
# (Importer.recurrent): core-ATen decomposition would unroll them into
# thousands of nodes (minutes for a 6-layer LSTM over 512 steps). Their
# packed-sequence overloads (.data) are refused before it, for the same reason.
UNROLLED_BEFORE_IMPORT = ("lstm", "gru", "rnn_tanh", "rnn_relu")


def scan_forms(graph):
    """Scans written around cumsum/cumprod that one egg.scan computes in a
    single pass: flip(cumsum(flip(x, [d]), d), [d]) (reverse) and
    cat([identity of extent 1 along d, cumsum(x[..., :n-1], d)], d)
    (exclusive). Returns ({outer node: (x, d, kind, reverse, exclusive)},
    names of the nodes only they read, which need no translation)."""
    import torch
    aten = torch.ops.aten
    scans = {aten.cumsum.default: "sum", aten.cumprod.default: "prod"}

    def rank(n):
        return len(getattr(n.meta.get("val"), "shape", ()))

    def only_user(n, user):
        return isinstance(n, torch.fx.Node) and n.op == "call_function" and \
            list(n.users) == [user]

    def scan_of(n, user):
        """(input, dim, kind) of a cumsum/cumprod node read only by user."""
        if not only_user(n, user) or n.target not in scans or n.kwargs.get("dtype"):
            return None
        return n.args[0], n.args[1] % rank(n), scans[n.target]

    def is_identity_fill(n, kind, user):
        value = n.args[1] if len(n.args) > 1 else None
        return only_user(n, user) and n.target in (aten.full_like.default, aten.full.default) \
            and value == SCAN_OPS[kind][1]

    forms, inner = {}, {}
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        if node.target == aten.flip.default and len(node.args[1]) == 1:
            found = scan_of(node.args[0], node)
            if found:
                flip, dim, kind = found
                if only_user(flip, node.args[0]) and flip.target == aten.flip.default and \
                        [d % rank(flip) for d in flip.args[1]] == [dim] and \
                        node.args[1][0] % rank(node) == dim:
                    forms[node.name] = (flip.args[0], dim, kind, True, False)
                    inner[node.name] = [node.args[0], flip]
        elif node.target == aten.cat.default and len(node.args[0]) == 2:
            dim = (node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)) % rank(node)
            fill, part = node.args[0]
            found = scan_of(part, node)
            if not found or found[1] != dim:
                continue
            sliced, _, kind = found
            if not (only_user(sliced, part) and sliced.target == aten.slice.Tensor):
                continue
            x = sliced.args[0]
            args = list(sliced.args) + [None] * (5 - len(sliced.args))
            n = x.meta["val"].shape[dim]
            end = args[3] + n if isinstance(args[3], int) and args[3] < 0 else args[3]
            if args[1] % rank(x) == dim and args[2] in (0, None) and end == n - 1 and \
                    args[4] in (1, None) and is_identity_fill(fill, kind, node) and \
                    fill.meta["val"].shape[dim] == 1:
                forms[node.name] = (x, dim, kind, False, True)
                inner[node.name] = [part, sliced, fill]
    # The inner nodes, and what only they read (the fill's view of x),
    # never the scanned input itself.
    away = set()
    for outer, nodes in inner.items():
        keep = forms[outer][0].name
        work = list(nodes)
        while work:
            n = work.pop()
            if not isinstance(n, torch.fx.Node) or n.op != "call_function" or \
                    n.name == keep or n.name in away:
                continue
            if all(u.name in away or u.name == outer for u in n.users):
                away.add(n.name)
                work.extend(n.all_input_nodes)
    return forms, away


def refuse_before_decomposing(graph):
    for node in graph.nodes:
        name = getattr(node.target, "__name__", str(node.target))
        op, _, overload = name.partition(".")
        if node.op == "call_function" and op in UNROLLED_BEFORE_IMPORT and overload != "input":
            raise refuse(node, "recurrent layers over packed sequences are not imported")


# Ops the importer takes whole, kept out of core-ATen decomposition: triu,
# tril and roll decompose into int64 arange indices the kernels do not hold;
# recurrent layers would be unrolled step by step.
KEPT_WHOLE = ("triu", "tril", "roll")


def recurrent_output_shapes(input, hx, params, has_biases, num_layers, dropout, train,
                            bidirectional, batch_first):
    """The results of aten.lstm / gru / rnn_* .input, shaped and laid out as
    PyTorch's own decompositions make them, uncomputed."""
    states = list(hx) if isinstance(hx, (list, tuple)) else [hx]
    width = (2 if bidirectional else 1) * states[0].shape[-1]
    if batch_first:  # Time-major, seen batch first.
        out = input.new_empty((input.shape[1], input.shape[0], width)).transpose(0, 1)
    else:
        out = input.new_empty(tuple(input.shape[:-1]) + (width,))
    return (out, *[s.new_empty(s.shape) for s in states])


@contextlib.contextmanager
def recurrent_layers_uncomputed():
    """While tracing (torch.export, run_decompositions), the recurrent
    layers' outputs get their shapes without their steps: PyTorch otherwise
    runs its Python decomposition of each, step by step on fake tensors, only
    to learn the shapes of ops the graph keeps whole (tens of seconds for a
    6-layer LSTM over 512 steps). Their Python kernels (Autograd,
    CompositeImplicitAutograd, Meta) and their entries in torch._decomp's
    table, which tracing alone uses, are swapped for recurrent_output_shapes,
    and restored after."""
    import torch
    from torch._decomp import decomposition_table
    keys = (torch._C.DispatchKey.Autograd, torch._C.DispatchKey.CompositeImplicitAutograd,
            torch._C.DispatchKey.Meta)
    saved = []

    def restore():
        for op, kernels, decomposition in saved:
            for k in keys:
                op.py_kernels.pop(k, None)
            op.py_kernels.update(kernels)
            op._dispatch_cache.clear()
            decomposition_table.pop(op, None)
            if decomposition is not None:
                decomposition_table[op] = decomposition

    # These are PyTorch internals: where a version lacks them, tracing runs
    # PyTorch's own decomposition (slower, same graph).
    try:
        for name in UNROLLED_BEFORE_IMPORT:
            op = getattr(torch.ops.aten, name).input
            saved.append((op, {k: op.py_kernels[k] for k in keys if k in op.py_kernels},
                          decomposition_table.get(op)))
            for k in keys:
                op.py_kernels[k] = recurrent_output_shapes
            op._dispatch_cache.clear()
            decomposition_table[op] = recurrent_output_shapes
    except (AttributeError, KeyError, TypeError):
        restore()
        saved.clear()
    try:
        yield
    finally:
        restore()


def decompose(ep):
    """`ep` decomposed to core ATen, the ops of KEPT_WHOLE and the recurrent
    layers (UNROLLED_BEFORE_IMPORT's .input overloads) left as they are."""
    import torch
    table = torch.export.default_decompositions()
    for name in KEPT_WHOLE:
        table.pop(getattr(torch.ops.aten, name).default, None)
    for name in UNROLLED_BEFORE_IMPORT:
        table.pop(getattr(torch.ops.aten, name).input, None)
    with recurrent_layers_uncomputed():
        return ep.run_decompositions(table)


# Ops that read only their first argument's shape (full_like(x, 0)).
SHAPE_ONLY = ("full_like", "empty_like", "zeros_like", "ones_like")


def needed_nodes(graph, outputs, folded=()):
    """Names of the nodes that the named output nodes depend on (not the
    nodes whose shape alone is read, nor what `folded` nodes read)."""
    by_name = {n.name: n for n in graph.nodes}
    todo, seen = [by_name[o] for o in outputs if o in by_name], set()
    while todo:
        node = todo.pop()
        if node.name in seen:
            continue
        seen.add(node.name)
        if node.name in folded:
            continue
        name = getattr(node.target, "__name__", "").split(".")[0]
        todo.extend(a for a in node.all_input_nodes
                    if not (name in SHAPE_ONLY and node.args and a is node.args[0]))
    return seen


FLOAT_DTYPES = ("torch.float32", "torch.float16", "torch.bfloat16", "torch.float64")


def fold_integer_work(graph, lifted, state):
    """Values computed from integer or boolean buffers and constants alone
    (Swin's relative position index, Mamba's causal mask from a full boolean
    tensor and tril): EGG's kernels hold no booleans and compute on floats,
    so such a value is computed once, by PyTorch, when the module is
    compiled, as a prepared parameter is, and comes in as an argument.
    Random ops are never folded. Returns {node name: tensor} for each such
    value (of one element or more) that other work reads."""
    import torch
    from torch.fx.node import map_arg
    dtype = lambda n: str(getattr(n.meta.get("val"), "dtype", ""))  # noqa: E731
    # Integer work: integer or boolean buffers and constants, and what is
    # computed from them alone (a mask cast to float included). Float
    # parameters are left to the kernels, which compute them as the model does.
    tainted = set()
    for node in graph.nodes:
        if node.op == "placeholder":
            if node.name in lifted and dtype(node) not in FLOAT_DTYPES:
                tainted.add(node.name)
            continue
        if node.op != "call_function" or \
                torch.Tag.nondeterministic_seeded in getattr(node.target, "tags", ()):
            continue
        inputs = node.all_input_nodes
        if all(a.name in tainted for a in inputs) and \
                (inputs or dtype(node) not in FLOAT_DTYPES):
            tainted.add(node.name)
    foldable = FLOAT_DTYPES + INTEGER_DTYPES + ("torch.bool",)
    frontier = [n for n in graph.nodes if n.name in tainted and n.op == "call_function" and
                dtype(n) in foldable and len(getattr(n.meta.get("val"), "shape", ())) and
                any(u.name not in tainted for u in n.users)]
    if not frontier:
        return {}
    env = {}
    with torch.no_grad():
        for node in graph.nodes:
            if node.name not in tainted:
                continue
            if node.op == "placeholder":
                env[node.name] = state[lifted[node.name]]
                continue
            args = map_arg(node.args, lambda a: env[a.name])
            kwargs = map_arg(node.kwargs, lambda a: env[a.name])
            env[node.name] = node.target(*args, **kwargs)
    return {n.name: env[n.name].contiguous() for n in frontier}


def sanitize(name):
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def import_module(model, example_inputs, name="forward"):
    """Exports `model` on `example_inputs` and translates it; returns an
    ImportedModule. Raises UnsupportedOp naming the first op it cannot take.
    The model is exported in the mode it is in, as PyTorch would run it: a
    module in training mode (batch norm on batch statistics, dropout) is
    imported as such, or refused, never silently switched to eval."""
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    # Attention traced through PyTorch's math form (products and a softmax),
    # never a fused CUDA kernel's opaque op.
    with torch.no_grad(), sdpa_kernel(SDPBackend.MATH):
        with recurrent_layers_uncomputed(), warnings.catch_warnings():
            # nn.LSTM, GRU and RNN list their weights anew when called.
            warnings.filterwarnings("ignore", r"The tensor attributes .*_flat_weights\[")
            ep = torch.export.export(model, tuple(example_inputs))
        refuse_before_decomposing(ep.graph)
        ep = decompose(ep)
    # Argument tensors in placeholder order: lifted parameters, buffers and
    # constants first, then the user inputs. Lifted ones nothing reads (a
    # batch norm's int64 num_batches_tracked) are left out.
    sig = ep.graph_signature
    lifted = {}
    lifted.update({k: v for k, v in sig.inputs_to_parameters.items()})
    lifted.update({k: v for k, v in sig.inputs_to_buffers.items()})
    lifted.update({k: v for k, v in getattr(sig, "inputs_to_lifted_tensor_constants", {}).items()})
    # What the user sees: the user outputs and the nodes they need. Buffer
    # mutations (a training-mode batch norm's running statistics) are not
    # computed: EGG gives the forward result alone.
    user_outputs = [spec.arg.name for spec in sig.output_specs
                    if spec.kind.name == "USER_OUTPUT"]
    state = dict(ep.state_dict)
    state.update(getattr(ep, "constants", {}) or {})
    folded = fold_integer_work(ep.graph, lifted, state)
    needed = needed_nodes(ep.graph, user_outputs, folded)
    placeholders = [n for n in ep.graph.nodes if n.op == "placeholder"
                    and (n.name in needed or n.name not in lifted)]
    importer = Importer(name, parameters=[p.name for p in placeholders if p.name in lifted],
                        folded=folded)
    text, count = importer.run(ep.graph, placeholders, user_outputs, needed)
    # Argument values in the function's order: parameters, prepared
    # parameters, user inputs (as given).
    user_names = [p.name for p in placeholders if p.name not in lifted]
    user = dict(zip(user_names, example_inputs))
    constant_inputs = {i: importer.constants[n] for i, n in enumerate(user_names)
                       if n in importer.constants}
    prepared = {value.name: (source, transform) for source, value, transform in importer.prepared}
    arg_values, arg_names = [], []
    for a in importer.arguments:
        if a in prepared:
            source, transform = prepared[a]
            with torch.no_grad():
                arg_values.append(transform(state[lifted[source]] if source else None))
            arg_names.append(f"{lifted[source]}:{a.split('_')[-1]}" if source else
                             f"folded:{a.lstrip('%')}")
        elif a in lifted:
            arg_names.append(lifted[a])
            arg_values.append(state[lifted[a]])
        else:
            arg_names.append(a)
            arg_values.append(user[a])
    lifted_count = sum(1 for a in importer.arguments if a in lifted or a in prepared)
    boolean_inputs = {i for i, n in enumerate(user_names) if n in importer.boolean_inputs}
    integer_inputs = {i for i, n in enumerate(user_names) if n in importer.integer_inputs}
    for i, (a, value) in enumerate(zip(importer.arguments, arg_values)):
        if str(getattr(value, "dtype", "")) not in INTEGER_DTYPES:
            continue
        if value.numel() and not value.is_meta and value.abs().max() >= INTEGER_LIMIT:
            raise UnsupportedOp(f"input {arg_names[i]}: integers of {INTEGER_LIMIT} or more "
                                "(EGG holds integers in float32)")
        if a in lifted:  # A buffer: passed as float32 from the start.
            arg_values[i] = value.float()
    return ImportedModule(text, name, arg_names, arg_values, count, lifted_count,
                          importer.result_shapes, constant_inputs, boolean_inputs,
                          importer.integer_results, integer_inputs)


def to_mlir(model, example_inputs, name="forward"):
    """The MLIR text alone."""
    return import_module(model, example_inputs, name).mlir
