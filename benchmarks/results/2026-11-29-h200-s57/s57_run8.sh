#!/bin/bash
# Session 57 run 8: the decode's GPU tests (the compiled table rows: eviction hints, the v prefetch's inline PTX).
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
timeout -k 5 200 python -m pytest -q -p no:cacheprovider tests/test_decode_kernel.py tests/test_gpu_check.py 2>&1 | tail -5 | tee $OUT/tests.txt
