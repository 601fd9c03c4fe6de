#!/bin/bash
# Session 50, run 10: the tensor pipes' load in 06f21bb1's scan launch (ncu), the measurement session 49 got n/a for.
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH:$PWD/benchmarks PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
NCU=$(which ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
timeout 60 $NCU --query-metrics --chip gh100 2>&1 | grep -i "tensor" | tee $OUT/r/s50-run10-tensor-metrics.txt | head -40
python benchmarks/profile_prefill.py 06f21bb1 2>&1 | tail -1
timeout 300 $NCU --clock-control none -k regex:gdn --launch-skip 4 --launch-count 2 \
  --metrics "regex:sm__pipe_tensor.*cycles_active.avg.pct_of_peak_sustained_active,regex:sm__inst_executed_pipe_tensor.*sum,sm__cycles_active.avg,gpu__time_duration.sum,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active" \
  python benchmarks/profile_prefill.py 06f21bb1 > $OUT/r/s50-run10-ncu.txt 2>&1
echo "ncu rc $?"
grep -v "^==PROF==" $OUT/r/s50-run10-ncu.txt | tail -60
