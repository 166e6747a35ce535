"""egg.compile: a PyTorch module compiled by EGG, run on CUDA tensors.

The manifest (docs/manifest.md) says everything needed: PTX modules loaded
with the CUDA driver (ctypes, in PyTorch's context), buffers bound to the
function's arguments or allocated as temporaries, and steps launched in
order on PyTorch's current stream with bare-pointer arguments. Weights are
moved to the GPU once, at compile time."""
import ctypes
import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .frontend import import_module
from .tools import allowing_tf32, compile_mlir, tune_kernels

_TORCH_DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64"}


class _Driver:
    """The few CUDA driver entry points the runtime needs."""

    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.lib.cuModuleLoadData.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p]
        self.lib.cuCtxGetCurrent.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        self.lib.cuCtxSetCurrent.argtypes = [ctypes.c_void_p]
        self.lib.cuModuleGetFunction.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
                                                 ctypes.c_char_p]
        self.lib.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
        self.lib.cuFuncSetAttribute.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        self.lib.cuTensorMapEncodeTiled.argtypes = [
            ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
            ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
            ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
        self.lib.cuMemcpyHtoDAsync_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t,
                                                 ctypes.c_void_p]

    def check(self, result, what):
        if result != 0:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(result, ctypes.byref(name))
            raise RuntimeError(f"{what}: {name.value.decode() if name.value else result}")


# cuda.h: CUtensorMapDataType, CU_TENSOR_MAP_SWIZZLE_128B, _L2_PROMOTION_L2_256B.
_TENSOR_MAP_TYPES = {"f16": 6, "f32": 7, "bf16": 9}
_SWIZZLE_128B = 3
_L2_PROMOTION_256B = 3


