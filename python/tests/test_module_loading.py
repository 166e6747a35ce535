"""CompiledModule loads a manifest's PTX modules on several threads: each
thread makes PyTorch's context current before it loads, every module comes
back under its name, and a module the driver refuses is named in the error.
A stand-in for the driver records the calls, so this runs without a GPU."""
import ctypes
import threading

import pytest

from egg.runtime import CompiledModule, _Driver


class StandInLib:
    CONTEXT = 0xC0

    def __init__(self, refuse=None):
        self.current = threading.local()
        self.loaded = []
        self.refuse = refuse
        self.lock = threading.Lock()

    def cuCtxGetCurrent(self, out):
        out._obj.value = self.CONTEXT
        return 0

    def cuCtxSetCurrent(self, context):
        self.current.value = context.value
        return 0

    def cuModuleLoadData(self, out, ptx):
        if getattr(self.current, "value", None) != self.CONTEXT:
            return 201  # CUDA_ERROR_INVALID_CONTEXT
        name = ptx.rstrip(b"\0").decode()
        if name == self.refuse:
            return 218  # CUDA_ERROR_INVALID_PTX
        with self.lock:
            self.loaded.append(name)
            out._obj.value = 0x1000 + len(self.loaded)
        return 0

    def cuGetErrorName(self, result, name):
        name._obj.value = f"CUDA_ERROR_{result}".encode()
        return 0


def loader(lib):
    module = CompiledModule.__new__(CompiledModule)
    module.cu = _Driver.__new__(_Driver)
    module.cu.lib = lib
    return module


def test_every_module_loads_under_its_name_with_the_context_current():
    lib = StandInLib()
    modules = [{"name": f"f_k{i}_kernel", "ptx": f"f_k{i}_kernel"} for i in range(40)]
    kernels = loader(lib)._load_modules(modules)
    assert sorted(kernels) == sorted(m["name"] for m in modules)
    assert sorted(lib.loaded) == sorted(m["name"] for m in modules)
    assert len({k.value for k in kernels.values()}) == len(modules)
    assert all(isinstance(k, ctypes.c_void_p) for k in kernels.values())


def test_a_refused_module_is_named():
    lib = StandInLib(refuse="f_k3_kernel")
    modules = [{"name": f"f_k{i}_kernel", "ptx": f"f_k{i}_kernel"} for i in range(8)]
    with pytest.raises(RuntimeError, match="loading f_k3_kernel: CUDA_ERROR_218"):
        loader(lib)._load_modules(modules)
