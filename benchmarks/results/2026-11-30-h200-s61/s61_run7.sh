#!/bin/bash
# Session 61 run 7: gpu_check's float64-oracle cases with the new adversarial 12-token case (hard-12: the warp-role kernel on sm90), one timed workload.
source .whl/env.sh; export PYTHONPATH=$PWD:$PWD/benchmarks:$PYTHONPATH TRITON_CACHE_DIR=$PWD/.triton-cache
timeout 200 python benchmarks/gpu_check.py --out $OUT/run7 --quick --no-decode --compile-jobs 15 --workloads 8e7ef744 --prefill-variants "default" > $OUT/run7.txt 2>&1
echo "rc $?" >> $OUT/run7.txt
grep -i "hard-12\|worst err\|rc \|fail" $OUT/run7.txt | cut -c1-200 | head
python - <<'PY' >> $OUT/run7.txt 2>&1
import json, os
r = json.load(open(os.environ["OUT"] + "/run7/gpu_check.json"))
def walk(o, path=""):
    if isinstance(o, dict):
        for k, v in o.items():
            if "hard-12" in str(k): print(path + "/" + str(k), json.dumps(v)[:300])
            walk(v, path + "/" + str(k))
    elif isinstance(o, list):
        for i, v in enumerate(o): walk(v, path + f"[{i}]")
walk(r)
PY
tail -5 $OUT/run7.txt
