#!/bin/bash
# Session 50, run 2: folded records (CHUNKED_RECORDS_FOLDED: T diag(beta) and scale P) on every prefill
# workload, two rounds interleaved, each call checked against the reference; then the scratch and
# record-path GPU tests with the knob.
source .whl/env.sh
export PYTHONPATH=$PWD:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/r
P=CHUNKED_RECORDS_FOLDED
timeout 470 python benchmarks/arch_rehearsal.py --out $OUT/r --compile-jobs 15 --no-decode \
  --variants "default;$P=1;default;$P=1" 2>&1 | tee $OUT/r/s50-run2-folded.txt
timeout 100 python -m pytest -q -p no:cacheprovider tests/test_zz_fold_scratch.py 2>&1 | tail -3 | tee $OUT/r/s50-run2-tests.txt
cd $OUT && tar czf s50-run2.tgz r && rm -rf r
