"""Where the time of split prefill launches goes, call by call, under the contest's timing loop.

The contest's harness (flashinfer.testing.bench_gpu_time_with_cupti) zeroes a 2 x L2 buffer, calls
the solution, synchronises, and takes the CUPTI span from the first to the last GPU activity of the
call. Inputs that take two launches (prep programs, then scans: CHUNKED_SPLIT_MIN_TOKENS) have
measured 15-35% apart between rounds of unchanged code. This script runs the same loop with the same
CUPTI activity kinds enabled (kernels, and the runtime and driver API calls, whose recording also
costs the host time) and records, for every call, on one clock (CUPTI's: the GPU's times are
converted to the host's):

    span       first kernel start to last kernel end (what the harness keeps)
    kernels    each launch's kernel [start, end]      (from the first kernel's start)
    issues     when the host called the driver's launch for each kernel (from the first kernel's
               start; a negative time: before the GPU started it)

It prints per workload the median and [min, max] of each, every API call of the median call, and
nine calls from the fastest to the slowest, so a slow call shows whether its scans started late
(the host issued them late) or ran long. With --out the JSON holds every call (the API calls of
the median call only).

    python benchmarks/split_spread.py --workloads 7ba9d519,4b6143dd --calls 40 [--variants "default;KNOB=v"]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics as st
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from gpu_check import apply_knobs, knob_defaults, parse_variants, workload_args  # noqa: E402

from gdnkit import PREFILL  # noqa: E402
from gdnkit.dataset import load_manifest  # noqa: E402
from gdnkit.kernels import load_kernel_module  # noqa: E402
from gdnkit.timing import _flush_buffer  # noqa: E402


def traced_calls(fn, args, calls, gc_off=False):
    """One record per call (see calls_from_records) under the harness's loop (flush, call,
    synchronise) with CUPTI's kernel, runtime and driver activities on."""
    from cupti import cupti

    flush = _flush_buffer("cuda")   # (2 x L2, as the harness and gdnkit's timing use)
    kernels, apis = [], []

    def requested():
        return 8 * 1024 * 1024, 0

    def completed(activities):
        for a in activities:
            if a.kind == cupti.ActivityKind.CONCURRENT_KERNEL:
                kernels.append((a.start, a.end, a.correlation_id))
            elif a.kind in (cupti.ActivityKind.RUNTIME, cupti.ActivityKind.DRIVER):
                apis.append((a.start, a.end, a.correlation_id, _api_name(cupti, a)))

    for _ in range(6):   # as the harness: one call, five for its estimate, one warm-up
        flush.zero_()
        fn(*args)
    torch.cuda.synchronize()
    kinds = (cupti.ActivityKind.RUNTIME, cupti.ActivityKind.CONCURRENT_KERNEL, cupti.ActivityKind.DRIVER)
    for kind in kinds:
        cupti.activity_enable(kind)
    cupti.activity_register_callbacks(requested, completed)
    windows = []
    if gc_off:
        gc.disable()
    try:
        for _ in range(calls):
            flush.zero_()
            t0 = cupti.get_timestamp()
            fn(*args)
            t1 = cupti.get_timestamp()
            torch.cuda.synchronize()
            windows.append((t0, t1))
    finally:
        if gc_off:
            gc.enable()
        cupti.activity_flush_all(0)
        for kind in kinds:
            cupti.activity_disable(kind)
        cupti.finalize()
    return calls_from_records(windows, kernels, apis)


