"""The interpreter's bfloat16 dot is wrong without gdnkit's fix and right with it
(triton-lang/triton#11584). Only meaningful on the CPU interpreter."""

import pytest
import torch
import triton
import triton.language as tl

from gdnkit.interpreter import bf16_dot_fix, interpreter_enabled

pytestmark = pytest.mark.skipif(not interpreter_enabled(), reason="the fix only concerns the CPU interpreter")


@triton.jit
def _dot_kernel(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    rows = tl.arange(0, N)
    a = tl.load(a_ptr + rows[:, None] * N + rows[None, :])
    b = tl.load(b_ptr + rows[:, None] * N + rows[None, :])
    tl.store(c_ptr + rows[:, None] * N + rows[None, :], tl.dot(a, b))


def _dot(a, b):
    c = torch.empty(a.shape[0], b.shape[1], dtype=torch.float32)
    _dot_kernel[(1,)](a, b, c, N=a.shape[0])
    return c


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_dot_with_and_without_fix(dtype):
    gen = torch.Generator().manual_seed(1)
    a = torch.randn(16, 16, generator=gen).to(dtype)
    b = torch.randn(16, 16, generator=gen).to(dtype)
    want = a.float() @ b.float()
    with bf16_dot_fix(enabled=False):
        unfixed = _dot(a, b)
    with bf16_dot_fix():
        fixed = _dot(a, b)
    torch.testing.assert_close(fixed, want, atol=1e-4, rtol=1e-4)
    if dtype == torch.bfloat16:
        assert not torch.allclose(unfixed, want, atol=1.0), "the interpreter bug is gone: drop the fix"
    else:
        torch.testing.assert_close(unfixed, want, atol=1e-4, rtol=1e-4)
