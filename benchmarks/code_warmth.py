"""How much of a call's cold-L2 time is the kernel's own code coming from HBM.

The contest flushes the L2 before each call, which evicts the kernel's instructions as well as
its data. This probe times each workload three ways, with CUDA events around the call only:

    cold       flush the L2, then the call (the contest's condition)
    code-warm  flush the L2, run the same kernels once on a second copy of the inputs (same
               shapes, other buffers), then the call: its code is in L2 (and in the SMs'
               instruction caches), its data is not
    warm       no flush: code and data in L2

A long sleep kernel goes first each time, so the host has queued everything before the GPU
reaches it (no launch gaps inside the timed span). cold - code-warm is what fetching the code
costs; a large value makes static code size a target of its own.

    python benchmarks/code_warmth.py --out $OUT [--workloads 77daf91d,85d7becb,...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

WORKLOADS = "77daf91d,85d7becb,f203fdcd,2c9693b4,a0eb2dc2,ba08a83e,3a77dfec,ce832e76,6f1ad833,06f21bb1"
DECODE_BATCHES = [1, 16, 64]


def time_modes(fn, args, dummy_args, iterations=60):
    import torch

    flush = torch.empty(512 << 20, dtype=torch.int8, device="cuda")
    for _ in range(3):
        fn(*args)
        fn(*dummy_args)
    results = {}
    for mode in ("cold", "code-warm", "warm", "cold", "code-warm", "warm"):   # twice, interleaved
        times = []
        for _ in range(iterations):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(400_000)
            if mode != "warm":
                flush.zero_()
            if mode == "code-warm":
                fn(*dummy_args)
            start.record()
            fn(*args)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1000)
        results.setdefault(mode, []).append(round(statistics.median(times), 2))
    return results


def main():
    import torch

    from gdnkit import PREFILL
    from gdnkit.dataset import load_manifest
    from gdnkit.inputs import decode_inputs, seeded_generator
    from gdnkit.kernels import load_kernel_module
    from gpu_check import workload_args

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--workloads", default=WORKLOADS)
    args = ap.parse_args()
    rows = []
    prefill = load_kernel_module("gdn_prefill")
    manifest = {w["uuid"][:8]: w for w in load_manifest()[PREFILL]}
    for uid in args.workloads.split(","):
        w = manifest[uid]
        res = time_modes(prefill.run, workload_args(w), workload_args(w))
        rows.append({"kernel": "prefill", "uuid": uid, "tokens": sum(w["seqlens"]), "seqs": len(w["seqlens"]), **res})
        print(json.dumps(rows[-1]), flush=True)
    decode = load_kernel_module("gdn_decode")
    for B in DECODE_BATCHES:
        def inputs():
            x = decode_inputs(B, seeded_generator(1, B), device="cuda")
            return list(x.values()) + [torch.empty(B, 1, 8, 128, dtype=torch.bfloat16, device="cuda"),
                                       torch.empty(B, 8, 128, 128, device="cuda")]
        res = time_modes(decode.run, inputs(), inputs())
        rows.append({"kernel": "decode", "batch": B, **res})
        print(json.dumps(rows[-1]), flush=True)
    Path(args.out, "code_warmth.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
