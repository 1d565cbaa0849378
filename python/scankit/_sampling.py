"""Sampling from the Python side: tables built on the GPU, and draws that need none."""

from __future__ import annotations

from . import _scankit
from ._arrays import address_of, allocator_slot, describe, empty, stream_of

__all__ = ["SamplingTable", "AliasTable", "sample_rows", "sample_rows_top", "sample_without_replacement",
           "sample_tokens", "advance_sampling_offsets"]


def _weights(weights, name, ndim):
    d = describe(weights, "weights")
    if len(d.shape) != ndim:
        raise ValueError(f"{name}: weights must be {ndim}-D, got shape {d.shape}")
    if d.dtype not in ("float32", "float64"):
        raise TypeError(f"{name}: weights of dtype {d.dtype}, expected float32 or float64")
    return d


class _Table:
    _kind = None
    _name = ""

    def __init__(self, weights, *, stream=None):
        d = _weights(weights, self._name, 1)
        self._like = d
        self._table = self._kind(allocator_slot(d.kind))  # its memory from the weights' framework
        self._table.build(d.dtype, d.address, d.size, stream_of(d, stream))

    @property
    def bins(self) -> int:
        return self._table.bins

    def check(self, *, stream=None):
        """Raises ArgumentError naming the problem (a negative, NaN or infinite weight, all zero,
        a sum past the largest double). Waits for the build."""
        self._table.check(stream_of(self._like, stream))

    def sample(self, count: int, seed: int, offset: int = 0, *, stream=None):
        """`count` bin indices (int32) drawn with replacement; the same (seed, offset) gives the
        same draws. Undefined unless the weights are valid (see check())."""
        if count < 0:
            raise ValueError(f"count = {count} is negative")
        s = stream_of(self._like, stream)
        out = empty(self._like, (count,), "int32")
        self._table.sample(address_of(out), count, seed, offset, s)
        return out


class SamplingTable(_Table):
    """The inverse-CDF table of one distribution (1-D float32 or float64 weights), built on the
    GPU in one pass. Its memory comes from the weights' framework (PyTorch's caching allocator,
    CuPy's pool) and goes back on its build's stream when the object is collected: keep that
    stream alive until then (torch's streams always are)."""

    _kind = _scankit.SamplingTable
    _name = "scankit.SamplingTable"


class AliasTable(_Table):
    """The alias table of one distribution: one 8-byte load per draw. Memory as SamplingTable."""

    _kind = _scankit.AliasTable
    _name = "scankit.AliasTable"


def sample_rows(weights, seed: int, offset: int = 0, *, stream=None):
    """One draw per row of a 2-D float32/float64 array of weights: column indices (int32)."""
    d = _weights(weights, "scankit.sample_rows", 2)
    s = stream_of(d, stream)
    out = empty(d, (d.shape[0],), "int32")
    _scankit.sample_rows(d.dtype, d.address, d.shape[0], d.shape[1], address_of(out), seed, offset, s)
    return out


def sample_rows_top(values, seed: int, offset: int = 0, *, logits: bool = True, temperature: float = 1.0,
                    top_k: int = 0, top_p: float = 1.0, stream=None):
    """A language model's sampler: one token per row of 2-D float32 logits (or probabilities with
    logits=False), after temperature, top-k and top-p. -1 marks a row with nothing to draw."""
    d = describe(values, "values")
    if len(d.shape) != 2 or d.dtype != "float32":
        raise ValueError(f"scankit.sample_rows_top: expected 2-D float32 values, got {d.dtype} {d.shape}")
    s = stream_of(d, stream)
    out = empty(d, (d.shape[0],), "int32")
    _scankit.sample_rows_top(d.address, d.shape[0], d.shape[1], address_of(out), bool(logits),
                             float(temperature), int(top_k), float(top_p), seed, offset, s)
    return out


def sample_without_replacement(weights, k: int, seed: int, offset: int = 0, *, stream=None):
    """k distinct indices drawn in proportion to 1-D weights, without replacement (int32)."""
    d = _weights(weights, "scankit.sample_without_replacement", 1)
    if not 0 <= k <= d.size:
        raise ValueError(f"k = {k} is outside [0, {d.size}]")
    s = stream_of(d, stream)
    out = empty(d, (k,), "int32")
    _scankit.sample_without_replacement(d.dtype, d.address, d.size, k, address_of(out), seed, offset, s)
    return out


