#!/bin/bash
# Session 63, run 1: three slots a solver (WARP_ROLES_DEPTH=3), alone and with two chunks' copies in flight
# (WARP_ROLES_COPY_AHEAD=2), against the default (two slots, one copy ahead); two rounds; oracle cases.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
R="default;WARP_ROLES_DEPTH=3;WARP_ROLES_DEPTH=3,WARP_ROLES_COPY_AHEAD=2"
W=a39aa135,49ef89d2,a0eb2dc2,73b8cc85,ed66c791,ba08a83e,cd979341,1b441950,fd072ba6,25d9c14d,ba95d412,bfd8f7b6,3215fe5f,len200,len300,len432,len150-150
timeout 580 python benchmarks/gpu_check.py --out $OUT/run1 --quick --no-decode --compile-jobs 15 --workloads $W \
  --prefill-variants "$R;$R" > $OUT/run1.txt 2>&1
echo "rc $?" >> $OUT/run1.txt
grep "worst err\|^workloads\|FAIL\|rc " $OUT/run1.txt | cut -c1-300
