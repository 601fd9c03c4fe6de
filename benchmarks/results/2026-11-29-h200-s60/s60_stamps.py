"""Session 60 run 4: can the GPU time a decode tile as CUPTI does, from inside? A copy of the decode kernel that
stamps %globaltimer at each program's start and after its stores; span = last end - first start. Per batch size,
both candidate tiles: CUPTI (2 trials), and 5 measurements of 15 interleaved stamped launches after a flush."""
import importlib.util, json, os, sys, statistics
import torch
sys.path.insert(0, "benchmarks")
import gpu_check as gc
from gdnkit.timing import time_call
from gdnkit.inputs import decode_inputs, seeded_generator

src = open("solution/triton/gdn_decode.py").read()
src = src.replace("    LOAD_EVICT: tl.constexpr, STORE_EVICT: tl.constexpr, PREFETCH_V: tl.constexpr,\n):\n    pid = tl.program_id(0)\n",
                  "    LOAD_EVICT: tl.constexpr, STORE_EVICT: tl.constexpr, PREFETCH_V: tl.constexpr, stamps_ptr=None,\n):\n"
                  "    pid = tl.program_id(0)\n"
                  "    if stamps_ptr is not None:\n        t_start = tl.inline_asm_elementwise('mov.u64 $0, %globaltimer;', '=l,l', [pid.to(tl.int64)], dtype=tl.int64, is_pure=False, pack=1)\n")
src = src.replace("    tl.store(new_state_ptr + tile, S, eviction_policy=STORE_EVICT)\n",
                  "    tl.store(new_state_ptr + tile, S, eviction_policy=STORE_EVICT)\n"
                  "    if stamps_ptr is not None:\n        t_end = tl.inline_asm_elementwise('mov.u64 $0, %globaltimer;', '=l,l', [pid.to(tl.int64)], dtype=tl.int64, is_pure=False, pack=1)\n"
                  "    if stamps_ptr is not None:\n        tl.store(stamps_ptr + 2 * pid, t_start)\n        tl.store(stamps_ptr + 2 * pid + 1, t_end)\n")
assert src.count("t_start") == 2 and "stamps_ptr + 2 * pid + 1" in src
path = "build/gdn_decode_stamped.py"
open(path, "w").write(src)
spec = importlib.util.spec_from_file_location("gdn_decode_stamped", path)
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
defaults = gc.knob_defaults(mod)
dev = torch.device("cuda")
l2 = torch.cuda.get_device_properties(dev).L2_cache_size
flush = torch.empty(2 * l2 // 4, dtype=torch.int32, device=dev)


def launch(tile, args, stamps):
    q, k, v, state, A_log, a, dt_bias, b, scale, out, st = args
    bv, nw, seq, fl, le, se, pv = tile
    grid = (q.shape[0] * 8 * (128 // bv),)
    mod._gdn_decode_kernel[grid](q, k, v, state, A_log, a, dt_bias, b, out, st, 1 / 128 ** 0.5, HQ=4, HV=8, K=128, V=128,
                                 BV=bv, HAS_STATE=True, SEQUENTIAL=seq, FAST_LOG=fl, LOAD_EVICT=le, STORE_EVICT=se,
                                 PREFETCH_V=pv, stamps_ptr=stamps, num_warps=nw)


rows = []
for B in [1, 4, 8, 16, 32, 48, 64]:
    x = decode_inputs(B, seeded_generator(1, B), device="cuda")
    out = torch.empty(B, 1, 8, 128, dtype=torch.bfloat16, device="cuda")
    st = torch.empty(B, 8, 128, 128, device="cuda")
    args = list(x.values()) + [out, st]
    gc.apply_knobs(mod, "ARCH=sm100", defaults)
    cands = mod._tile_candidates(B, dev)
    gc.apply_knobs(mod, "", defaults)
    mod.TILE_TUNING_ARCHES = ()
    cupti = []
    for t in cands:
        mod.TILE_TABLE = {a: [(1 << 62, *t)] for a in ("sm90", "sm100", "default")}
        cupti.append(statistics.mean(time_call(mod.run, args, 10, 50)[0] * 1e3 for _ in range(2)))
    stamps = [torch.zeros(2 * B * 8 * 32, dtype=torch.int64, device="cuda") for _ in cands]
    # the stamped kernels, CUPTI-timed too (what the stamps cost)
    cupti_stamped = [statistics.mean(time_call(launch, (t, args, s), 10, 50)[0] * 1e3 for _ in range(2))
                     for t, s in zip(cands, stamps)]
    meas = []
    for rep in range(5):
        spans = [[] for _ in cands]
        for r in range(15):
            for i, t in enumerate(cands):
                mod._gpu_wait_kernel[(1,)](500_000, num_warps=1)
                flush.zero_()
                n = B * 8 * (128 // t[0])
                launch(t, args, stamps[i])
                s = stamps[i][:2 * n].view(n, 2)
                spans[i].append(s[:, 1].max() - s[:, 0].min())
        torch.cuda.synchronize()
        med = [sorted(int(v) for v in sp)[7] / 1000 for sp in spans]
        meas.append(med)
    rows.append({"batch": B, "tiles": [list(t) for t in cands], "cupti": cupti, "cupti_stamped": cupti_stamped,
                 "stamps_us": meas})
    print(f"B={B:3d} cupti {cupti[0]:6.2f}/{cupti[1]:6.2f}={cupti[1] / cupti[0]:.3f}  stamped kernels by cupti "
          f"{cupti_stamped[0]:6.2f}/{cupti_stamped[1]:6.2f}={cupti_stamped[1] / cupti_stamped[0]:.3f}", flush=True)
    print("      stamps " + "  ".join(f"{a:6.2f}/{b:6.2f}={b / a:.3f}" for a, b in meas), flush=True)
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "s60_stamps.json"), "w"))