def _parameter(value, name, dtype, rows, batch_wide=False):
    """A scalar, or a device array of one value per output row (or one for the batch): returns
    (scalar, address, per_row)."""
    if isinstance(value, (int, float)):
        return value, 0, True
    d = describe(value, name)
    if d.dtype not in dtype:
        raise TypeError(f"{name}: dtype {d.dtype}, expected {' or '.join(dtype)}")
    if d.shape == (rows,):
        return 0, d.address, True
    if batch_wide and d.shape == (1,):
        return 0, d.address, False
    raise ValueError(f"{name}: shape {d.shape}, expected ({rows},)" + (" or (1,)" if batch_wide else ""))


def sample_tokens(values, *, probabilities: bool = False, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0,
                  row_indices=None, seed=0, offset=0, logprobs: bool = False, kept_probs: bool = False,
                  stream=None):
    """The serving sampler: one token per output row of 2-D logits (or probabilities) in float32,
    float16 or bfloat16, with temperature, top-k, top-p and min-p. Each parameter is a number or
    a device array of one value per output row (float32; top_k int32). Seeds and offsets are
    numbers or uint64/int64 device arrays, per row or of one value for the whole batch, so a
    captured CUDA graph draws fresh tokens when advance_sampling_offsets moves them. row_indices
    (int32) maps output rows to input rows. The same row, parameters, seed and offset always give
    the same token, in any batch. Returns tokens (int32; -1 marks a bad row), then the drawn
    tokens' log-probabilities and the kept, renormalised probabilities when asked for."""
    d = describe(values, "values")
    if len(d.shape) != 2:
        raise ValueError(f"scankit.sample_tokens: values must be 2-D (rows, vocab), got shape {d.shape}")
    call = _scankit.TokenCall()
    call.dtype, call.values, (call.input_rows, call.vocab) = d.dtype, d.address, d.shape
    rows = d.shape[0]
    if row_indices is not None:
        r = describe(row_indices, "row_indices")
        if len(r.shape) != 1 or r.dtype != "int32":
            raise TypeError(f"row_indices: {r.dtype} {r.shape}, expected 1-D int32")
        rows, call.row_indices = r.shape[0], r.address
    call.output_rows = rows
    call.probabilities = bool(probabilities)
    call.temperature, call.temperatures, _ = _parameter(temperature, "temperature", ("float32",), rows)
    call.top_k, call.top_ks, _ = _parameter(top_k, "top_k", ("int32",), rows)
    call.top_p, call.top_ps, _ = _parameter(top_p, "top_p", ("float32",), rows)
    call.min_p, call.min_ps, _ = _parameter(min_p, "min_p", ("float32",), rows)
    call.seed, call.seeds, call.seeds_per_row = _parameter(seed, "seed", ("uint64", "int64"), rows, True)
    call.offset, call.offsets, call.offsets_per_row = _parameter(offset, "offset", ("uint64", "int64"), rows, True)
    s = stream_of(d, stream)
    tokens = empty(d, (rows,), "int32")
    call.tokens = address_of(tokens)
    results = [tokens]
    if logprobs:
        results.append(empty(d, (rows,), "float32"))
        call.logprobs = address_of(results[-1])
    if kept_probs:
        results.append(empty(d, (rows, d.shape[1]), "float32"))
        call.kept_probs = address_of(results[-1])
    _scankit.sample_tokens(call, s)
    return results[0] if len(results) == 1 else tuple(results)


def advance_sampling_offsets(offsets, step: int, *, stream=None):
    """Adds `step` to every device offset (uint64 or int64), stream-ordered: the last node of a
    captured graph, so that the next replay draws new tokens."""
    d = describe(offsets, "offsets")
    if len(d.shape) != 1 or d.dtype not in ("uint64", "int64"):
        raise TypeError(f"offsets: {d.dtype} {d.shape}, expected a 1-D uint64 or int64 array")
    _scankit.advance_sampling_offsets(d.address, d.size, int(step), stream_of(d, stream))
