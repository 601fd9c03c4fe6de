"""Scratch (session 56): does a loop run slower when its code lies past 64 KB from the kernel's start?

One hot loop (ITER iterations of BODY steps x = x * a + b on 8 fp32 values a thread: BODY * 8 independent FFMAs,
about 13 KB of SASS for BODY = 100), preceded in the binary by a branch that never runs (pad_flag = 0 at run time)
holding PAD * 8 FFMAs: the same loop at another address. 132 CTAs of 4 warps (one an SM, as the split scan runs).
--sass: compile for sm90 here and print the loop's address per PAD (no GPU). Else time each PAD on the GPU
(CUDA events, median of 20 launches, rounds interleaved).
"""
import argparse
import statistics
import subprocess
import tempfile
from pathlib import Path

import torch
import triton
import triton.language as tl


@triton.jit
def placement_kernel(x_ptr, out_ptr, n_iter, pad_flag, a, b, PAD: tl.constexpr, BODY: tl.constexpr,
                     N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if PAD > 0:
        if pad_flag > 0:   # never at run time: code that only moves the loop
            y = x
            for j in tl.static_range(PAD):
                y = y * a + j
            tl.store(out_ptr + offs, y)
    for it in range(n_iter):
        for j in tl.static_range(BODY):
            x = x * a + b
    tl.store(out_ptr + offs, x)


PADS = [0, 1200, 2400, 3600, 4200, 4800, 6000, 8000]


def compile_sass(pad, body):
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from gdnkit import compile_check as cc
    src = ASTSource(fn=placement_kernel, signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n_iter": "i32",
                                                    "pad_flag": "i32", "a": "fp32", "b": "fp32", "PAD": "constexpr",
                                                    "BODY": "constexpr", "N": "constexpr"},
                    constexprs={(6,): pad, (7,): body, (8,): 1024})
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    with tempfile.TemporaryDirectory() as d:
        sass = cc._cuobjdump_text(k.asm["cubin"], Path(d), "-sass")
    return [(hex(l["start"]), l["instructions"]) for l in cc.sass_loops(sass) if l["instructions"] > 100]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sass", action="store_true")
    p.add_argument("--body", type=int, default=100)
    p.add_argument("--iters", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--pads", default=",".join(map(str, PADS)))
    args = p.parse_args()
    pads = [int(v) for v in args.pads.split(",")]
    if args.sass:
        for pad in pads:
            print(pad, compile_sass(pad, args.body))
        return
    grid = 132
    x = torch.rand(grid * 1024, device="cuda")
    out = torch.empty_like(x)
    times = {pad: [] for pad in pads}
    for pad in pads:   # compile and warm each
        placement_kernel[(grid,)](x, out, args.iters, 0, 0.999, 0.001, PAD=pad, BODY=args.body, N=1024, num_warps=4)
    torch.cuda.synchronize()
    for _ in range(args.rounds):
        for pad in pads:
            for _ in range(20):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                placement_kernel[(grid,)](x, out, args.iters, 0, 0.999, 0.001, PAD=pad, BODY=args.body, N=1024,
                                          num_warps=4)
                e.record()
                e.synchronize()
                times[pad].append(s.elapsed_time(e) * 1000)
    base = statistics.median(times[pads[0]])
    for pad in pads:
        med = statistics.median(times[pad])
        per = med / args.iters * 1000
        print(f"PAD {pad:5d}: {med:9.1f} us  {per:7.1f} ns an iteration  {med / base:6.3f}x")


if __name__ == "__main__":
    main()
