#!/bin/bash
# Session 51, run 5: benchmarks/scan_step.py with the pair loop, persistent too, and its tests (the pair's on the GPU).
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r/c64 $OUT/r/c2 $OUT/r/c1
timeout 90 python -m pytest -q -p no:cacheprovider tests/test_scan_step.py 2>&1 | tail -3 | tee $OUT/r/s51-run5-test.txt
timeout 80 python benchmarks/scan_step.py --out $OUT/r/c64 2>&1 | tee $OUT/r/s51-run5-c64.txt
timeout 60 python benchmarks/scan_step.py --chunks 2 --waves 8 --out $OUT/r/c2 2>&1 | tee $OUT/r/s51-run5-c2.txt
timeout 60 python benchmarks/scan_step.py --chunks 1 --waves 16 --out $OUT/r/c1 2>&1 | tee $OUT/r/s51-run5-c1.txt
