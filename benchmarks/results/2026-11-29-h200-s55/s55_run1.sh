#!/bin/bash
# Session 55 run 1: what carrying the transition form costs the split launches of 8192 tokens that do not
# use it, and where: default / no form at all (MAX_TOKENS 8191) / the form in the prep launch only (scratch:
# the scan launch compiled without it; right, the narrow tiles then step from T and P) / the prep's
# transition chunks on a copy of the prep of their own (CHUNKED_TRANSITION_OWN_PATH). A/B, two rounds.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=06f21bb1,a2629e02,410794d4,d49df0b2,e9e1e445,9a5d694b,a9540651,5b8a0e4b
NONE=CHUNKED_SPLIT_TRANSITION_MAX_TOKENS=8191
PREP=SCRATCH_SPLIT_SCAN_TRANSITION=0
OWN=CHUNKED_TRANSITION_OWN_PATH=1
timeout -k 5 560 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "default;$NONE;$PREP;$OWN;default;$NONE;$PREP;$OWN" 2>&1 | grep -v "host .*compiled" > $OUT/r/s55-run1.txt
tail -14 $OUT/r/s55-run1.txt
