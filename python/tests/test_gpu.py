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


def test_float32_scan_of_small_integers_is_exact():
    # |partial sums| <= 8 * 2^20 < 2^24: every float32 sum is exact, in any order
    x = random(1 << 20, torch.int32, 3, -8, 9).float()
    assert torch.equal(scankit.inclusive_scan(x), torch.cumsum(x.double(), 0).float())


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float32, torch.float64])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_reduce(dtype, op):
    x = random(100_003, dtype, 11)
    got = scankit.reduce(x, op)
    assert got.shape == () and got.dtype == dtype
    expected = {"sum": torch.sum, "max": torch.max, "min": torch.min}[op](x.double() if op == "sum" else x)
    if dtype == torch.float32 and op == "sum":  # float32 sums of 10^5 values of about 100, in another order
        torch.testing.assert_close(got.double(), expected.double(), rtol=0, atol=2.0)
    else:
        torch.testing.assert_close(got.double(), expected.double(), rtol=1e-12, atol=1e-9)


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
    assert (order == cupy.argsort(x)).all()  # CuPy's argsort is stable


def random_offsets(n, segments, seed):
    g = torch.Generator(device="cpu").manual_seed(seed)
    cuts = torch.sort(torch.randint(0, n + 1, (segments - 1,), generator=g)).values
    return torch.cat([torch.tensor([0]), cuts, torch.tensor([n])]).to(torch.int64)


@pytest.mark.parametrize("n,segments", [(1, 1), (4097, 3), (100_003, 517)])
@pytest.mark.parametrize("offset_dtype", [torch.int32, torch.int64])
def test_segmented_scans(n, segments, offset_dtype):
    x = random(n, torch.int64, 21 + n)
    offsets = random_offsets(n, segments, n)
    expected = torch.empty_like(x)
    expected_ex = torch.empty_like(x)
    for s in range(segments):
        a, b = offsets[s].item(), offsets[s + 1].item()
        expected[a:b] = torch.cumsum(x[a:b], 0)
        expected_ex[a:b] = 3 + expected[a:b] - x[a:b]
    d_offsets = offsets.to(offset_dtype).cuda()
    assert torch.equal(scankit.inclusive_segmented_scan(x, d_offsets), expected)
    assert torch.equal(scankit.exclusive_segmented_scan(x, d_offsets, init=3), expected_ex)


