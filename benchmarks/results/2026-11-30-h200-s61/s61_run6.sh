# Session 61, run 6: tests/test_prefill_kernel.py again on the GPU after the forced paths also turn off the recurrent kernel's many-sequence bound (four shards).
source .whl/env.sh
export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
mkdir -p $OUT/suite
start=$(date +%s)
for k in 0 1 2 3; do GDNKIT_TEST_SHARD=$k/4 timeout 300 python -m pytest -q -p no:cacheprovider tests/test_prefill_kernel.py > $OUT/suite/shard-$k.txt 2>&1 & done; wait
echo "seconds $(( $(date +%s) - start ))" > $OUT/run6.txt
for k in 0 1 2 3; do tail -1 $OUT/suite/shard-$k.txt; done >> $OUT/run6.txt
grep -h "FAILED\|ERROR" $OUT/suite/shard-*.txt | head -20 >> $OUT/run6.txt
cat $OUT/run6.txt