def calls_from_records(windows, kernels, apis):
    """For each call's host window (start, end; ns), the kernels that API calls inside it launched
    (matched by correlation id) and those API calls, in µs from the call's first kernel start:
    {span, kernels: [(start, end)], issues: [launching API call's start], api: [(name, start, end)],
    call: (window start, end)}. Windows that launched no kernel are left out. kernels: (start, end,
    correlation id); apis: (start, end, correlation id, name); all in ns on one clock."""
    by_corr = {}
    for start, end, corr in kernels:
        by_corr.setdefault(corr, []).append((start, end))
    out = []
    for t0, t1 in windows:
        launched = sorted((s, c) for s, e, c, _ in apis if t0 <= s <= t1 and c in by_corr)
        ks = sorted(k for _, c in launched for k in by_corr[c])
        if not ks:
            continue
        first = ks[0][0]
        out.append({"span": (max(e for _, e in ks) - first) / 1e3,
                    "kernels": [((s - first) / 1e3, (e - first) / 1e3) for s, e in ks],
                    "issues": [(s - first) / 1e3 for s, _ in launched],
                    # every API call of the call: (name, start, end) µs from the first kernel's start
                    "api": [(n, (s - first) / 1e3, (e - first) / 1e3) for s, e, c, n in sorted(apis) if t0 <= s <= t1],
                    "call": ((t0 - first) / 1e3, (t1 - first) / 1e3)})
    return out


def _api_name(cupti, activity):
    """The driver or runtime function's name of an API activity record, or its callback id."""
    try:
        if activity.kind == cupti.ActivityKind.DRIVER:
            return cupti.driver_api_trace_cbid(activity.cbid).name
        return cupti.runtime_api_trace_cbid(activity.cbid).name
    except Exception:   # (enum names differ between cupti-python versions)
        return f"{activity.kind.name}:{activity.cbid}"


def summary(rows):
    """Median and [min, max] of the span, of each kernel's start and end and of each issue time."""
    def stat(values):
        return {"median": st.median(values), "min": min(values), "max": max(values)}
    n = min(len(r["kernels"]) for r in rows)
    return {"span": stat([r["span"] for r in rows]),
            "kernels": [{"start": stat([r["kernels"][i][0] for r in rows]),
                         "end": stat([r["kernels"][i][1] for r in rows])} for i in range(n)],
            "issues": [stat([r["issues"][i] for r in rows]) for i in range(min(len(r["issues"]) for r in rows))]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workloads", required=True, help="comma-separated uuid prefixes")
    ap.add_argument("--variants", default="default", help="KNOB=v,KNOB=v;...;default")
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--gc-off", action="store_true", help="also run each with Python's collector off")
    ap.add_argument("--out", default=None, help="write split_spread.json here")
    args = ap.parse_args()
    module = load_kernel_module("gdn_prefill")
    defaults = knob_defaults(module)
    manifest = {w["uuid"][:8]: w for w in load_manifest()[PREFILL]}
    report = {"device": torch.cuda.get_device_name(), "runs": []}
    for variant in parse_variants(args.variants):
        apply_knobs(module, variant, defaults)
        for uid in args.workloads.split(","):
            x = workload_args(manifest[uid])
            for gc_off in ((False, True) if args.gc_off else (False,)):
                rows = traced_calls(module.run, x, args.calls, gc_off)
                s = summary(rows)
                report["runs"].append({"variant": variant, "workload": uid, "gc_off": gc_off, "summary": s,
                                       "calls": rows})
                ks = " ".join(f"k{i}[{k['start']['median']:.1f}..{k['end']['median']:.1f}]"
                              for i, k in enumerate(s["kernels"]))
                iss = " ".join(f"{i['median']:.1f}" for i in s["issues"])
                print(f"{variant or 'default'} {uid} gc_off={gc_off}: span median {s['span']['median']:.1f} "
                      f"[{s['span']['min']:.1f}, {s['span']['max']:.1f}] | {ks} | issued at {iss}", flush=True)
                by_span = sorted(rows, key=lambda r: r["span"])
                median = by_span[len(rows) // 2]
                for r in rows:   # (the API records of every call would make the file megabytes)
                    if r is not median:
                        r.pop("api")
                print("    the median call: run() from {:.1f} to {:.1f}; API calls: {}".format(
                    *median["call"], ", ".join(f"{n} {a:.1f}..{b:.1f}" for n, a, b in median["api"])))
                for r in by_span[::max(1, len(rows) // 8)] + by_span[-1:]:   # from the fastest to the slowest
                    print("    span {:6.1f}  kernels {}  issued {}".format(
                        r["span"], " ".join(f"[{a:.1f}, {b:.1f}]" for a, b in r["kernels"]),
                        " ".join(f"{t:.1f}" for t in r["issues"])))
    if args.out:
        Path(args.out, "split_spread.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
