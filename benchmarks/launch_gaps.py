"""Per-launch GPU spans of one prefill call, and the host's time to issue split launches.

For each variant and workload: the median call (cold L2, torch.profiler's CUDA activity) as the
[start-end] span of each of its kernels from the first one's start, so the gap between the split
launches (CHUNKED_SPLIT_MIN_TOKENS) shows. The profiler slows the host's launches, so the gaps read
larger than under the contest's CUPTI timing; the kernels' own spans do not. With --host, the host's
time (no profiler) to prepare both launches and to issue each of them, on that workload.

    python benchmarks/launch_gaps.py --workloads d0ce7b5d,7ba9d519 --variants "default;CHUNKED_SPLIT_MIN_TOKENS=0" \\
        --host d0ce7b5d
"""

from __future__ import annotations

import argparse
import statistics as st
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from gpu_check import apply_knobs, parse_variants, workload_args  # noqa: E402

from gdnkit import PREFILL  # noqa: E402
from gdnkit.dataset import load_manifest  # noqa: E402
from gdnkit.kernels import load_kernel_module  # noqa: E402
from gdnkit.timing import _flush_buffer  # noqa: E402


def kernel_spans(module, args, flush, calls):
    """[(start, end), ...] µs of the call's kernels, from the first start, for the median call."""
    from torch.profiler import ProfilerActivity, profile

    runs = []
    for _ in range(calls):
        flush.zero_()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            module.run(*args)
            torch.cuda.synchronize()
        events = sorted((e for e in prof.events()
                         if e.device_type == torch.autograd.DeviceType.CUDA and "gdn" in e.name),
                        key=lambda e: e.time_range.start)
        t0 = events[0].time_range.start
        runs.append([(e.time_range.start - t0, e.time_range.end - t0) for e in events])
    runs.sort(key=lambda r: r[-1][1])
    return runs[len(runs) // 2]


def host_times(module, args, calls=50):
    """Median µs (prepare both launches, issue the first, issue the second) of split launches, as
    _launch_back_to_back prepares and issues them."""
    times = []
    original = module._launch_back_to_back

    def timed(kernel, launches):
        t0 = time.perf_counter()
        ready = module._prepare_launches(kernel, launches)
        t1 = time.perf_counter()
        stamps = []
        for launch, values in ready:
            launch(*values)
            stamps.append(time.perf_counter())
        times.append((t1 - t0, stamps[0] - t1, stamps[1] - stamps[0]))

    module._launch_back_to_back = timed
    try:
        for _ in range(calls):
            module.run(*args)
            torch.cuda.synchronize()
    finally:
        module._launch_back_to_back = original
    times = times[10:]
    return tuple(1e6 * st.median(t[i] for t in times) for i in range(3))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workloads", required=True, help="comma-separated uuid prefixes")
    ap.add_argument("--variants", default="default", help="KNOB=v,KNOB=v;... ('default': the file's knobs)")
    ap.add_argument("--calls", type=int, default=7)
    ap.add_argument("--host", help="a workload to time the host's split launches on")
    args = ap.parse_args()
    module = load_kernel_module("gdn_prefill")
    defaults = {n: getattr(module, n) for n in dir(module) if n.isupper()}
    manifest = {w["uuid"][:8]: w for w in load_manifest()[PREFILL]}
    flush = _flush_buffer("cuda")
    for variant in parse_variants(args.variants):
        apply_knobs(module, variant, defaults)
        for uid in args.workloads.split(","):
            call_args = workload_args(manifest[uid])
            for _ in range(3):
                module.run(*call_args)
            spans = kernel_spans(module, call_args, flush, args.calls)
            print(f"{variant or 'default':60s} {uid} span {spans[-1][1]:7.1f} µs  kernels "
                  + "  ".join(f"[{s:.1f}-{e:.1f}]" for s, e in spans), flush=True)
    if args.host:
        apply_knobs(module, "CHUNKED_SPLIT_MIN_TOKENS=0", defaults)
        prepare, first, second = host_times(module, workload_args(manifest[args.host]))
        print(f"host µs ({args.host}, split): prepare {prepare:.1f}  issue first {first:.1f}  issue second {second:.1f}")


if __name__ == "__main__":
    main()
