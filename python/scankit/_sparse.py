"""CSR matrices and SpMV from the Python side."""

from __future__ import annotations

import sys

from . import _scankit
from ._arrays import address_of, allocator_slot, describe, empty, stream_of

__all__ = ["CsrMatrix", "as_csr", "coo_to_csr", "read_matrix_market", "SpmvPlan", "spmv"]


class CsrMatrix:
    """A CSR matrix on the GPU: offsets (rows + 1), columns and values (nonzeros each, or None
    for a pattern matrix whose entries are all 1), arrays of the caller's kind, not copied.
    Indices int32 or int64; values float32 or float64."""

    def __init__(self, offsets, columns, values, shape):
        self.offsets, self.columns, self.values = offsets, columns, values
        self.shape = (int(shape[0]), int(shape[1]))
        o, c = describe(offsets, "offsets"), describe(columns, "columns")
        if o.shape != (self.shape[0] + 1,):
            raise ValueError(f"offsets: shape {o.shape}, expected ({self.shape[0] + 1},)")
        if len(c.shape) != 1 or c.dtype != o.dtype or o.dtype not in ("int32", "int64"):
            raise TypeError(f"columns ({c.dtype}, {c.shape}) and offsets ({o.dtype}) must be int32 or int64, 1-D, "
                            "of one dtype")
        self._offsets, self._columns = o, c
        self._values = None
        if values is not None:
            v = describe(values, "values")
            if v.shape != c.shape or v.dtype not in ("float32", "float64"):
                raise TypeError(f"values: {v.dtype} {v.shape}; expected float32 or float64 of shape {c.shape}")
            self._values = v

    @property
    def nonzeros(self) -> int:
        return self._columns.size

    @property
    def value_dtype(self) -> str:
        return self._values.dtype if self._values is not None else "float32"


def as_csr(a) -> CsrMatrix:
    """A CsrMatrix of `a`: a CsrMatrix, a cupyx.scipy.sparse CSR matrix or a torch sparse CSR
    tensor (both read in place), or a scipy.sparse matrix (copied to the GPU with torch or CuPy)."""
    if isinstance(a, CsrMatrix):
        return a
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(a, torch.Tensor) and a.layout == torch.sparse_csr:
        return CsrMatrix(a.crow_indices(), a.col_indices(), a.values(), a.shape)
    module = type(a).__module__
    if module.startswith("cupyx") and getattr(a, "format", None) == "csr":
        return CsrMatrix(a.indptr, a.indices, a.data, a.shape)
    if module.startswith("scipy") and hasattr(a, "tocsr"):
        m = a.tocsr()
        if torch is not None and torch.cuda.is_available():
            up = lambda arr: torch.from_numpy(arr).cuda()  # noqa: E731
        else:
            import cupy
            up = cupy.asarray
        return CsrMatrix(up(m.indptr), up(m.indices.astype(m.indptr.dtype)), up(m.data), m.shape)
    raise TypeError(f"{type(a).__name__} is not a CSR matrix (CsrMatrix, cupyx or scipy CSR, torch sparse_csr)")


def coo_to_csr(rows, cols, values, shape, *, stream=None) -> CsrMatrix:
    """A CSR matrix from COO triplets in any order (duplicates summed), as arrays of the caller's
    kind. Waits for the GPU once (the number of distinct entries)."""
    r, c, v = describe(rows, "rows"), describe(cols, "cols"), describe(values, "values")
    if not (len(r.shape) == 1 and r.shape == c.shape == v.shape):
        raise ValueError(f"rows {r.shape}, cols {c.shape} and values {v.shape} must be 1-D of one length")
    if r.dtype != c.dtype:
        raise TypeError(f"rows ({r.dtype}) and cols ({c.dtype}) must have one dtype")
    s = stream_of(r, stream)
    built = _scankit.coo_to_csr(r.dtype, v.dtype, r.address, c.address, v.address, r.size, int(shape[0]),
                                int(shape[1]), s, allocator_slot(r.kind))
    offsets = empty(r, (int(shape[0]) + 1,), r.dtype)
    columns = empty(r, (built.nonzeros,), r.dtype)
    data = empty(r, (built.nonzeros,), v.dtype)
    built.copy_to(address_of(offsets), address_of(columns),
                  address_of(data), s)
    return CsrMatrix(offsets, columns, data, shape)


def read_matrix_market(path, like: str = "torch", *, index_dtype: str = "int32", value_dtype: str = "float32",
                       stream=None) -> CsrMatrix:
    """A Matrix Market file (coordinate or array; real, integer or pattern; general, symmetric or
    skew-symmetric, the stored triangle expanded) as a CsrMatrix on the GPU, in torch tensors (like="torch") or CuPy arrays
    (like="cupy"): parsed on the host with the library's reader, then built by coo_to_csr."""
    rows, cols, row, col, value = _scankit.read_matrix_market(str(path), index_dtype, value_dtype)
    if like == "torch":
        import torch
        up = lambda a: torch.from_numpy(a).cuda()  # noqa: E731
    elif like == "cupy":
        import cupy
        up = cupy.asarray
    else:
        raise ValueError(f"like: '{like}' is not 'torch' or 'cupy'")
    return coo_to_csr(up(row), up(col), up(value), (rows, cols), stream=stream)


class SpmvPlan:
    """y = alpha * op(A) x + beta * y for one matrix, analysed once (it waits for the GPU then):
    op(A) = A, or A^T with transpose=True (the plan keeps a transposed copy). The plan reads A's
    arrays at every product; it keeps them alive. After changing A's values in place, call
    update_values() for a transposed plan."""

    def __init__(self, a, transpose: bool = False, *, stream=None):
        self.matrix = as_csr(a)
        m = self.matrix
        self.transpose = bool(transpose)
        s = stream_of(m._offsets, stream)
        values = m._values.address if m._values is not None else 0
        self._plan = _scankit.SpmvPlan(m._offsets.dtype, m.value_dtype, m.shape[0], m.shape[1], m.nonzeros,
                                       m._offsets.address, m._columns.address, values, self.transpose, s,
                                       allocator_slot(m._offsets.kind))

    @property
    def kernel(self) -> str:
        return self._plan.kernel

    def __call__(self, x, y=None, alpha: float = 1.0, beta: float = 0.0, *, stream=None):
        m = self.matrix
        rows, cols = (m.shape[1], m.shape[0]) if self.transpose else m.shape
        dx = describe(x, "x")
        if dx.shape != (cols,) or dx.dtype != m.value_dtype:
            raise ValueError(f"x: {dx.dtype} {dx.shape}, expected {m.value_dtype} ({cols},)")
        s = stream_of(dx, stream)
        if y is None:
            if beta != 0.0:
                raise ValueError("beta != 0 needs y")
            y = empty(dx, (rows,), m.value_dtype)
        dy = describe(y, "y")
        if dy.shape != (rows,) or dy.dtype != m.value_dtype:
            raise ValueError(f"y: {dy.dtype} {dy.shape}, expected {m.value_dtype} ({rows},)")
        self._plan.multiply(float(alpha), dx.address, dx.size, float(beta), dy.address, dy.size, s)
        return y

    def update_values(self, *, stream=None):
        self._plan.update_values(stream_of(self.matrix._offsets, stream))


def spmv(a, x, y=None, alpha: float = 1.0, beta: float = 0.0, *, transpose: bool = False, stream=None):
    """One product with a matrix used once (a plan is made and dropped; keep a SpmvPlan for more)."""
    return SpmvPlan(a, transpose, stream=stream)(x, y, alpha, beta, stream=stream)
