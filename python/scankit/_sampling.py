"""Sampling from the Python side: tables built on the GPU, and draws that need none."""

from __future__ import annotations

from . import _scankit
from ._arrays import describe, empty, stream_of

__all__ = ["SamplingTable", "AliasTable", "sample_rows", "sample_rows_top", "sample_without_replacement"]


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
        self._table = self._kind()
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
        self._table.sample(describe(out, "out").address, count, seed, offset, s)
        return out


class SamplingTable(_Table):
    """The inverse-CDF table of one distribution (1-D float32 or float64 weights), built on the
    GPU in one pass. Its memory goes back on its build's stream when the object is collected:
    keep that stream alive until then (torch's streams always are)."""

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
    _scankit.sample_rows(d.dtype, d.address, d.shape[0], d.shape[1], describe(out, "out").address, seed, offset, s)
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
    _scankit.sample_rows_top(d.address, d.shape[0], d.shape[1], describe(out, "out").address, bool(logits),
                             float(temperature), int(top_k), float(top_p), seed, offset, s)
    return out


def sample_without_replacement(weights, k: int, seed: int, offset: int = 0, *, stream=None):
    """k distinct indices drawn in proportion to 1-D weights, without replacement (int32)."""
    d = _weights(weights, "scankit.sample_without_replacement", 1)
    if not 0 <= k <= d.size:
        raise ValueError(f"k = {k} is outside [0, {d.size}]")
    s = stream_of(d, stream)
    out = empty(d, (k,), "int32")
    _scankit.sample_without_replacement(d.dtype, d.address, d.size, k, describe(out, "out").address, seed, offset, s)
    return out
