#!/bin/bash
# Session 61 run 3: the new small-input rule (recurrent up to 6 tokens, or 8 in four sequences or more; the
# warp-role kernel from 7 tokens) against session 60's, three rounds; then the GPU tests of the kernels it routes to.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
R="RECURRENT_MAX_TOKENS=8,WARP_ROLES_MIN_TOKENS=17;default;RECURRENT_MANY_SEQS_MIN_SEQS=3;WARP_ROLES_MIN_TOKENS=17"
timeout 330 python benchmarks/gpu_check.py --out $OUT/run3 --quick --no-decode --compile-jobs 15 --workloads 77daf91d,8e7ef744,685d26ff,eaa0fd47,ef9515b6,f622a11d,339a7ff4,85d7becb,2ba465c0,len7,len8,len3-5,len2-2-3,len1-3-4,len5-5-6,len1-1-14,len4-4-4-4 --prefill-variants "$R;$R;$R" > $OUT/run3.txt 2>&1
grep "worst err\|^workloads" $OUT/run3.txt | cut -c1-260
timeout 250 python -m pytest -q -p no:cacheprovider tests/test_prefill_kernel.py tests/test_route_tuning.py tests/test_routes.py -k "warp_roles or recurrent or route or label or rule or tun" -x > $OUT/run3-tests.txt 2>&1
tail -3 $OUT/run3-tests.txt; grep -h "FAILED\|Error" $OUT/run3-tests.txt | head
