"""Session 60 run 1: the decode's first-call tile measuring, routed as sm100 on the H200."""
import json, sys, time, statistics
import torch
sys.path.insert(0, "benchmarks")
import gpu_check as gc
from gdnkit.kernels import load_kernel_module
from gdnkit.inputs import decode_inputs, seeded_generator
from gdnkit.timing import time_call

mod = load_kernel_module("gdn_decode")
defaults = gc.knob_defaults(mod)
dev = torch.device("cuda")
rows = []
for B in [1, 4, 8, 16, 32, 48, 64]:
    x = decode_inputs(B, seeded_generator(1, B), device="cuda")
    out = torch.empty(B, 1, 8, 128, dtype=torch.bfloat16, device="cuda")
    st = torch.empty(B, 8, 128, 128, device="cuda")
    args = list(x.values()) + [out, st]
    gc.apply_knobs(mod, "ARCH=sm100", defaults)
    cands = mod._tile_candidates(B, dev)
    cupti = [[] for _ in cands]
    for trial in range(3):
        for i, t in enumerate(cands):
            gc.apply_knobs(mod, "", defaults)
            mod.TILE_TUNING_ARCHES = ()
            mod.TILE_TABLE = {a: [(1 << 62, *t)] for a in ("sm90", "sm100", "default")}
            ms, method = time_call(mod.run, args, 10, 50)
            cupti[i].append(ms * 1e3)
    gc.apply_knobs(mod, "ARCH=sm100", defaults)
    mod.run(*args); torch.cuda.synchronize()   # compile both tiles, measure once
    mod._TILE_TUNINGS.clear()
    tunings = []
    for rep in range(5):
        mod._TILE_TUNINGS.clear()
        torch.cuda.synchronize(); t0 = time.perf_counter()
        mod.run(*args); torch.cuda.synchronize()
        first_ms = (time.perf_counter() - t0) * 1e3
        (tuning,) = mod._TILE_TUNINGS.values()
        tunings.append({"kept_bv": tuning.tile[0], "times_us": list(tuning.times_us), "rejected": len(tuning.rejected),
                        "first_call_ms": first_ms})
    direct = {"own": [], "shared": []}
    for rep in range(5):
        for mode in ("own", "shared"):
            pairs = [(torch.empty_like(out), torch.empty_like(st)) for _ in cands]
            if mode == "shared":
                pairs = [pairs[0]] * len(cands)
            launches = [(lambda t=t, p=p: mod._launch_tile(t, *args[:8], 1 / 128 ** 0.5, *p)) for t, p in zip(cands, pairs)]
            direct[mode].append(mod._time_tiles(launches, mod.TILE_TUNING_REPS, dev))
    for mode in ("own", "shared"):
        print(f"      direct {mode:6s} " + "  ".join(f"{a:6.2f}/{b:6.2f}={b / a:.3f}" for a, b in direct[mode]), flush=True)
    torch.cuda.synchronize(); t0 = time.perf_counter(); mod.run(*args); torch.cuda.synchronize()
    plain_ms = (time.perf_counter() - t0) * 1e3
    row = {"batch": B, "candidates": [list(t) for t in cands], "cupti_us": cupti, "method": method,
           "tunings": tunings, "plain_call_ms": plain_ms, "direct": direct}
    rows.append(row)
    cm = [statistics.mean(c) for c in cupti]
    print(f"B={B:3d} cupti " + " / ".join(f"BV{t[0]} {m:6.2f} ({' '.join(f'{v:.2f}' for v in c)})" for t, m, c in zip(cands, cm, cupti))
          + f"  ratio {cm[1] / cm[0]:.3f}", flush=True)
    for tn in tunings:
        a, b = tn["times_us"]
        print(f"      events BV{cands[0][0]} {a:6.2f} BV{cands[1][0]} {b:6.2f} ratio {b / a:.3f} kept BV{tn['kept_bv']}"
              f" first call {tn['first_call_ms']:.1f} ms", flush=True)
    print(f"      plain call {plain_ms:.2f} ms", flush=True)
import os
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "s60_decode_tuning.json"), "w"), indent=1)
