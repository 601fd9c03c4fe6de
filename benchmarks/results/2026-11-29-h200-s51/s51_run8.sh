#!/bin/bash
# Session 51, run 8: the committed benchmarks/scan_step.py (pair loop with its gates option) and its tests.
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r/c64 $OUT/r/c2 $OUT/r/c1
timeout 100 python -m pytest -q -p no:cacheprovider tests/test_scan_step.py 2>&1 | tail -3 | tee $OUT/r/s51-run8-test.txt
timeout 80 python benchmarks/scan_step.py --out $OUT/r/c64 2>&1 | tee $OUT/r/s51-run8-c64.txt
timeout 60 python benchmarks/scan_step.py --chunks 2 --waves 8 --out $OUT/r/c2 2>&1 | tee $OUT/r/s51-run8-c2.txt
timeout 60 python benchmarks/scan_step.py --chunks 1 --waves 16 --out $OUT/r/c1 2>&1 | tee $OUT/r/s51-run8-c1.txt
