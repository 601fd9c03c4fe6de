"""benchmarks/race_smoke.py's bookkeeping (no GPU needed): how it reads its inputs, and that its bit
comparison sees a one-bit change in either dtype and treats identical NaNs as equal."""

import pytest
import torch

from helpers import load_benchmark


@pytest.fixture(scope="module")
def smoke():
    return load_benchmark("race_smoke")


def test_inputs(smoke):
    parsed = smoke.parse_inputs("18; 1,45 ;;10x4")
    assert parsed == [[18], [1, 45], [3, 3, 2, 2]]
    assert all(sum(s) == total for s, total in zip(smoke.parse_inputs("4124x15;8192x56"), (4124, 8192)))
    assert len(smoke.parse_inputs(smoke.DEFAULT_INPUTS)) == 20


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_bit_differences(smoke, dtype):
    a = torch.full((4, 3), float("nan"), dtype=dtype)
    a[1:] = torch.randn(3, 3).to(dtype)
    b = a.clone()
    assert smoke.bit_differences(a, b) == 0          # the NaNs too: same bits
    b.view(torch.int16 if dtype == torch.bfloat16 else torch.int32)[2, 1] ^= 1   # one bit of one element
    assert smoke.bit_differences(a, b) == 1
    b[0, 0] = 0.0                                    # a NaN written over
    assert smoke.bit_differences(a, b) == 2
