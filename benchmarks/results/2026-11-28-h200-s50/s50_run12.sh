#!/bin/bash
# Session 50, run 12: benchmarks/scan_step.py (the committed form of runs 9 and 11) and its test on the GPU.
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r/l2 $OUT/r/hbm
timeout 60 python -m pytest -q -p no:cacheprovider tests/test_scan_step.py 2>&1 | tail -2 | tee $OUT/r/s50-run12-test.txt
timeout 80 python benchmarks/scan_step.py --out $OUT/r/l2 2>&1 | tee $OUT/r/s50-run12-l2.txt
timeout 80 python benchmarks/scan_step.py --hbm --out $OUT/r/hbm 2>&1 | tee $OUT/r/s50-run12-hbm.txt
