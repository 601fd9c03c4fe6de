#!/bin/bash
# Session 51, run 6: the pair loop's gate vectors from the storer warps, one or two output slots, A/B; GPU tests.
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout 100 python -m pytest -q -p no:cacheprovider tests/test_scan_step.py 2>&1 | tail -3 | tee $OUT/r/s51-run6-test.txt
timeout 150 python build/s51_run6.py $OUT/r 2>&1 | tee $OUT/r/s51-run6-ab.txt
