# Session 61, run 5: the GPU suite at the session's final kernel code (four shards on the one GPU).
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/suite
start=$(date +%s)
for k in 0 1 2 3; do GDNKIT_TEST_SHARD=$k/4 timeout 420 python -m pytest -q -p no:cacheprovider tests --ignore=tests/test_compile_check.py --ignore=tests/test_compare.py --deselect tests/test_routes.py::test_routes_beside_a_committed_run > $OUT/suite/shard-$k.txt 2>&1 & done; wait
echo "suite seconds $(( $(date +%s) - start ))" > $OUT/run5-suite.txt
for k in 0 1 2 3; do tail -1 $OUT/suite/shard-$k.txt; done >> $OUT/run5-suite.txt
grep -h "FAILED\|ERROR" $OUT/suite/shard-*.txt | head -20 >> $OUT/run5-suite.txt
cat $OUT/run5-suite.txt