@pytest.mark.parametrize("n", [0, 1, 4097, 100_003])
def test_reduce_by_key(n):
    keys = torch.sort(random(n, torch.int32, 31 + n, 0, 50)).values
    values = random(n, torch.float64, 32 + n)
    k, sums = scankit.reduce_by_key(keys, values)
    expected_keys, counts = torch.unique_consecutive(keys, return_counts=True)
    assert torch.equal(k, expected_keys)
    starts = torch.cat([torch.zeros(1, dtype=torch.int64, device="cuda"), torch.cumsum(counts, 0)])
    expected = torch.stack([values[starts[i]:starts[i + 1]].sum() for i in range(len(counts))]) if n else values[:0]
    torch.testing.assert_close(sums, expected, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("n,segments", [(4097, 3), (100_003, 2000)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16])
def test_segmented_sort(n, segments, dtype):
    x = random(n, dtype, 41 + n)
    offsets = random_offsets(n, segments, n)
    got = scankit.segmented_sort(x, offsets.cuda(), descending=True)
    for s in range(0, segments, max(1, segments // 50)):
        a, b = offsets[s].item(), offsets[s + 1].item()
        assert torch.equal(got[a:b], torch.sort(x[a:b], descending=True, stable=True).values)


@pytest.mark.parametrize("n", SIZES)
def test_select_in_range_and_partition(n):
    x = random(n, torch.float32, 51 + n)
    keep = (x >= -20) & (x <= 30)
    assert torch.equal(scankit.select_in_range(x, -20.0, 30.0), x[keep])
    parted, count = scankit.partition(x, -20.0, 30.0)
    assert count == int(keep.sum())
    assert torch.equal(parted[:count], x[keep])
    assert torch.equal(parted[count:], torch.flip(x[~keep], [0]))


@pytest.mark.parametrize("table_type", [scankit.SamplingTable, scankit.AliasTable])
def test_tables_draw_in_proportion(table_type):
    weights = torch.tensor([1.0, 0.0, 3.0, 4.0], device="cuda", dtype=torch.float64)
    table = table_type(weights)
    table.check()
    assert table.bins == 4
    draws = table.sample(400_000, seed=7)
    assert draws.dtype == torch.int32 and draws.shape == (400_000,)
    counts = torch.bincount(draws.long(), minlength=4).double() / draws.numel()
    torch.testing.assert_close(counts, weights / weights.sum(), atol=0.005, rtol=0)
    assert torch.equal(draws, table.sample(400_000, seed=7))  # the same seed, the same draws
    bad = table_type(torch.tensor([1.0, float("nan")], device="cuda"))
    with pytest.raises(scankit.ArgumentError, match="NaN"):
        bad.check()


def test_sample_rows_and_top():
    weights = torch.zeros(64, 1000, device="cuda")
    weights[torch.arange(64), torch.arange(64) * 7] = 1.0  # one column per row
    assert torch.equal(scankit.sample_rows(weights, seed=1), (torch.arange(64, device="cuda") * 7).int())
    logits = torch.randn(256, 32000, device="cuda") * 3
    tokens = scankit.sample_rows_top(logits, seed=3, top_k=1)
    assert torch.equal(tokens, logits.argmax(1).int())  # top-k 1 is the argmax
    kept = scankit.sample_rows_top(logits, seed=3, top_k=50)
    assert bool((logits.gather(1, kept.long()[:, None]).squeeze(1) >= logits.topk(50, 1).values[:, -1]).all())


def test_sample_without_replacement_is_distinct():
    w = torch.rand(100_000, device="cuda")
    got = scankit.sample_without_replacement(w, 1000, seed=5)
    assert got.shape == (1000,) and torch.unique(got).numel() == 1000


def random_csr(rows, cols, density, seed):
    g = torch.Generator(device="cpu").manual_seed(seed)
    dense = (torch.rand(rows, cols, generator=g) < density) * torch.randn(rows, cols, generator=g)
    return dense.double().cuda()


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
def test_spmv_against_a_dense_product(transpose, index_dtype):
    dense = random_csr(3001, 1777, 0.01, 61)
    a = dense.to_sparse_csr()
    m = scankit.CsrMatrix(a.crow_indices().to(index_dtype), a.col_indices().to(index_dtype), a.values(), a.shape)
    plan = scankit.SpmvPlan(m, transpose)
    x = torch.randn(dense.shape[0] if transpose else dense.shape[1], device="cuda", dtype=torch.float64)
    expected = (dense.t() if transpose else dense) @ x
    torch.testing.assert_close(plan(x), expected, rtol=1e-10, atol=1e-10)
    y = torch.ones_like(expected)
    torch.testing.assert_close(plan(x, y, alpha=2.0, beta=0.5), 2 * expected + 0.5, rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(scankit.spmv(a, x, transpose=transpose), expected, rtol=1e-10, atol=1e-10)


def test_coo_to_csr_sums_duplicates():
    rows = torch.tensor([2, 0, 2, 1, 2], device="cuda", dtype=torch.int32)
    cols = torch.tensor([1, 0, 1, 3, 0], device="cuda", dtype=torch.int32)
    values = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], device="cuda")
    m = scankit.coo_to_csr(rows, cols, values, (3, 4))
    assert m.offsets.tolist() == [0, 1, 2, 4]
    assert m.columns.tolist() == [0, 3, 0, 1]
    assert m.values.tolist() == [2.0, 4.0, 5.0, 4.0]


def test_workspace_memory_comes_from_torchs_allocator():
    # torch hands out streams from a pool: take one that scankit has not used yet
    side = next(s for s in (torch.cuda.Stream() for _ in range(64))
                if scankit._scankit.workspace_bytes(s.cuda_stream) == 0)
    x = torch.ones(1 << 24, device="cuda", dtype=torch.int32)
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    with torch.cuda.stream(side):
        sums = scankit.inclusive_scan(x)
        keys = scankit.sort(x)  # the sort's workspace holds a second buffer of keys
    side.synchronize()
    kept = scankit._scankit.workspace_bytes(side.cuda_stream)
    assert kept >= 4 * x.numel()
    # The outputs and the workspace are torch's: torch's count covers all three.
    assert torch.cuda.memory_allocated() - before >= kept + sums.nbytes + keys.nbytes
    assert sums[-1].item() == x.numel() and torch.equal(keys, x)


def test_tables_and_plans_take_torch_memory():
    """A table's and a transposed plan's device memory come from torch's caching allocator, and go
    back to it when the objects are collected."""
    w = torch.rand(1 << 20, device="cuda", dtype=torch.float64)
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    table = scankit.SamplingTable(w)
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() - before >= 8 * w.numel()  # the CDF alone is 8 bytes a bin
    a = scankit.coo_to_csr(torch.arange(1000, device="cuda", dtype=torch.int32),
                           torch.arange(1000, device="cuda", dtype=torch.int32).flip(0),
                           torch.ones(1000, device="cuda"), (1000, 1000))
    torch.cuda.synchronize()
    with_table = torch.cuda.memory_allocated()
    plan = scankit.SpmvPlan(a, transpose=True)  # keeps A^T: 1001 offsets, 1000 columns and values
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() - with_table >= 12 * 1000
    y = plan(torch.arange(1000, device="cuda", dtype=torch.float32))
    assert y.tolist() == list(range(999, -1, -1))
    del table, plan
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() < with_table


def test_read_matrix_market(tmp_path):
    path = tmp_path / "a.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2.0\n3 1 -1.5\n2 2 4\n")
    m = scankit.read_matrix_market(path, index_dtype="int64", value_dtype="float64")
    assert isinstance(m.offsets, torch.Tensor) and m.shape == (3, 3)
    assert m.offsets.tolist() == [0, 2, 3, 4]
    assert m.columns.tolist() == [0, 2, 1, 0]
    assert m.values.tolist() == [2.0, -1.5, 4.0, -1.5]


def test_sample_tokens_greedy_batch_invariance_and_outputs():
    logits = torch.randn(256, 32000, device="cuda") * 3
    greedy = scankit.sample_tokens(logits, temperature=0.0)
    assert torch.equal(greedy, logits.argmax(1).int())
    tokens = scankit.sample_tokens(logits, top_k=50, top_p=0.9, seed=11)
    for batch in (1, 7):
        rows = torch.arange(3, 3 + batch, device="cuda", dtype=torch.int32)
        assert torch.equal(scankit.sample_tokens(logits, top_k=50, top_p=0.9, seed=11, row_indices=rows),
                           tokens[3:3 + batch])
    tokens, logprobs, kept = scankit.sample_tokens(logits, top_k=50, seed=11, logprobs=True, kept_probs=True)
    assert kept.shape == logits.shape and logprobs.shape == (256,)
    torch.testing.assert_close(kept.sum(1), torch.ones(256, device="cuda"), rtol=0, atol=1e-4)
    assert int((kept > 0).sum(1).max()) <= 50
    chosen = kept.gather(1, tokens.long()[:, None]).squeeze(1)
    torch.testing.assert_close(logprobs, chosen.log(), rtol=1e-4, atol=1e-4)


def test_sample_tokens_per_row_parameters_and_device_offsets():
    logits = torch.randn(64, 4096, device="cuda").to(torch.bfloat16)
    top_ks = torch.randint(1, 20, (64,), device="cuda", dtype=torch.int32)
    temperatures = torch.rand(64, device="cuda") + 0.5
    offsets = torch.zeros(1, device="cuda", dtype=torch.int64)
    first = scankit.sample_tokens(logits, top_k=top_ks, temperature=temperatures, seed=5, offset=offsets)
    # by value: bfloat16 ties at the k-th value are kept too
    kth = torch.stack([logits[r].float().topk(int(top_ks[r])).values[-1] for r in range(64)])
    assert bool((logits.float().gather(1, first.long()[:, None]).squeeze(1) >= kth).all())
    again = scankit.sample_tokens(logits, top_k=top_ks, temperature=temperatures, seed=5, offset=offsets)
    assert torch.equal(first, again)
    scankit.advance_sampling_offsets(offsets, 1)
    moved = scankit.sample_tokens(logits, top_k=top_ks, temperature=temperatures, seed=5, offset=offsets)
    assert offsets.item() == 1 and not torch.equal(first, moved)  # fresh draws (64 rows cannot all repeat)
