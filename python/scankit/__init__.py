"""scankit: GPU scans, sorts, compaction, top-k, segments, SpMV and sampling on PyTorch tensors
and CuPy arrays.

Every function reads its inputs in place (no copy), enqueues its work on the caller's current
stream (``torch.cuda.current_stream()`` for tensors, CuPy's current stream for CuPy arrays) or on
``stream=``, and returns arrays of the caller's kind, allocated by the caller's framework. Calls
return without waiting for the GPU, except ``select`` and ``unique``, whose output length is
read back from the GPU (as ``torch.masked_select`` does).

Arrays must be C-contiguous and on a CUDA device. A host array, an unsupported dtype or shape
raises TypeError or ValueError before anything runs; a bad argument that the library finds
raises :class:`ArgumentError` (a ValueError) and a CUDA failure :class:`CudaError` (a
RuntimeError), with the library's message. Nothing is written to the caller's arrays then.
"""

from __future__ import annotations

from . import _scankit
from ._arrays import address_of, describe, empty, same_kind, stream_of
from ._errors import ArgumentError, CudaError
from ._sampling import (AliasTable, SamplingTable, advance_sampling_offsets, sample_rows, sample_rows_top,
                        sample_tokens, sample_without_replacement)
from ._sparse import CsrMatrix, SpmvPlan, as_csr, coo_to_csr, read_matrix_market, spmv

__version__ = _scankit.__version__

__all__ = [
    "ArgumentError", "CudaError", "cuda_available", "inclusive_scan", "exclusive_scan", "reduce",
    "sort", "argsort", "sort_pairs", "select", "select_in_range", "partition", "unique", "top_k",
    "inclusive_segmented_scan", "exclusive_segmented_scan", "reduce_by_key", "segmented_sort",
    "SamplingTable", "AliasTable", "sample_rows", "sample_rows_top", "sample_without_replacement",
    "sample_tokens", "advance_sampling_offsets",
    "CsrMatrix", "as_csr", "coo_to_csr", "read_matrix_market", "SpmvPlan", "spmv",
]

_OPS = ("sum", "max", "min", "and", "or", "xor")
_INTEGER_RANGES = {
    "int8": (-(2**7), 2**7 - 1), "uint8": (0, 2**8 - 1), "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1), "int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1), "uint64": (0, 2**64 - 1),
}


def cuda_available() -> bool:
    """Whether a CUDA device is present."""
    return _scankit.cuda_device_available()


def _one_dimensional(d, name):
    if len(d.shape) != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {d.shape}")


def _same_shape(first, second, first_name, second_name, function):
    """Two 1-D arrays of one length (keys and values, items and mask): their descriptions."""
    a, b = describe(first, first_name), describe(second, second_name)
    _one_dimensional(a, function)
    if b.shape != a.shape:
        raise ValueError(f"{second_name}: shape {b.shape}, {first_name} has {a.shape}")
    return a, b


def _check_op(op):
    if op not in _OPS:
        raise ValueError(f"op: '{op}' is not one of {', '.join(_OPS)}")


def _identity(op, dtype):
    """The value that leaves `op` unchanged (the start of a reduction)."""
    if op in ("sum", "or", "xor"):
        return 0
    if op == "and":
        return -1 if dtype.startswith("int") else _INTEGER_RANGES.get(dtype, (0, 0))[1]
    low, high = _INTEGER_RANGES.get(dtype, (float("-inf"), float("inf")))
    return low if op == "max" else high


def _output(d, out, name, shape, dtype):
    if out is None:
        return empty(d, shape, dtype)
    same_kind(d, out, name, shape, dtype)
    return out


def inclusive_scan(x, op: str = "sum", *, out=None, stream=None):
    """Running `op` of a 1-D array: ``out[i] = x[0] op ... op x[i]``.

    op: "sum", "max", "min" or, for integers, "and", "or", "xor". dtypes: int8 to uint64,
    float32, float64. ``out`` may be ``x`` (in place). Returns ``out``.
    """
    return _scan(True, x, 0, op, out, stream, "scankit.inclusive_scan")


def exclusive_scan(x, init=0, op: str = "sum", *, out=None, stream=None):
    """``out[0] = init``, ``out[i] = init op x[0] op ... op x[i - 1]``; otherwise as inclusive_scan."""
    return _scan(False, x, init, op, out, stream, "scankit.exclusive_scan")


