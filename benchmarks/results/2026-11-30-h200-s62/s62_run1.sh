#!/bin/bash
# Session 62, run 1: the B200's first-call measuring on the 7-16-token shapes, rehearsed on the H200 routed as
# a B200 (ARCH=sm100): the contest's six 12-16-token inputs and two controls (6 and 18 tokens) in three
# variants; the decision's stability over five fresh first calls per shape on small shapes; the route-tuning
# GPU tests (new cases [8], [16], [3, 5], [5, 5, 6]).
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > $OUT/gpu.txt
W=8e7ef744,685d26ff,eaa0fd47,ef9515b6,f622a11d,339a7ff4,77daf91d,85d7becb
t0=$(date +%s)
timeout 240 python benchmarks/arch_rehearsal.py --out $OUT --no-decode --compile-jobs 14 --workloads $W \
  --variants "ARCH=sm100,ROUTE_TUNING_ARCHES=;ARCH=sm100;default" > $OUT/run1-rehearsal.txt 2>&1
echo "rehearsal rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run1-rehearsal.txt
t0=$(date +%s)
timeout 150 python - > $OUT/run1-decisions.txt 2>&1 <<'PY'
import torch
from gdnkit.kernels import load_kernel_module
from gdnkit.inputs import prefill_inputs, seeded_generator
p = load_kernel_module("gdn_prefill")
p._arch = lambda device: "sm100"
shapes = [[7], [8], [9], [12], [13], [14], [16], [3, 5], [10, 5], [5, 5, 6], [1, 1, 14], [18], [31], [49], [61]]
for lens in shapes:
    x = prefill_inputs(lens, seeded_generator(0), device="cuda")
    T, N = sum(lens), len(lens)
    rows = []
    for trial in range(5):
        p._ROUTE_TUNINGS.clear()
        p.run(*x.values(), torch.empty(T, 8, 128, dtype=torch.bfloat16, device="cuda"),
              torch.empty(N, 8, 128, 128, device="cuda"))
        (tun,) = p._ROUTE_TUNINGS.values()
        (a, ta), (b, tb) = tun.times_us
        rows.append(f"{tun.route.label}:{ta:.2f}/{tb:.2f}={tb / ta:.3f}")
    print(lens, a, "vs", b, "|", "  ".join(rows), flush=True)
PY
echo "decisions rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run1-decisions.txt
t0=$(date +%s)
timeout 150 python -m pytest -q -p no:cacheprovider tests/test_route_tuning.py > $OUT/run1-tests.txt 2>&1
echo "tests rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run1-tests.txt
tail -30 $OUT/run1-rehearsal.txt; cat $OUT/run1-decisions.txt; tail -5 $OUT/run1-tests.txt
