#!/bin/bash
# Session 55 run 2: transition records from a P T record (CHUNKED_TRANSITION_PT), A/B, two rounds, our kernel
# alone; then the GPU tests that take the knob.
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
W=a9540651,5d3fc66a,cc310f94,07aa7922,7ba9d519,5b8a0e4b,f4926229,6f1ad833,c5257f65,9c1ef562,a01a3f93,06f21bb1,a2629e02
PT=CHUNKED_TRANSITION_PT=1
timeout -k 5 420 python benchmarks/gpu_check.py --out $OUT/r --quick --no-decode --compile-jobs 14 --workloads $W \
  --prefill-variants "default;$PT;default;$PT" 2>&1 | grep -v "host .*compiled" > $OUT/r/s55-run2.txt
tail -9 $OUT/r/s55-run2.txt
timeout -k 5 120 python -m pytest -q -p no:cacheprovider tests/test_prefill_kernel.py -k "pt_record or hard_inputs or split_launches or transition" 2>&1 | tail -4 | tee $OUT/r/s55-run2-tests.txt