def _scan(inclusive, x, init, op, out, stream, name):
    d = describe(x, "x")
    _one_dimensional(d, name)
    _check_op(op)
    s = stream_of(d, stream)
    result = _output(d, out, "out", d.shape, d.dtype)
    _scankit.scan(inclusive, d.dtype, d.address, address_of(result), d.size, init, op, s)
    return result


def reduce(x, op: str = "sum", init=None, *, stream=None):
    """`op` over all items of `x` (any shape), as a 0-d array of the caller's kind.

    init: the value the reduction starts from (default: op's identity: 0, the dtype's lowest or
    highest value, or all bits set).
    """
    d = describe(x, "x")
    _check_op(op)
    if init is None:
        init = _identity(op, d.dtype)
    s = stream_of(d, stream)
    result = empty(d, (), d.dtype)
    _scankit.reduce(d.dtype, d.address, address_of(result), d.size, init, op, s)
    return result


def sort(x, descending: bool = False, *, out=None, stream=None):
    """A stable radix sort of a 1-D array. Floats sort by value with -0.0 equal to +0.0 (the two
    keep their input order) and every NaN, whatever its sign and payload, after +inf (first when
    descending). dtypes: int8 to uint64, float16, bfloat16, float32, float64. Returns the sorted
    array (``out`` if given; it may not be ``x``)."""
    d = describe(x, "x")
    _one_dimensional(d, "scankit.sort")
    s = stream_of(d, stream)
    result = _output(d, out, "out", d.shape, d.dtype)
    _scankit.sort_keys(d.dtype, d.address, address_of(result), d.size, bool(descending), s)
    return result


def argsort(x, descending: bool = False, *, index_dtype: str = "int64", stream=None):
    """The stable sorting permutation of a 1-D array (int64 indices, or int32)."""
    d = describe(x, "x")
    _one_dimensional(d, "scankit.argsort")
    s = stream_of(d, stream)
    sorted_keys = empty(d, d.shape, d.dtype)
    indices = empty(d, d.shape, index_dtype)
    _scankit.argsort(d.dtype, index_dtype, d.address, address_of(sorted_keys),
                     address_of(indices), d.size, bool(descending), s)
    return indices


def sort_pairs(keys, values, descending: bool = False, *, stream=None):
    """Sorts `values` by `keys` (stable; both 1-D, the same length). Returns (sorted keys,
    values in key order). Values: int32, uint32, float32, int64, uint64, float64."""
    k, v = _same_shape(keys, values, "keys", "values", "scankit.sort_pairs")
    s = stream_of(k, stream)
    keys_out = empty(k, k.shape, k.dtype)
    values_out = empty(k, v.shape, v.dtype)
    _scankit.sort_pairs(k.dtype, v.dtype, k.address, address_of(keys_out), v.address,
                        address_of(values_out), k.size, bool(descending), s)
    return keys_out, values_out


def select(x, mask, *, stream=None):
    """The items of a 1-D array where `mask` (bool or uint8, same length) is set, in order.
    Waits for the GPU to learn the count, as torch.masked_select does."""
    d, m = _same_shape(x, mask, "x", "mask", "scankit.select")
    s = stream_of(d, stream)
    result = empty(d, d.shape, d.dtype)
    count = _scankit.select_flagged(d.dtype, m.dtype, d.address, m.address, address_of(result),
                                    d.size, s)
    return result[:count]


def select_in_range(x, lo, hi, *, stream=None):
    """The items of a 1-D array with ``lo <= x <= hi``, in order (int32, uint32, int64, uint64,
    float32, float64). Waits for the GPU to learn the count."""
    return _by_range(False, x, lo, hi, stream, "scankit.select_in_range")[0]


def partition(x, lo, hi, *, stream=None):
    """Items with ``lo <= x <= hi`` first (in order), then the others (in reverse order), and the
    number of the first. uint32 or float32. Waits for the GPU to learn the count."""
    return _by_range(True, x, lo, hi, stream, "scankit.partition")


def _by_range(partition, x, lo, hi, stream, name):
    d = describe(x, "x")
    _one_dimensional(d, name)
    s = stream_of(d, stream)
    result = empty(d, d.shape, d.dtype)
    count = _scankit.select_range(partition, d.dtype, d.address, address_of(result), d.size, lo, hi, s)
    return (result, count) if partition else (result[:count], count)


def unique(x, *, stream=None):
    """A 1-D array without its consecutive duplicates (sort first for the distinct values), as
    torch.unique_consecutive. Waits for the GPU to learn the count."""
    d = describe(x, "x")
    _one_dimensional(d, "scankit.unique")
    s = stream_of(d, stream)
    result = empty(d, d.shape, d.dtype)
    count = _scankit.unique(d.dtype, d.address, address_of(result), d.size, s)
    return result[:count]