class CompiledModule:
    """Calls the compiled function: inputs in, outputs out (CUDA tensors)."""

    def __init__(self, imported, manifest_path, device="cuda"):
        import torch
        self.torch = torch
        self.manifest = json.loads(Path(manifest_path).read_text())
        self.function = next(f for f in self.manifest["functions"] if f["name"] == imported.function)
        torch.cuda.init()
        torch.empty(1, device=device)  # PyTorch's context becomes current.
        self.cu = _Driver()
        self.kernels = self._load_modules(self.manifest["modules"])
        self.functions = {}
        # Launches of one kernel (identical kernels share one) may ask for
        # different dynamic shared memory: its limit is the largest.
        shared = {}
        for step in self.function["steps"]:
            if step["kind"] == "launch":
                key = (step["module"], step["kernel"])
                shared[key] = max(shared.get(key, 0), step.get("shared_bytes", 0))
                if key not in self.functions:
                    f = ctypes.c_void_p()
                    self.cu.check(self.cu.lib.cuModuleGetFunction(
                        ctypes.byref(f), self.kernels[step["module"]], step["kernel"].encode()),
                        f"kernel {step['kernel']}")
                    self.functions[key] = f
        for key, limit in shared.items():
            if limit > 48 * 1024:
                # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
                self.cu.check(self.cu.lib.cuFuncSetAttribute(self.functions[key], 8, limit),
                              "shared memory size")
        self.launches = [self._prepare(step) for step in self.function["steps"]]
        self.result_shapes = getattr(imported, "result_shapes", None)
        self.constant_inputs = getattr(imported, "constant_inputs", None) or {}
        self.boolean_inputs = getattr(imported, "boolean_inputs", None) or set()
        self.integer_inputs = getattr(imported, "integer_inputs", None) or set()
        self.integer_results = getattr(imported, "integer_results", None) or set()
        # Lifted parameters and buffers: on the GPU once.
        self.bound = [x.detach().to(device).contiguous()
                      for x in imported.arg_values[:imported.num_lifted]]
        self.buffers = self.function["buffers"]
        self.inputs = sorted((b for b in self.buffers if b["role"] == "input"), key=lambda b: b["arg"])
        self.outputs = sorted((b for b in self.buffers if b["role"] == "output"), key=lambda b: b["arg"])

    def _load_modules(self, modules):
        """Each PTX module loaded (the driver compiles it to the GPU's code):
        on several threads, since a model's modules take the driver seconds
        one after another; ctypes lets go of the GIL during each call."""
        context = ctypes.c_void_p()
        self.cu.check(self.cu.lib.cuCtxGetCurrent(ctypes.byref(context)), "current context")

        def load(m):
            # A thread of the pool has no current context of its own.
            self.cu.check(self.cu.lib.cuCtxSetCurrent(context), "setting the context")
            module = ctypes.c_void_p()
            self.cu.check(self.cu.lib.cuModuleLoadData(ctypes.byref(module), m["ptx"].encode() + b"\0"),
                          f"loading {m['name']}")
            return m["name"], module

        workers = max(1, min(len(modules), os.cpu_count() or 1, 8))
        if workers == 1:
            return dict(load(m) for m in modules)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return dict(pool.map(load, modules))

    def _tensor_map(self, m, tensors, stream, keep):
        """A TMA tensor map of buffer m["buffer"] (viewed as m["shape"]) at
        its address in this call, copied on the stream into device memory
        allocated for this call (`keep` holds it until the launches are
        queued; PyTorch's allocator then reuses it only after this stream's
        work, so no kernel reads a map that a later call overwrote).
        Returns the device address."""
        b = self.buffers[m["buffer"]]
        if b["element_type"] not in _TENSOR_MAP_TYPES or len(m.get("shape", [])) != 2:
            raise RuntimeError(f"tensor map of buffer {b['id']}: only 2-D f32/f16/bf16 views")
        size = {"f32": 4, "f16": 2, "bf16": 2}[b["element_type"]]
        rows, cols = m["shape"]
        if rows * cols * size != b["bytes"]:
            raise RuntimeError(f"tensor map of buffer {b['id']}: shape {m['shape']} does not cover it")
        raw = ctypes.create_string_buffer(128 + 64)  # CUtensorMap: 128 bytes, 64-byte aligned.
        aligned = (ctypes.addressof(raw) + 63) // 64 * 64
        dims = (ctypes.c_uint64 * 2)(cols, rows)
        strides = (ctypes.c_uint64 * 1)(cols * size)
        box = (ctypes.c_uint32 * 2)(m["box"][1], m["box"][0])
        unit = (ctypes.c_uint32 * 2)(1, 1)
        promo = _L2_PROMOTION_256B if m.get("l2_promotion") == "256B" else 0
        self.cu.check(self.cu.lib.cuTensorMapEncodeTiled(
            aligned, _TENSOR_MAP_TYPES[b["element_type"]], 2,
            ctypes.c_void_p(tensors[b["id"]].data_ptr()), dims, strides, box, unit,
            0, _SWIZZLE_128B, promo, 0), f"tensor map of buffer {b['id']}")
        device = self.torch.empty(128, dtype=self.torch.uint8, device="cuda")
        keep.append(device)
        self.cu.check(self.cu.lib.cuMemcpyHtoDAsync_v2(device.data_ptr(), aligned, 128, stream),
                      "copying a tensor map")
        return device.data_ptr()

    def _tensor_inputs(self, user_inputs):
        """The user inputs less the numbers compiled in as constants, which
        must have the values the module was compiled with; boolean tensors
        as float32 zeros and ones, integer tensors as float32."""
        for i, value in self.constant_inputs.items():
            if i >= len(user_inputs) or user_inputs[i] != value:
                got = user_inputs[i] if i < len(user_inputs) else "nothing"
                raise TypeError(f"input {i}: compiled for the number {value!r}, got {got!r} "
                                "(compile again for another value)")
        return [x.float() if i in self.boolean_inputs or i in self.integer_inputs else x
                for i, x in enumerate(user_inputs) if i not in self.constant_inputs]

    def _tensor(self, b):
        dtype = getattr(self.torch, _TORCH_DTYPES[b["element_type"]])
        return self.torch.empty(b["shape"], dtype=dtype, device="cuda")

    def _prepare(self, step):
        """A step's launch with its argument array built once: each call only
        writes the buffers' addresses into their slots, so the host adds little
        before the first kernel starts."""
        if step["kind"] == "copy":
            return step
        values, slots, maps = [], [], []
        for a in step["args"]:
            if "tensor_map" in a:
                v = ctypes.c_uint64(0)
                maps.append((v, a["tensor_map"]))
            elif "buffer" in a:
                v = ctypes.c_uint64(0)
                slots.append((v, a["buffer"]))
            elif a["scalar"] in ("i64", "index"):
                v = ctypes.c_int64(int(a["value"]))
            elif a["scalar"] == "i32":
                v = ctypes.c_int32(int(a["value"]))
            elif a["scalar"] == "f32":
                v = ctypes.c_float(float(a["value"]))
            else:
                raise RuntimeError(f"kernel argument of type {a['scalar']}")
            values.append(v)
        params = (ctypes.c_void_p * len(values))(*[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p)
                                                   for v in values])
        g, b = step["grid"], step["block"]
        return {"kind": "launch", "name": step.get("name", step["kernel"]), "values": values, "params": params,
                "slots": slots, "maps": maps, "shape": (*g, *b),
                "shared": step.get("shared_bytes", 0),
                "function": self.functions[(step["module"], step["kernel"])]}

    def __call__(self, *user_inputs):
        torch = self.torch
        user_inputs = self._tensor_inputs(user_inputs)
        args = self.bound + [x.to("cuda").contiguous() for x in user_inputs]
        if len(args) != len(self.inputs):
            raise TypeError(f"expected {len(self.inputs) - len(self.bound)} inputs, got {len(user_inputs)}")
        tensors = {}
        for b, x in zip(self.inputs, args):
            want = getattr(torch, _TORCH_DTYPES[b["element_type"]])
            if list(x.shape) != b["shape"] or x.dtype != want:
                raise TypeError(f"argument {b['arg']}: expected {b['shape']} {want}, "
                                f"got {list(x.shape)} {x.dtype}")
            tensors[b["id"]] = x
        for b in self.buffers:
            if b["role"] != "input":
                tensors[b["id"]] = self._tensor(b)
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        maps = []  # This call's tensor maps in device memory.
        launch = self.cu.lib.cuLaunchKernel
        for step in self.launches:
            if step["kind"] == "copy":
                tensors[step["dst"]].copy_(tensors[step["src"]])
                continue
            for value, buffer in step["slots"]:
                value.value = tensors[buffer].data_ptr()
            for value, spec in step["maps"]:
                value.value = self._tensor_map(spec, tensors, stream, maps)
            result = launch(step["function"], *step["shape"], step["shared"], stream,
                            step["params"], None)
            if result:
                self.cu.check(result, f"launching {step['name']}")
        outs = [tensors[b["id"]] for b in self.outputs]
        if self.result_shapes:  # A 0-d result comes back as PyTorch shapes it.
            outs = [o.reshape(s) for o, s in zip(outs, self.result_shapes)]
        outs = [o.to(torch.int64) if i in self.integer_results else o
                for i, o in enumerate(outs)]
        return outs[0] if len(outs) == 1 else tuple(outs)


