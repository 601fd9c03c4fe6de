#!/bin/bash
# Session 50, run 5: per-program timeline of the TMA wide scans (run 4's knob) against cp.async, direct issue
# off in both (a host gap between the launches does not change the per-program times).
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
C=CHUNKED_SPLIT_DIRECT_ISSUE=0
timeout 300 python build/s50_timeline_tma.py --out $OUT/r --workloads 06f21bb1,a2629e02,26244fb4 \
  --variants "$C;$C,CHUNKED_SPLIT_WIDE_TMA=1" 2>&1 | tee $OUT/r/s50-run5-timeline.txt
gzip $OUT/r/*.json
