"""GPU latency of one call, the contest's way where possible.

The contest harness (flashinfer-bench main) times with `flashinfer.testing.
bench_gpu_time_with_cupti`: CUPTI records every GPU activity of each call, the call's time is
the span from its first activity's start to its last one's end, the L2 is flushed before each
call, and the median over the iterations is kept. We use exactly that function when flashinfer
and cupti-python are importable. Otherwise we fall back to CUDA events around each call after an
L2 flush, which also counts host launch gaps inside the call and so reads a little higher; the
method used is returned with the number.
"""

from __future__ import annotations

import statistics
from typing import Callable, Sequence, Tuple

import torch


def cupti_available() -> bool:
    try:
        import cupti  # noqa: F401  (cupti-python)
        from flashinfer.testing import bench_gpu_time_with_cupti  # noqa: F401
    except Exception:
        return False
    return True


def _flush_buffer(device) -> torch.Tensor:
    l2 = torch.cuda.get_device_properties(device).L2_cache_size
    return torch.empty(2 * l2 // 4, dtype=torch.int32, device=device)


def time_with_events(fn: Callable, args: Sequence, warmup: int, iterations: int, device="cuda") -> float:
    flush = _flush_buffer(device)
    for _ in range(warmup):
        fn(*args)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
    torch.cuda.synchronize(device)
    for i in range(iterations):
        flush.zero_()
        starts[i].record()
        fn(*args)
        ends[i].record()
    torch.cuda.synchronize(device)
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def time_call(fn: Callable, args: Sequence, warmup: int, iterations: int, device="cuda") -> Tuple[float, str]:
    """Median latency in milliseconds of fn(*args) with a cold L2, and the method's name."""
    if cupti_available():
        from flashinfer.testing import bench_gpu_time_with_cupti

        times = bench_gpu_time_with_cupti(
            fn, dry_run_iters=warmup, repeat_iters=iterations, input_args=tuple(args),
            cold_l2_cache=True, use_cuda_graph=False,
        )
        return statistics.median(times), "cupti"
    return time_with_events(fn, args, warmup, iterations, device), "cuda-events"
