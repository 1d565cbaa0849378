"""What needs no GPU: the package imports, and bad arrays are refused with clear errors before
anything runs."""

import numpy as np
import pytest

import scankit


class FakeDeviceArray:
    """An object with the CUDA array interface at a made-up address: enough for the argument
    checks, which must refuse it before the library touches the memory."""

    def __init__(self, shape, typestr="<i4", strides=None):
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "data": (0x7F0000000000, False), "version": 3,
            "strides": strides,
        }


def test_import_and_version():
    assert scankit.__version__.count(".") == 2
    assert isinstance(scankit.cuda_available(), bool)
    assert issubclass(scankit.ArgumentError, ValueError)
    assert issubclass(scankit.CudaError, RuntimeError)


@pytest.mark.parametrize("function", [scankit.inclusive_scan, scankit.sort, scankit.argsort, scankit.unique])
def test_host_arrays_are_refused(function):
    with pytest.raises(TypeError, match="host array"):
        function(np.arange(10, dtype=np.int32))
    with pytest.raises(TypeError, match="not a GPU array"):
        function([1, 2, 3])


def test_unsupported_dtype():
    with pytest.raises(TypeError, match="dtype"):
        scankit.inclusive_scan(FakeDeviceArray((8,), typestr="<c8"))


def test_non_contiguous():
    with pytest.raises(ValueError, match="not C-contiguous"):
        scankit.sort(FakeDeviceArray((4, 3), strides=(4, 32)))


def test_shapes():
    with pytest.raises(ValueError, match="1-D"):
        scankit.inclusive_scan(FakeDeviceArray((4, 3)))
    with pytest.raises(ValueError, match="op"):
        scankit.inclusive_scan(FakeDeviceArray((4,)), op="product")
    with pytest.raises(ValueError, match="shape"):
        scankit.select(FakeDeviceArray((4,)), FakeDeviceArray((5,), typestr="|b1"))
    with pytest.raises(ValueError, match="outside"):
        scankit.top_k(FakeDeviceArray((4, 3)), 4)


def test_bad_stream():
    with pytest.raises(TypeError, match="stream"):
        scankit.inclusive_scan(FakeDeviceArray((4,)), stream="fast")


def test_library_errors_become_python_exceptions():
    # A dtype the compiled function refuses reaches Python as ArgumentError with its message.
    with pytest.raises(scankit.ArgumentError, match="scankit.unique: dtype int8 is not supported"):
        scankit._scankit.unique("int8", 0, 0, 0, 0)
    with pytest.raises(scankit.ArgumentError, match="op 'product'"):
        scankit._scankit.scan(True, "int32", 0, 0, 0, 0, "product", 0)


def test_offsets_are_checked():
    x = FakeDeviceArray((10,))
    with pytest.raises(TypeError, match="offsets of dtype"):
        scankit.inclusive_segmented_scan(x, FakeDeviceArray((3,), typestr="<f4"))
    with pytest.raises(ValueError, match="num_segments"):
        scankit.segmented_sort(x, FakeDeviceArray((3, 2)))
    with pytest.raises(ValueError, match="shape"):
        scankit.reduce_by_key(x, FakeDeviceArray((9,)))


def test_sampling_and_sparse_arguments():
    with pytest.raises(TypeError, match="float32 or float64"):
        scankit.SamplingTable(FakeDeviceArray((10,)))
    with pytest.raises(ValueError, match="2-D"):
        scankit.sample_rows(FakeDeviceArray((10,), typestr="<f4"), seed=1)
    with pytest.raises(ValueError, match="outside"):
        scankit.sample_without_replacement(FakeDeviceArray((10,), typestr="<f4"), 11, seed=1)
    with pytest.raises(ValueError, match="offsets"):
        scankit.CsrMatrix(FakeDeviceArray((4,)), FakeDeviceArray((7,)), None, (4, 4))
    with pytest.raises(TypeError, match="not a CSR matrix"):
        scankit.as_csr([[1, 0], [0, 1]])


def test_matrix_market_reader(tmp_path):
    path = tmp_path / "a.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2.0\n3 1 -1.5\n2 2 4\n")
    rows, cols, row, col, value = scankit._scankit.read_matrix_market(str(path), "int64", "float64")
    assert (rows, cols) == (3, 3)
    assert row.dtype == np.int64 and value.dtype == np.float64
    assert list(zip(row.tolist(), col.tolist(), value.tolist())) == [
        (0, 0, 2.0), (2, 0, -1.5), (0, 2, -1.5), (1, 1, 4.0)]
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n")
    with pytest.raises(scankit.ArgumentError, match="bad.mtx"):
        scankit._scankit.read_matrix_market(str(bad), "int32", "float32")
    with pytest.raises(ValueError, match="like"):
        scankit.read_matrix_market(path, like="numpy")


def test_sample_tokens_arguments():
    values = FakeDeviceArray((4, 100), typestr="<f4")
    with pytest.raises(ValueError, match="2-D"):
        scankit.sample_tokens(FakeDeviceArray((100,), typestr="<f4"))
    with pytest.raises(TypeError, match="top_k: dtype float32"):
        scankit.sample_tokens(values, top_k=FakeDeviceArray((4,), typestr="<f4"))
    with pytest.raises(ValueError, match=r"seed: shape \(3,\)"):
        scankit.sample_tokens(values, seed=FakeDeviceArray((3,), typestr="<u8"))
    with pytest.raises(TypeError, match="row_indices"):
        scankit.sample_tokens(values, row_indices=FakeDeviceArray((4,), typestr="<i8"))
