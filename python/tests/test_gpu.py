"""Every function against PyTorch (and CuPy where it is installed) on random inputs of awkward
sizes, with the caller's streams, in-place outputs and errors. Skipped without a GPU."""

import pytest

import scankit

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.gpu

SIZES = [0, 1, 2, 1023, 4097, 100_003, (1 << 20) + 3]
INTEGERS = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]
FLOATS = [torch.float32, torch.float64]


def random(n, dtype, seed, low=-50, high=50):
    g = torch.Generator(device="cuda").manual_seed(seed)
    if dtype.is_floating_point:
        return (torch.randn(n, generator=g, device="cuda", dtype=torch.float32) * 100).to(dtype)
    if dtype in (torch.uint8, torch.uint32, torch.uint64):
        low = 0
    return torch.randint(low, high, (n,), generator=g, device="cuda", dtype=torch.int64).to(dtype)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float64, torch.uint8])
def test_inclusive_scan_sum(n, dtype):
    x = random(n, dtype, n)
    got = scankit.inclusive_scan(x)
    assert isinstance(got, torch.Tensor) and got.dtype == dtype and got.shape == x.shape
    expected = torch.cumsum(x.to(torch.int64 if not dtype.is_floating_point else dtype), 0).to(dtype)
    if dtype.is_floating_point:
        torch.testing.assert_close(got, expected, rtol=1e-9, atol=1e-6)
    else:
        assert torch.equal(got, expected)


@pytest.mark.parametrize("n", [1, 4097, 100_003])
@pytest.mark.parametrize("op", ["max", "min"])
def test_inclusive_scan_max_min_and_exclusive(n, op):
    x = random(n, torch.int32, 7 + n)
    got = scankit.inclusive_scan(x, op=op)
    expected = (torch.cummax if op == "max" else torch.cummin)(x, 0).values
    assert torch.equal(got, expected)
    ex = scankit.exclusive_scan(x, init=5)
    assert ex[0].item() == 5
    assert torch.equal(ex[1:], 5 + torch.cumsum(x, 0, dtype=torch.int32)[:-1])


def test_float32_scan_is_close():
    x = random(1 << 20, torch.float32, 3)
    torch.testing.assert_close(scankit.inclusive_scan(x), torch.cumsum(x.double(), 0).float(), rtol=1e-4, atol=1.0)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float32, torch.float64])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_reduce(dtype, op):
    x = random(100_003, dtype, 11)
    got = scankit.reduce(x, op)
    assert got.shape == () and got.dtype == dtype
    expected = {"sum": torch.sum, "max": torch.max, "min": torch.min}[op](x.double() if op == "sum" else x)
    torch.testing.assert_close(got.double(), expected.double(), rtol=1e-6, atol=1e-3)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", INTEGERS + FLOATS + [torch.float16, torch.bfloat16, torch.uint32])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_and_argsort_match_torch_stable(n, dtype, descending):
    if dtype == torch.uint32 and n > 0:
        x = random(n, torch.int64, 5 + n, 0, 1 << 31).to(torch.uint32)
    else:
        x = random(n, dtype, 5 + n)
    got = scankit.sort(x, descending)
    reference = x.to(torch.int64) if dtype == torch.uint32 else x
    expected_values, expected_order = torch.sort(reference, descending=descending, stable=True)
    assert torch.equal(got.to(reference.dtype), expected_values)
    order = scankit.argsort(x, descending)
    assert order.dtype == torch.int64
    assert torch.equal(order, expected_order)


def test_sort_pairs():
    keys = random(300_001, torch.int32, 1, 0, 1000)
    values = torch.arange(keys.numel(), device="cuda", dtype=torch.float32)
    k, v = scankit.sort_pairs(keys, values)
    expected_k, order = torch.sort(keys, stable=True)
    assert torch.equal(k, expected_k)
    assert torch.equal(v, values[order])


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("mask_dtype", [torch.bool, torch.uint8])
def test_select(n, mask_dtype):
    x = random(n, torch.float32, 9 + n)
    mask = (x > 0).to(mask_dtype)
    got = scankit.select(x, mask)
    assert torch.equal(got, torch.masked_select(x, mask.bool()))


