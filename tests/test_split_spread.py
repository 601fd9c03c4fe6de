"""benchmarks/split_spread.py's bookkeeping on hand-written CUPTI records (no GPU needed): which
kernels belong to which call, and the times it reports."""

import pytest

from helpers import load_benchmark


@pytest.fixture(scope="module")
def spread():
    return load_benchmark("split_spread")


def test_calls_from_records(spread):
    # Two calls (host windows in ns). The first launches the prep kernel (correlation 1) and the scan
    # kernel (2); the second only one kernel (4); the flush's kernel (3) falls between the windows
    # and belongs to neither; a window that launched nothing is left out.
    windows = [(1_000, 60_000), (100_000, 150_000), (200_000, 210_000)]
    kernels = [(20_000, 40_000, 1), (38_000, 90_000, 2), (95_000, 99_000, 3), (120_000, 130_000, 4)]
    apis = [(5_000, 19_000, 1, "cuLaunchKernelEx"), (25_000, 26_000, 9, "cuCtxGetCurrent"),
            (27_000, 35_000, 2, "cuLaunchKernelEx"), (94_000, 94_500, 3, "cudaLaunchKernel"),
            (110_000, 118_000, 4, "cuLaunchKernelEx"), (205_000, 206_000, 8, "cudaGetDevice")]
    calls = spread.calls_from_records(windows, kernels, apis)
    assert len(calls) == 2
    first, second = calls
    assert first["span"] == 70.0                       # 20 µs to 90 µs
    assert first["kernels"] == [(0.0, 20.0), (18.0, 70.0)]
    assert first["issues"] == [-15.0, 7.0]
    assert [a[0] for a in first["api"]] == ["cuLaunchKernelEx", "cuCtxGetCurrent", "cuLaunchKernelEx"]
    assert first["call"] == (-19.0, 40.0)
    assert second["span"] == 10.0 and second["issues"] == [-10.0]


def test_summary(spread):
    rows = [{"span": s, "kernels": [(0.0, 10.0), (k, s)], "issues": [-5.0, i]}
            for s, k, i in [(50.0, 12.0, 3.0), (70.0, 30.0, 20.0), (52.0, 13.0, 4.0)]]
    s = spread.summary(rows)
    assert s["span"] == {"median": 52.0, "min": 50.0, "max": 70.0}
    assert s["kernels"][1]["start"] == {"median": 13.0, "min": 12.0, "max": 30.0}
    assert s["issues"][1]["max"] == 20.0 and s["issues"][0]["median"] == -5.0
