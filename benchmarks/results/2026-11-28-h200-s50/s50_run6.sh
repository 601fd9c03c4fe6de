#!/bin/bash
# Session 50, run 6: run 4's TMA wide scans with the descriptors encoded before the first launch (direct issue
# on), against the default, on the 19 wide inputs, two rounds, each call checked; the scratch GPU tests first.
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
timeout 100 python -m pytest -q -p no:cacheprovider tests/test_zz_tma_scratch.py tests/test_prefill_kernel.py -k "tma or split_launches or direct" 2>&1 | tail -4 | tee $OUT/r/s50-run6-tests.txt
W=7ba9d519,4b6143dd,07aa7922,a9540651,cc310f94,5835a2bc,d0ce7b5d,5d3fc66a,5b8a0e4b,618df04a,c2931c92,b8c8dc3c,e9e1e445,410794d4,26244fb4,a2629e02,d49df0b2,06f21bb1,9a5d694b
timeout 360 python benchmarks/arch_rehearsal.py --out $OUT/r --compile-jobs 15 --no-decode --workloads $W \
  --variants "default;CHUNKED_SPLIT_WIDE_TMA=1;default;CHUNKED_SPLIT_WIDE_TMA=1" 2>&1 | tee $OUT/r/s50-run6-tma.txt
cd $OUT && tar czf s50-run6.tgz r && rm -rf r
