#!/bin/bash
# Session 50, run 3: per-program timeline of the late-state scans (run 1's knob) against the default.
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout 400 python build/s50_timeline_late.py --out $OUT/r --workloads 06f21bb1,a2629e02,26244fb4 \
  --variants "default;CHUNKED_SPLIT_LATE_STATE=1" 2>&1 | tee $OUT/r/s50-run3-timeline.txt
gzip $OUT/r/*.json
