#!/bin/bash
# Session 59, run 5: the route-tuning GPU tests again (the split cases' assertion fixed), then all 100 workloads
# routed as a B200 with both candidates measured, beside the H200's routing.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
t0=$(date +%s)
timeout 120 python -m pytest -q -p no:cacheprovider tests/test_route_tuning.py > $OUT/run5-tests.txt 2>&1
echo "tests rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run5-tests.txt
t0=$(date +%s)
timeout 270 python benchmarks/arch_rehearsal.py --out $OUT --no-decode --compile-jobs 14 \
  --variants "ARCH=sm100;default" > $OUT/run5-rehearsal.txt 2>&1
echo "rehearsal rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run5-rehearsal.txt
tail -3 $OUT/run5-tests.txt; tail -12 $OUT/run5-rehearsal.txt
