"""scankit's exceptions: the library's messages, as Python exception types."""

from . import _scankit

#: A bad argument that the library refused before enqueueing anything (a ValueError).
ArgumentError = _scankit.ArgumentError
#: A CUDA runtime call failed; the message names the call (a RuntimeError).
CudaError = _scankit.CudaError

__all__ = ["ArgumentError", "CudaError"]
