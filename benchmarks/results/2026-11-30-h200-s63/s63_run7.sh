#!/bin/bash
# Session 63, run 7: the solver warps' register cap (WARP_ROLES_SOLVER_REGS) at 120, 192, 232 against 152; three rounds
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
R="default;WARP_ROLES_SOLVER_REGS=120;WARP_ROLES_SOLVER_REGS=192;WARP_ROLES_SOLVER_REGS=232"
W=85d7becb,d5f5c00c,d8f4a9ae,9343fd82,a39aa135,1cf8e175,fdf5f1f4,cd979341,ba08a83e
timeout 400 python benchmarks/gpu_check.py --out $OUT/run7 --quick --no-decode --compile-jobs 15 --workloads $W \
  --prefill-variants "$R;$R;$R" > $OUT/run7.txt 2>&1
echo "rc $?" >> $OUT/run7.txt
grep "worst err\|^workloads\|FAIL\|rc \|^|" $OUT/run7.txt | cut -c1-330
