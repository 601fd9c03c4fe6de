#!/bin/bash
# Session 50, run 1: wide split scans load their state in the chunk loop's first pass, after the
# pipeline's prologue (CHUNKED_SPLIT_LATE_STATE), on the 30 split inputs, two rounds interleaved, each call
# checked against the reference; then the split-launch GPU tests and the scratch test with the knob.
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=a9540651,5d3fc66a,07aa7922,cc310f94,c2931c92,b8c8dc3c,7ba9d519,5b8a0e4b,618df04a,5835a2bc,26244fb4,9a5d694b,4b6143dd,e9e1e445,d0ce7b5d,d49df0b2,06f21bb1,410794d4,a2629e02,f4926229,e44ba4d3,e286a4f4,aaa378be,c2bb4f66,c358edcd,6f1ad833,a01a3f93,a87ded8a,15856e8c,109addb1
P=CHUNKED_SPLIT_LATE_STATE
timeout 400 python benchmarks/arch_rehearsal.py --out $OUT/r --compile-jobs 15 --no-decode --workloads $W \
  --variants "default;$P=1;default;$P=1" 2>&1 | tee $OUT/r/s50-run1-late-state.txt
timeout 150 python -m pytest -q -p no:cacheprovider tests/test_zz_late_scratch.py tests/test_prefill_kernel.py -k "late or split_launches or wide_tiles" 2>&1 | tail -5 | tee $OUT/r/s50-run1-tests.txt
cd $OUT && tar czf s50-run1.tgz r && rm -rf r
