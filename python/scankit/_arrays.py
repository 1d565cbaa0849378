"""The caller's arrays: what scankit needs to know of them, and outputs of the same kind.

PyTorch tensors, CuPy arrays and any object with ``__cuda_array_interface__`` are read without a
copy. Outputs are created as the caller's type (torch in, torch out; CuPy in, CuPy out), on the
input's device, with its framework's allocator.
"""

from __future__ import annotations

import sys

# dtype names shared with the compiled module
_TORCH_NAMES = {
    "torch.int8": "int8", "torch.uint8": "uint8", "torch.int16": "int16", "torch.uint16": "uint16",
    "torch.int32": "int32", "torch.uint32": "uint32", "torch.int64": "int64", "torch.uint64": "uint64",
    "torch.float16": "float16", "torch.bfloat16": "bfloat16", "torch.float32": "float32",
    "torch.float64": "float64", "torch.bool": "bool",
}
_TYPESTR_NAMES = {
    "|i1": "int8", "|u1": "uint8", "<i2": "int16", "<u2": "uint16", "<i4": "int32", "<u4": "uint32",
    "<i8": "int64", "<u8": "uint64", "<f2": "float16", "<f4": "float32", "<f8": "float64", "|b1": "bool",
}
_ITEM_BYTES = {
    "int8": 1, "uint8": 1, "bool": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2,
    "int32": 4, "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8,
}


class DeviceArray:
    """A read-only description of a caller's device array (no copy is made)."""

    __slots__ = ("obj", "address", "shape", "dtype", "kind")

    def __init__(self, obj, address: int, shape: tuple, dtype: str, kind: str):
        self.obj = obj
        self.address = address
        self.shape = shape
        self.dtype = dtype
        self.kind = kind  # "torch", "cupy" or "cai"

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n


def _is_torch(x) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _contiguous_strides(shape, item_bytes):
    strides, step = [], item_bytes
    for s in reversed(shape):
        strides.append(step)
        step *= s
    return tuple(reversed(strides))


def describe(x, name: str) -> DeviceArray:
    """What the compiled functions need of `x`; TypeError or ValueError when it cannot serve."""
    if _is_torch(x):
        if not x.is_cuda:
            raise TypeError(f"{name}: a tensor on {x.device}; scankit works on CUDA tensors")
        dtype = _TORCH_NAMES.get(str(x.dtype))
        if dtype is None:
            raise TypeError(f"{name}: dtype {x.dtype} is not supported")
        if not x.is_contiguous():
            raise ValueError(f"{name}: the tensor is not contiguous (call .contiguous() first)")
        return DeviceArray(x, x.data_ptr(), tuple(x.shape), dtype, "torch")
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        typestr = cai["typestr"]
        dtype = _TYPESTR_NAMES.get(typestr)
        if dtype is None:
            raise TypeError(f"{name}: dtype {typestr} is not supported")
        shape = tuple(cai["shape"])
        strides = cai.get("strides")
        if strides is not None and tuple(strides) != _contiguous_strides(shape, _ITEM_BYTES[dtype]):
            if any(s > 1 for s in shape):
                raise ValueError(f"{name}: the array is not C-contiguous (make a contiguous copy first)")
        kind = "cupy" if type(x).__module__.startswith("cupy") else "cai"
        return DeviceArray(x, int(cai["data"][0]), shape, dtype, kind)
    if hasattr(x, "__array_interface__") or hasattr(x, "__array__"):
        raise TypeError(f"{name}: a host array ({type(x).__name__}); scankit works on GPU arrays "
                        "(torch CUDA tensors, CuPy arrays, __cuda_array_interface__)")
    raise TypeError(f"{name}: {type(x).__name__} is not a GPU array "
                    "(torch CUDA tensor, CuPy array or an object with __cuda_array_interface__)")


def address_of(x) -> int:
    """The device address of an array this package made (no checks: see describe)."""
    if _is_torch(x):
        return x.data_ptr()
    return int(x.__cuda_array_interface__["data"][0])


_TORCH_DTYPES = {}


def empty(like: DeviceArray, shape: tuple, dtype: str):
    """A new uninitialised array of the caller's kind, on `like`'s device."""
    if like.kind == "torch":
        import torch
        torch_dtype = _TORCH_DTYPES.get(dtype)
        if torch_dtype is None:
            torch_dtype = _TORCH_DTYPES[dtype] = getattr(torch, dtype)
        return torch.empty(shape, dtype=torch_dtype, device=like.obj.device)
    try:
        import cupy  # CuPy arrays and other __cuda_array_interface__ objects get CuPy outputs
    except ImportError:
        raise TypeError("outputs for arrays that are not torch tensors are CuPy arrays: install CuPy, "
                        "or pass torch tensors") from None
    if dtype == "bfloat16":
        raise TypeError("bfloat16 outputs need torch tensors (CuPy has no bfloat16)")
    with cupy.cuda.Device(_cai_device(like)):
        return cupy.empty(shape, dtype=dtype)


