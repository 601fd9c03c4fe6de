#!/bin/bash
# Session 54 run 2: the GPU test suite at HEAD (four shards on the one GPU, without the compile check and
# test_compare.py, as session 49's run 9), after session 52-53's kernel changes (owner search, split rule).
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/run2
git log -1 --format=%H > $OUT/run2/commit.txt 2>/dev/null || true
start=$(date +%s)
for k in 0 1 2 3; do
  GDNKIT_TEST_SHARD=$k/4 timeout -k 5 540 python -m pytest -q tests --ignore tests/test_compile_check.py \
    --ignore tests/test_compare.py -p no:cacheprovider --durations 5 > $OUT/run2/shard-$k.txt 2>&1 &
done
wait
echo "elapsed $(( $(date +%s) - start )) s" | tee $OUT/run2/elapsed.txt
tail -n 3 $OUT/run2/shard-*.txt
