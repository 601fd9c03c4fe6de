"""What the L2's eviction policy does to a copy of decode-sized state after the contest's L2 flush.

The contest flushes the L2 before every timed call by zeroing a buffer of twice its size, so each call
starts with an L2 full of dirty lines, and every line a kernel brings in may first have to write one
back. This benchmark copies B x 512 KB of fp32 (the decode state of batch B) with a Triton kernel under
several load/store policies and CTA shapes, beside torch's copy_, and times it three ways: the contest's
(CUPTI span after the zeroing flush, gdnkit.timing), and CUDA events after a zeroing flush or after a
reading flush (which leaves the L2 full of clean lines).

On the H200 (session 57, notes/decode.md): the dirty lines cost 15-17% of the copy from B = 16 (0.2 µs at
B = 1, 3 µs at B = 64), no policy gets that back (within -3..+4% of the default), and a Triton copy takes
5-8% less than torch's at B = 16-32, so torch's copy_ (the repository's "state copy" anchor) is not the
floor. The CTA's size hardly matters (one-warp CTAs of 2 and 4 KB level at B = 1).

    python benchmarks/l2_policy_copy.py --out results.json [--batches 1,8,32] [--shapes 1024x1,4096x4]
"""

from __future__ import annotations

import argparse
import json
import statistics

import torch
import triton
import triton.language as tl

from gdnkit.timing import time_call

STATE_BYTES = 8 * 128 * 128 * 4          # one batch row of the decode state
POLICIES = {
    # name: (load eviction_policy, store eviction_policy, store cache_modifier)
    "default": ("", "", ""),
    "load evict_first": ("evict_first", "", ""),
    "load evict_first, store evict_last": ("evict_first", "evict_last", ""),
    "store evict_last": ("", "evict_last", ""),
    "load evict_first, store .cs": ("evict_first", "", ".cs"),
}
# CTA shapes: (fp32 elements a program, warps). Every warp moves 4 KB, as a decode warp of a [8, 128]
# fp32 state tile does; the decode runs one-warp CTAs (of 2 KB, a [4, 128] tile, up to batch 16).
SHAPES = [(4096, 4), (1024, 1), (2048, 2)]


@triton.jit
def _copy_kernel(src, dst, LOAD_EVICT: tl.constexpr, STORE_EVICT: tl.constexpr, STORE_CACHE: tl.constexpr,
                 BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(src + offs, eviction_policy=LOAD_EVICT)
    tl.store(dst + offs, x, eviction_policy=STORE_EVICT, cache_modifier=STORE_CACHE)


def copier(policy, block, warps):
    load, store, cache = POLICIES[policy]

    def copy(src, dst):
        _copy_kernel[(src.numel() // block,)](src, dst, LOAD_EVICT=load, STORE_EVICT=store, STORE_CACHE=cache,
                                              BLOCK=block, num_warps=warps)
    return copy


def torch_copy(src, dst):
    dst.copy_(src)


def time_events(fn, args, flush_kind, iterations=30):
    """Median µs of fn(*args) by CUDA events after a flush that zeroes (dirty L2) or reads (clean L2)
    a buffer of twice the L2. A sleep kernel after the flush keeps the GPU busy while the host issues
    the start event and the launch, so the span holds the kernel and not the launch's host time."""
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2 // 4, dtype=torch.float32, device="cuda")
    flush.zero_()
    sink = torch.empty(1, device="cuda")
    fn(*args)
    times = []
    for _ in range(iterations):
        if flush_kind == "zero":
            flush.zero_()
        else:
            torch.sum(flush, dim=0, keepdim=True, out=sink)
        torch.cuda._sleep(200_000)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", default="1,4,8,16,32,48,64,96,128")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--shapes", help="CTA shapes as ELEMENTSxWARPS,... (default: the SHAPES above)")
    ap.add_argument("--out")
    args = ap.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    shapes = [tuple(int(x) for x in item.split("x")) for item in args.shapes.split(",")] if args.shapes else SHAPES
    rows = []
    for rnd in range(args.rounds):
        for batch in batches:
            src = torch.randn(batch * STATE_BYTES // 4, device="cuda")
            dst = torch.full_like(src, float("nan"))
            copies = [("torch copy_", torch_copy)] + [
                (f"{policy}, {warps} warps x {block * 4 // warps // 1024} KB", copier(policy, block, warps))
                for block, warps in shapes for policy in POLICIES if policy in ("default", "load evict_first")
                or (block, warps) == shapes[0]]
            for name, fn in copies:
                dst.fill_(float("nan"))
                fn(src, dst)
                torch.cuda.synchronize()
                if not torch.equal(dst, src):
                    raise SystemExit(f"{name} B={batch}: the copy is wrong")
                ms, method = time_call(fn, (src, dst), warmup=10, iterations=50)
                row = dict(round=rnd, batch=batch, copy=name, method=method, contest_us=ms * 1000.0,
                           zero_flush_us=time_events(fn, (src, dst), "zero"),
                           read_flush_us=time_events(fn, (src, dst), "read"))
                rows.append(row)
                print(f"round {rnd} B={batch:4d} {name:<48} {method} {row['contest_us']:8.2f}  events after "
                      f"zeroing {row['zero_flush_us']:8.2f}  after reading {row['read_flush_us']:8.2f}", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(dict(device=torch.cuda.get_device_name(0), rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