def top_k(x, k: int, largest: bool = True, *, index_dtype: str = "int64", stream=None):
    """The k largest (or smallest) items of each row of a 2-D array (a 1-D array is one row),
    in order, equal keys by index. Returns (values, indices), each rows x k (k for 1-D).
    dtypes: float16, bfloat16, float32, float64, int32, uint32, int64, uint64."""
    d = describe(x, "x")
    if len(d.shape) not in (1, 2):
        raise ValueError(f"scankit.top_k: expected a 1-D or 2-D array, got shape {d.shape}")
    rows, cols = (1, d.shape[0]) if len(d.shape) == 1 else d.shape
    if not 0 <= k <= cols:
        raise ValueError(f"k = {k} is outside [0, {cols}]")
    shape = (k,) if len(d.shape) == 1 else (rows, k)
    s = stream_of(d, stream)
    values = empty(d, shape, d.dtype)
    indices = empty(d, shape, index_dtype)
    _scankit.top_k(d.dtype, index_dtype, d.address, rows, cols, k, address_of(values),
                   address_of(indices), bool(largest), s)
    return values, indices


def _offsets(offsets, n, name):
    o = describe(offsets, "offsets")
    if len(o.shape) != 1 or o.shape[0] < 1:
        raise ValueError(f"{name}: offsets must be 1-D with num_segments + 1 items, got shape {o.shape}")
    if o.dtype not in ("int32", "int64"):
        raise TypeError(f"{name}: offsets of dtype {o.dtype}, expected int32 or int64")
    return o


def inclusive_segmented_scan(x, offsets, op: str = "sum", *, out=None, stream=None):
    """A running `op` that restarts at every segment: segment s is x[offsets[s]:offsets[s + 1]]
    (CSR offsets, int32 or int64; num_segments + 1 non-decreasing positions in [0, n], not
    checked on the GPU). dtypes: int32, int64, float32, float64."""
    return _segmented_scan(True, x, offsets, 0, op, out, stream, "scankit.inclusive_segmented_scan")


def exclusive_segmented_scan(x, offsets, init=0, op: str = "sum", *, out=None, stream=None):
    """As inclusive_segmented_scan, each segment starting from `init`."""
    return _segmented_scan(False, x, offsets, init, op, out, stream, "scankit.exclusive_segmented_scan")


def _segmented_scan(inclusive, x, offsets, init, op, out, stream, name):
    d = describe(x, "x")
    _one_dimensional(d, name)
    _check_op(op)
    o = _offsets(offsets, d.size, name)
    s = stream_of(d, stream)
    result = _output(d, out, "out", d.shape, d.dtype)
    _scankit.segmented_scan(inclusive, d.dtype, o.dtype, d.address, o.address, o.shape[0] - 1,
                            address_of(result), d.size, init, op, s)
    return result


def reduce_by_key(keys, values, op: str = "sum", *, stream=None):
    """`op` over each run of equal consecutive keys: (the run's key, its reduction) per run, in
    order. Keys: int32, uint32, int64, uint64; values: int32, int64, float32, float64. Waits for
    the GPU to learn the number of runs."""
    k, v = _same_shape(keys, values, "keys", "values", "scankit.reduce_by_key")
    _check_op(op)
    s = stream_of(k, stream)
    unique_keys = empty(k, k.shape, k.dtype)
    aggregates = empty(k, v.shape, v.dtype)
    runs = _scankit.reduce_by_key(k.dtype, v.dtype, k.address, v.address, address_of(unique_keys),
                                  address_of(aggregates), k.size, op, s)
    return unique_keys[:runs], aggregates[:runs]


def segmented_sort(x, offsets, descending: bool = False, *, stream=None):
    """A stable sort of each segment x[offsets[s]:offsets[s + 1]] (CSR offsets, int32 or int64).
    Keys: float16, bfloat16, float32, float64, int32, uint32, int64. Items outside every segment
    are not written (their values in the result are unspecified)."""
    d = describe(x, "x")
    _one_dimensional(d, "scankit.segmented_sort")
    o = _offsets(offsets, d.size, "scankit.segmented_sort")
    s = stream_of(d, stream)
    result = empty(d, d.shape, d.dtype)
    _scankit.segmented_sort(d.dtype, o.dtype, d.address, address_of(result), d.size, o.address,
                            o.shape[0] - 1, bool(descending), s)
    return result
