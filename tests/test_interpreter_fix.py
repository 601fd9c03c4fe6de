"""gdnkit's two interpreter fixes: the bfloat16 dot is wrong without the first and right with it
(triton-lang/triton#11584); the second spares helper calls their re-patching of the language and
leaves results as they were. Only meaningful on the CPU interpreter."""

import pytest
import torch
import triton
import triton.language as tl

from gdnkit.interpreter import bf16_dot_fix, helper_call_fix, interpreter_enabled

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


@triton.jit
def _scaled_gate(x, w):
    # a helper of ours that calls Triton's own helpers (tl.sigmoid, tl.sum: jit functions of
    # triton.language.standard, whose module names triton.language.core)
    return tl.sigmoid(x) * tl.sum(w, axis=0)


@triton.jit
def _helpers_kernel(x_ptr, w_ptr, y_ptr, N: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + pid * N + offs)
    w = tl.load(w_ptr + offs)
    y = _scaled_gate(x, w)
    y = _scaled_gate(y, w) + tl.cdiv(pid + 1, 2)
    tl.store(y_ptr + pid * N + offs, y)


def test_helper_calls_patch_the_language_once_per_launch(monkeypatch):
    """Without gdnkit's helper-call fix every helper call re-patches triton.language (a scan of the
    language's members); with it the launch's patches serve its helpers. Same results either way,
    Triton's own helpers included."""
    from triton.runtime import interpreter

    calls = []
    patch_lang = interpreter._patch_lang
    monkeypatch.setattr(interpreter, "_patch_lang", lambda fn: calls.append(fn) or patch_lang(fn))
    gen = torch.Generator().manual_seed(2)
    x, w = torch.randn(6, 16, generator=gen), torch.randn(16, generator=gen)
    want = torch.sigmoid(torch.sigmoid(x) * w.sum()) * w.sum() + (torch.arange(6)[:, None] + 2) // 2
    results = {}
    for enabled in (False, True):
        calls.clear()
        with helper_call_fix(enabled):
            y = torch.empty_like(x)
            _helpers_kernel[(6,)](x, w, y, N=16)
        results[enabled] = (y, len(calls))
    (unfixed, unfixed_calls), (fixed, fixed_calls) = results[False], results[True]
    torch.testing.assert_close(fixed, want, atol=1e-5, rtol=1e-5)
    assert torch.equal(fixed, unfixed)
    assert unfixed_calls >= 6 * 2, unfixed_calls      # the launch, and every helper call of every program
    assert fixed_calls <= 3, fixed_calls              # the launch, and the first call of a Triton helper