def compile(model, example_inputs, agent="expert", chip="sm_90a", decisions=None, workdir=None,
            allow_tf32=None, tune=0, tune_db=None, tune_evaluator="auto"):
    """Imports `model`, compiles it with EGG and returns a callable that runs
    the kernels on CUDA tensors (same inputs as `model`, CUDA outputs).
    `allow_tf32`: f32 products (and channels-last f32 convolutions) may
    read their inputs as TF32 on tensor cores; by default as PyTorch's
    `torch.backends.cuda.matmul.allow_tf32` says (off unless the user
    turned it on). `tune=N`: egg-tune measures up to N candidates a kernel
    on the GPU at compile time and the best are compiled, like
    torch.compile's max-autotune; its records persist in `tune_db`
    (tools.default_tune_db()), so a kernel met again costs no GPU time.
    The tuning's figures are on the result's `tuning` attribute."""
    import torch
    if allow_tf32 is None:
        allow_tf32 = bool(torch.backends.cuda.matmul.allow_tf32)
    imported = import_module(model, example_inputs, name="forward")
    manifest, tuning = compile_imported(imported, workdir, agent=agent, chip=chip,
                                        decisions=decisions, allow_tf32=allow_tf32, tune=tune,
                                        tune_db=tune_db, tune_evaluator=tune_evaluator)
    compiled = CompiledModule(imported, manifest)
    compiled.tuning = tuning
    return compiled


def compile_imported(imported, workdir=None, agent="expert", chip="sm_90a", decisions=None,
                     allow_tf32=False, tune=0, tune_db=None, tune_evaluator="auto"):
    """The manifest of an imported module (no GPU needed): through egg-tune
    first when `tune` > 0, whose best decisions are then replayed. Returns
    (manifest path, tools.TuneResult or None)."""
    work = Path(workdir or tempfile.mkdtemp(prefix="egg-"))
    source = work / "forward.mlir"
    work.mkdir(parents=True, exist_ok=True)
    source.write_text(allowing_tf32(imported.mlir) if allow_tf32 else imported.mlir)
    tuning = None
    if tune:
        tuning = tune_kernels(source, work / "tune", tune, chip=chip, db=tune_db,
                              evaluator=tune_evaluator)
        agent, decisions = "replay", tuning.decisions
    manifest, _ = compile_mlir(source, work, chip=chip, agent=agent, decisions=decisions)
    return manifest, tuning
