#!/bin/bash
# Session 59, run 4: split launches as a measured candidate on the B200's routing (ROUTE_TUNING_SPLIT), the
# 29 inputs that get it, against the B200's own route and the H200's routing; the route-tuning GPU tests.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
t0=$(date +%s)
timeout 200 python -m pytest -q -p no:cacheprovider tests/test_route_tuning.py > $OUT/run4-tests.txt 2>&1
echo "tests rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run4-tests.txt
W=$(python -c 'import json; print(",".join(json.load(open("build/s59_split_candidates.json"))))')
t0=$(date +%s)
timeout 330 python benchmarks/arch_rehearsal.py --out $OUT --no-decode --compile-jobs 14 --workloads $W \
  --variants "ARCH=sm100,ROUTE_TUNING_ARCHES=;ARCH=sm100;default" > $OUT/run4-rehearsal.txt 2>&1
echo "rehearsal rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run4-rehearsal.txt
tail -5 $OUT/run4-tests.txt; tail -14 $OUT/run4-rehearsal.txt
