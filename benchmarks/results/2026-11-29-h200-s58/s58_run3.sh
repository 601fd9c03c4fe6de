#!/bin/bash
# Session 58 run 3: bit-for-bit repeatability of the prefill's hand-offs under timing noise; compute-sanitizer if present.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
(which compute-sanitizer; ls -d /usr/local/cuda*/bin/compute-sanitizer /usr/local/cuda*/compute-sanitizer 2>/dev/null; nvidia-smi --query-gpu=name,driver_version --format=csv) > $OUT/env.txt 2>&1
timeout 420 python benchmarks/race_smoke.py --repeats 20 --json $OUT/race_smoke.json > $OUT/race_smoke.txt 2>&1
echo "rc $?" >> $OUT/race_smoke.txt
cat $OUT/env.txt; cat $OUT/race_smoke.txt | grep -v Warning | tail -30
CS=$(which compute-sanitizer 2>/dev/null || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -n "$CS" ]; then
  cat > /tmp/one.py <<'PY'
import sys, torch
from gdnkit.inputs import prefill_inputs, seeded_generator
from gdnkit.kernels import load_kernel_module
p = load_kernel_module("gdn_prefill")
for s in ([61], [1, 45], [300], [30, 30, 30]):
    x = prefill_inputs(s, seeded_generator(0, *s), device="cuda")
    T = x["q"].shape[0]
    p.run(*x.values(), torch.empty(T, 8, 128, dtype=torch.bfloat16, device="cuda"), torch.empty(len(s), 8, 128, 128, device="cuda"))
torch.cuda.synchronize(); print("done")
PY
  for tool in racecheck synccheck; do timeout 100 $CS --tool $tool python /tmp/one.py > $OUT/sanitizer-$tool.txt 2>&1; tail -5 $OUT/sanitizer-$tool.txt; done
fi
