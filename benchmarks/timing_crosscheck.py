"""Cross-check of the runner's timing: for one decode and one prefill workload, the latency the
runner records (gdnkit.evaluate, as `gdnkit bench` runs it) against a direct call of
flashinfer.testing.bench_gpu_time_with_cupti on the same call (cold L2, the contest's
iteration counts, median per trial, mean of 3 trials). They must agree within 5%.

    python benchmarks/timing_crosscheck.py --dataset datasets/synthetic --out $OUT
"""

import argparse
import json
import statistics
from pathlib import Path

from flashinfer.testing import bench_gpu_time_with_cupti
from flashinfer_bench.bench.utils import gen_inputs, load_safetensors

from gdnkit import DECODE, PREFILL
from gdnkit.dataset import open_dataset
from gdnkit.evaluate import TIMING, Settings, evaluate, poisoned_outputs
from gdnkit.kernels import load_kernel_module
from gdnkit.runner import candidates
from gdnkit.paths import project_root

PICK = {DECODE: ("gdn_decode", 16), PREFILL: ("gdn_prefill", "c5257f65")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--out", default=".")
    args = ap.parse_args()
    ts = open_dataset(Path(args.dataset))
    ours = candidates([project_root() / "config.toml"])
    report = {}
    for definition, (module_name, which) in PICK.items():
        wls = ts.workloads[definition]
        wl = next(w for w in wls if (w.workload.axes.get("batch_size") == which if definition == DECODE
                                     else w.workload.uuid.startswith(which)))
        # 1. the runner
        traces = evaluate(ts, [c for c in ours if c.solution.definition == definition], Settings(),
                          workload_filter=lambda w: w.workload.uuid == wl.workload.uuid)
        runner_ms = traces[0].evaluation.performance.latency_ms
        # 2. direct CUPTI measurement of the same call
        defn = ts.definitions[definition]
        inputs = gen_inputs(defn, wl.workload, "cuda", load_safetensors(defn, wl.workload, ts.root))
        outputs = poisoned_outputs(defn, inputs, "cuda")
        run = load_kernel_module(module_name).run
        warmup, iters = TIMING[definition]
        trials = [statistics.median(bench_gpu_time_with_cupti(lambda: run(*inputs, *outputs), dry_run_iters=warmup,
                                                              repeat_iters=iters, cold_l2_cache=True))
                  for _ in range(3)]
        direct_ms = statistics.fmean(trials)
        ratio = runner_ms / direct_ms
        report[definition] = {"workload": wl.workload.uuid, "axes": wl.workload.axes, "runner_us": runner_ms * 1e3,
                              "direct_us": direct_ms * 1e3, "direct_trials_us": [t * 1e3 for t in trials],
                              "ratio": ratio, "within_5pct": abs(ratio - 1) <= 0.05}
        print(f"{definition} {wl.workload.uuid[:8]} {wl.workload.axes}: runner {runner_ms * 1e3:.2f} us, "
              f"direct {direct_ms * 1e3:.2f} us, ratio {ratio:.3f}", flush=True)
    (Path(args.out) / "timing_crosscheck.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
