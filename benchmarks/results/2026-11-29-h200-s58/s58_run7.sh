#!/bin/bash
# Session 58 run 7: the GPU suite (four shards on the one GPU), without the compile check and test_compare.py.
source .whl/env.sh; export PYTHONPATH=$PWD:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/suite
start=$(date +%s)
for k in 0 1 2 3; do GDNKIT_TEST_SHARD=$k/4 timeout 540 python -m pytest -q -p no:cacheprovider tests --ignore=tests/test_compile_check.py --ignore=tests/test_compare.py > $OUT/suite/shard-$k.txt 2>&1 & done; wait
echo "seconds $(( $(date +%s) - start ))"
for k in 0 1 2 3; do tail -1 $OUT/suite/shard-$k.txt; done
grep -h "FAILED\|ERROR" $OUT/suite/shard-*.txt | head -20
