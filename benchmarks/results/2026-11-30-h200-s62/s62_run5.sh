#!/bin/bash
# Session 62, run 5: exp(G_last) reduced in registers (WARP_ROLES_DECAY_IN_THREAD) against the default, three
# rounds, on warp-role inputs of one to three sequences; every variant through gpu_check's oracle cases.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
R="default;WARP_ROLES_DECAY_IN_THREAD=1"
W=ef9515b6,85d7becb,d5f5c00c,d8f4a9ae,9343fd82,a39aa135,2ba465c0,1cf8e175,fdf5f1f4,49ef89d2,73b8cc85,ba08a83e,ba95d412,bfd8f7b6,e92dafeb,len300,len432
timeout 560 python benchmarks/gpu_check.py --out $OUT/run5 --quick --no-decode --compile-jobs 15 --workloads $W \
  --prefill-variants "$R;$R;$R" > $OUT/run5.txt 2>&1
echo "rc $?" >> $OUT/run5.txt
grep "worst err\|^workloads" $OUT/run5.txt | cut -c1-300
