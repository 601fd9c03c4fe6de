#!/bin/bash
# Session 63 run 5: the GPU tests that the three-slot rule touches (warp-role kernel, B200 routing), four shards
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
for k in 0 1 2 3; do
  ( GDNKIT_TEST_SHARD=$k/4 timeout -k 5 480 python -m pytest -q -p no:cacheprovider tests/test_prefill_kernel.py \
      tests/test_route_tuning.py -k "warp_roles or b200 or measuring or route" > $OUT/run5-shard$k.txt 2>&1;
    echo "shard $k rc $?" >> $OUT/run5-shard$k.txt ) &
done
wait
tail -n 3 $OUT/run5-shard*.txt
