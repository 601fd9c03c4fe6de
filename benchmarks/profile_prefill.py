"""Run the prefill kernel on one contest workload a few times, for an external profiler:

    ncu -k regex:gdn --launch-skip 3 --launch-count 1 --set full \
        python benchmarks/profile_prefill.py ba08a83e [KNOB=v,KNOB=v]

Where each warp waits, by SASS instruction (the scan launch of a split input's third call; on the H200 with
`--clock-control none`, notes/prefill.md session 49):

    ncu --clock-control none -k regex:gdn --launch-skip 5 --launch-count 1 --section WarpStateStats \
        --section SourceCounters -o scan python benchmarks/profile_prefill.py 06f21bb1
    ncu --import scan.ncu-rep --page source --csv --print-source sass > scan-sass.csv

Synthetic inputs of the workload (gdnkit.inputs, the manifest's split), knobs as in
gpu_check.py. Prints the mean wall time per call so a run without a profiler is a smoke test."""

import sys
import time

import torch

from gdnkit import PREFILL
from gdnkit.dataset import load_manifest
from gdnkit.kernels import load_kernel_module
from gpu_check import apply_knobs, workload_args   # the same KNOB=v,KNOB=v syntax (this script's folder is on sys.path)


def main():
    uid = sys.argv[1]
    knobs = sys.argv[2] if len(sys.argv) > 2 else ""
    module = load_kernel_module("gdn_prefill")
    apply_knobs(module, knobs, {})
    work = next(w for w in load_manifest()[PREFILL] if w["uuid"].startswith(uid))
    args = workload_args(work)
    T, N = sum(work["seqlens"]), len(work["seqlens"])
    calls = 5
    module.run(*args)   # compile outside the timed loop
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        module.run(*args)
    torch.cuda.synchronize()
    print(f"{uid} T={T} N={N} {knobs or 'default'}: {(time.perf_counter() - t0) / calls * 1e6:.1f} us per call (wall)")


if __name__ == "__main__":
    main()
