#!/bin/bash
# Session 50, run 4: TMA loads (host descriptors) of k, q, v, T and P in the split scan launch's wide tiles
# (CHUNKED_SPLIT_WIDE_TMA; direct issue off, as its control), on the 19 wide inputs, two rounds, each call
# checked against the reference; then the scratch GPU tests of the TMA path.
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout 100 python -m pytest -q -p no:cacheprovider tests/test_zz_tma_scratch.py 2>&1 | tail -4 | tee $OUT/r/s50-run4-tests.txt
W=7ba9d519,4b6143dd,07aa7922,a9540651,cc310f94,5835a2bc,d0ce7b5d,5d3fc66a,5b8a0e4b,618df04a,c2931c92,b8c8dc3c,e9e1e445,410794d4,26244fb4,a2629e02,d49df0b2,06f21bb1,9a5d694b
C=CHUNKED_SPLIT_DIRECT_ISSUE=0
timeout 420 python benchmarks/arch_rehearsal.py --out $OUT/r --compile-jobs 15 --no-decode --workloads $W \
  --variants "default;$C;$C,CHUNKED_SPLIT_WIDE_TMA=1;default;$C;$C,CHUNKED_SPLIT_WIDE_TMA=1" 2>&1 | tee $OUT/r/s50-run4-tma.txt
cd $OUT && tar czf s50-run4.tgz r && rm -rf r
