#!/bin/bash
# Session 59, run 3: the GPU suite (four shards) on the final measuring rule, then the 45 candidate inputs
# (and four controls) routed as a B200 against both routings.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/suite
start=$(date +%s)
for k in 0 1 2 3; do GDNKIT_TEST_SHARD=$k/4 timeout 330 python -m pytest -q -p no:cacheprovider tests --ignore=tests/test_compile_check.py --ignore=tests/test_compare.py --deselect tests/test_routes.py::test_routes_beside_a_committed_run > $OUT/suite/shard-$k.txt 2>&1 & done; wait
echo "suite seconds $(( $(date +%s) - start ))" > $OUT/run3-suite.txt
for k in 0 1 2 3; do tail -1 $OUT/suite/shard-$k.txt; done >> $OUT/run3-suite.txt
grep -h "FAILED\|ERROR" $OUT/suite/shard-*.txt | head -20 >> $OUT/run3-suite.txt
W=$(python -c 'import json; print(",".join(json.load(open("build/s59_candidates.json"))))')
t0=$(date +%s)
timeout 200 python benchmarks/arch_rehearsal.py --out $OUT --no-decode --compile-jobs 14 --workloads $W \
  --variants "ARCH=sm100,ROUTE_TUNING_ARCHES=;ARCH=sm100;default" > $OUT/run3-rehearsal.txt 2>&1
echo "rehearsal rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run3-rehearsal.txt
# the first call's cost with the kernels compiled (a fresh process, Triton's disk cache warm)
timeout 60 python - > $OUT/run3-first-call.txt 2>&1 <<'PY'
import time, torch
from gdnkit.kernels import load_kernel_module
from gdnkit.inputs import prefill_inputs, seeded_generator
p = load_kernel_module("gdn_prefill")
p._arch = lambda device: "sm100"
for lens in ([49], [1, 45], [3, 29], [59, 282]):
    x = prefill_inputs(lens, seeded_generator(0), device="cuda")
    T, N = sum(lens), len(lens)
    out = torch.empty(T, 8, 128, dtype=torch.bfloat16, device="cuda"); st = torch.empty(N, 8, 128, 128, device="cuda")
    times = []
    for call in range(3):
        torch.cuda.synchronize(); t0 = time.perf_counter()
        p.run(*x.values(), out, st); torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    tun = [t for k, t in p._ROUTE_TUNINGS.items() if k[1:3] == (T, N)][0]
    print(lens, "ms per call:", " ".join(f"{t:.2f}" for t in times), "| kept", tun.route.label, tun.times_us)
PY
cat $OUT/run3-suite.txt; tail -12 $OUT/run3-rehearsal.txt; cat $OUT/run3-first-call.txt