@pytest.mark.parametrize("n", SIZES)
def test_unique_consecutive(n):
    x = torch.sort(random(n, torch.int64, 13 + n, 0, 100)).values
    assert torch.equal(scankit.unique(x), torch.unique_consecutive(x))


@pytest.mark.parametrize("shape,k", [((1, 131072), 50), ((64, 32000), 1), ((7, 1000), 1000), ((4097,), 10)])
@pytest.mark.parametrize("largest", [True, False])
def test_top_k(shape, k, largest):
    n = 1
    for s in shape:
        n *= s
    x = torch.randperm(n, device="cuda").to(torch.float32).reshape(shape)  # distinct keys: one answer
    values, indices = scankit.top_k(x, k, largest)
    expected = torch.topk(x, k, largest=largest, sorted=True)
    assert torch.equal(values, expected.values)
    assert torch.equal(indices, expected.indices)


def test_in_place_scan_shares_memory():
    x = random(100_003, torch.int64, 17)
    expected = torch.cumsum(x, 0)
    address = x.data_ptr()
    got = scankit.inclusive_scan(x, out=x)
    assert got is x and x.data_ptr() == address
    assert torch.equal(x, expected)


def test_side_stream_is_ordered_after_the_callers_work():
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        x = torch.ones(1 << 24, device="cuda", dtype=torch.int32)
        torch.cuda._sleep(20_000_000)  # the fill above and this spin run before scankit's call
        x.mul_(2)
        sums = scankit.inclusive_scan(x)
    side.synchronize()
    assert sums[-1].item() == 2 * (1 << 24)


def test_explicit_stream():
    s = torch.cuda.Stream()
    x = torch.ones(4096, device="cuda", dtype=torch.int32)
    torch.cuda.synchronize()
    y = scankit.inclusive_scan(x, stream=s)
    s.synchronize()
    assert y[-1].item() == 4096
    y2 = scankit.inclusive_scan(x, stream=s.cuda_stream)
    s.synchronize()
    assert torch.equal(y, y2)


def test_errors_leave_the_callers_arrays_intact():
    x = random(1000, torch.int32, 19)
    before = x.clone()
    with pytest.raises(TypeError, match="cpu"):
        scankit.inclusive_scan(x.cpu())
    with pytest.raises(ValueError, match="not contiguous"):
        scankit.sort(x.reshape(10, 100).t().reshape(-1)[::2])
    out = torch.full_like(x, 7)
    with pytest.raises(TypeError, match="dtype"):
        scankit.inclusive_scan(x, out=out.to(torch.int64))
    with pytest.raises(scankit.ArgumentError):
        scankit.sort(x, out=x)  # the sort's output may not be its input
    with pytest.raises(scankit.ArgumentError, match="overlap"):
        scankit.inclusive_scan(x[:-1], out=x[1:])  # only out == x may share memory
    torch.cuda.synchronize()
    assert torch.equal(x, before)
    assert torch.equal(out, torch.full_like(x, 7))


cupy = None
try:
    import cupy  # noqa: F811
except ImportError:
    pass


@pytest.mark.skipif(cupy is None, reason="CuPy is not installed")
def test_cupy_in_cupy_out():
    x = cupy.random.default_rng(1).integers(0, 1000, 100_003, dtype=cupy.int32)
    sums = scankit.inclusive_scan(x)
    assert isinstance(sums, cupy.ndarray)
    assert (sums == cupy.cumsum(x, dtype=cupy.int32)).all()
    keys = scankit.sort(x)
    assert (keys == cupy.sort(x)).all()
    kept = scankit.select(x, x > 500)
    assert (kept == x[x > 500]).all()
    order = scankit.argsort(x)
    assert (order == cupy.argsort(x, kind="stable")).all()
