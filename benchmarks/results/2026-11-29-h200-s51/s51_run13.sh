#!/bin/bash
# Session 51, run 13: the mended benchmarks/scan_step.py's tests on the GPU (the pair loop's among them).
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout 100 python -m pytest -q -p no:cacheprovider tests/test_scan_step.py 2>&1 | tail -3 | tee $OUT/r/s51-run13-test.txt