def _cai_device(like: DeviceArray) -> int:
    device = getattr(like.obj, "device", None)
    return getattr(device, "id", 0) if device is not None else 0


def stream_of(like: DeviceArray, stream) -> int:
    """The stream to enqueue on, as an integer: the one given, else the caller's framework's
    current stream on the array's device, else the legacy default stream (0). A stream seen for
    the first time gets its workspace from `like`'s framework allocator."""
    _check_device(like)
    s = _stream_handle(like, stream)
    if s not in _adopted:
        _adopt(s, like.kind)
    return s


def _check_device(like: DeviceArray):
    """scankit runs on the current device: an array on another one is refused, not copied."""
    if like.kind == "torch":
        import torch
        get = getattr(torch._C, "_cuda_getDevice", torch.cuda.current_device)
        index, current = like.obj.device.index, get()
    elif like.kind == "cupy":
        import cupy
        index, current = like.obj.device.id, cupy.cuda.runtime.getDevice()
    else:
        return
    if index != current:
        raise ValueError(f"the array is on device {index} but the current device is {current}: "
                         f"call scankit inside torch.cuda.device({index}) or cupy.cuda.Device({index})")


def _stream_handle(like: DeviceArray, stream) -> int:
    if stream is not None:
        if isinstance(stream, int):
            return stream
        for attribute in ("cuda_stream", "ptr", "handle"):  # torch, CuPy, cuda.core
            value = getattr(stream, attribute, None)
            if isinstance(value, int):
                return value
        if hasattr(stream, "__cuda_stream__"):
            return int(stream.__cuda_stream__()[1])
        raise TypeError(f"stream: {type(stream).__name__} is not a CUDA stream or an integer handle")
    if like.kind == "torch":
        import torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # what current_stream() reads, without a Stream object
        if raw is not None:
            return raw(like.obj.device.index)
        return torch.cuda.current_stream(like.obj.device).cuda_stream
    if like.kind == "cupy":
        import cupy
        return cupy.cuda.get_current_stream().ptr
    return 0


def same_kind(like: DeviceArray, out, name: str, shape: tuple, dtype: str) -> DeviceArray:
    """Checks a caller-given output against the shape and dtype the call writes."""
    d = describe(out, name)
    if d.shape != shape:
        raise ValueError(f"{name}: shape {d.shape}, expected {shape}")
    if d.dtype != dtype:
        raise TypeError(f"{name}: dtype {d.dtype}, expected {dtype}")
    return d


# ---- workspaces from the caller's framework ------------------------------------------------
# Each stream has one workspace, kept between calls (python/src/workspaces.cpp). The first array
# kind that uses a stream decides where that workspace's memory comes from: PyTorch's caching
# allocator for tensors, CuPy's memory pool for CuPy arrays, scankit's pool otherwise.

_adopted = set()
_registered = set()
_cupy_blocks = {}


def _torch_allocate(size, stream):
    import torch
    return torch.cuda.caching_allocator_alloc(size, torch.cuda.current_device(), stream)


def _torch_deallocate(address, size, stream):
    import torch
    torch.cuda.caching_allocator_delete(address)


def _cupy_allocate(size, stream):
    import cupy
    with cupy.cuda.ExternalStream(stream) if stream else cupy.cuda.Stream.null:
        block = cupy.cuda.alloc(size)
    _cupy_blocks[block.ptr] = block
    return block.ptr


def _cupy_deallocate(address, size, stream):
    _cupy_blocks.pop(address, None)  # back to CuPy's pool


_SLOTS = {"torch": (1, _torch_allocate, _torch_deallocate), "cupy": (2, _cupy_allocate, _cupy_deallocate)}


def allocator_slot(kind: str) -> int:
    """The allocator slot of a framework (registering its allocator on first use): 1 for torch, 2
    for CuPy, 0 (scankit's pool) for other arrays. Workspaces, plans, tables and built matrices
    take their device memory from it."""
    from . import _scankit
    slot = _SLOTS.get(kind)
    if slot is None:
        return 0
    if kind not in _registered:
        _scankit.set_framework_allocator(*slot)
        _registered.add(kind)
    return slot[0]


def _adopt(stream: int, kind: str):
    from . import _scankit
    _scankit.adopt_stream(stream, allocator_slot(kind))
    _adopted.add(stream)
