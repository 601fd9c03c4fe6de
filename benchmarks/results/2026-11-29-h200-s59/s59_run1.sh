#!/bin/bash
# Session 59, run 1: the first-call route measuring (ROUTE_TUNING_ARCHES) on the H200 routed as a B200.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
nvidia-smi -L > $OUT/gpu.txt
t0=$(date +%s)
timeout 200 python -m pytest -q -p no:cacheprovider tests/test_route_tuning.py > $OUT/run1-tests.txt 2>&1
echo "tests rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run1-tests.txt
t0=$(date +%s)
timeout 380 python benchmarks/arch_rehearsal.py --out $OUT --no-decode --compile-jobs 14 \
  --variants "ARCH=sm100,ROUTE_TUNING_ARCHES=;ARCH=sm100;default" > $OUT/run1-rehearsal.txt 2>&1
echo "rehearsal rc $? in $(( $(date +%s) - t0 ))s" >> $OUT/run1-rehearsal.txt
tail -5 $OUT/run1-tests.txt
tail -20 $OUT/run1-rehearsal.txt
