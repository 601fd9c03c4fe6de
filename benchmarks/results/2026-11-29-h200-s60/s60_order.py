"""Session 60 run 3: the decode's event timing, flush then GPU wait (as shipped in run 2) against GPU wait then
flush (the flush right before the launch, as the contest's), each 5 times per batch size, both tiles into one
scratch pair; beside CUPTI of each tile."""
import json, os, sys, statistics
import torch
sys.path.insert(0, "benchmarks")
import gpu_check as gc
from gdnkit.kernels import load_kernel_module
from gdnkit.inputs import decode_inputs, seeded_generator
from gdnkit.timing import time_call

mod = load_kernel_module("gdn_decode")
defaults = gc.knob_defaults(mod)
dev = torch.device("cuda")
l2 = torch.cuda.get_device_properties(dev).L2_cache_size
flush = torch.empty(2 * l2 // 4, dtype=torch.int32, device=dev)


def time_tiles(launches, reps, order, lead_ns):
    pairs = [[] for _ in launches]
    for _ in range(reps):
        for i, launch in enumerate(launches):
            if order == "flush-wait":
                flush.zero_()
                mod._gpu_wait_kernel[(1,)](lead_ns, num_warps=1)
            else:
                mod._gpu_wait_kernel[(1,)](lead_ns, num_warps=1)
                flush.zero_()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record(); launch(); e.record()
            pairs[i].append((s, e))
    torch.cuda.synchronize()
    return [[1000.0 * s.elapsed_time(e) for s, e in p] for p in pairs]


rows = []
for B in [1, 4, 8, 16, 32, 48, 64]:
    x = decode_inputs(B, seeded_generator(1, B), device="cuda")
    out = torch.empty(B, 1, 8, 128, dtype=torch.bfloat16, device="cuda")
    st = torch.empty(B, 8, 128, 128, device="cuda")
    args = list(x.values()) + [out, st]
    gc.apply_knobs(mod, "ARCH=sm100", defaults)
    cands = mod._tile_candidates(B, dev)
    cupti = []
    for i, t in enumerate(cands):
        gc.apply_knobs(mod, "", defaults)
        mod.TILE_TUNING_ARCHES = ()
        mod.TILE_TABLE = {a: [(1 << 62, *t)] for a in ("sm90", "sm100", "default")}
        cupti.append(statistics.mean(time_call(mod.run, args, 10, 50)[0] * 1e3 for _ in range(2)))
    gc.apply_knobs(mod, "ARCH=sm100", defaults)
    launches = [(lambda t=t: mod._launch_tile(t, *args[:8], 1 / 128 ** 0.5, out, st)) for t in cands]
    for l in launches:
        l()
    row = {"batch": B, "cupti": cupti, "events": {}}
    print(f"B={B:3d} cupti {cupti[0]:6.2f} / {cupti[1]:6.2f} = {cupti[1] / cupti[0]:.3f}", flush=True)
    for order, lead in (("flush-wait", 500_000), ("wait-flush", 500_000), ("wait-flush", 100_000)):
        got = []
        for rep in range(5):
            samples = time_tiles(launches, 15, order, lead)
            med = [sorted(s)[len(s) // 2] for s in samples]
            got.append({"medians": med, "samples": samples})
        row["events"][f"{order} {lead}"] = got
        print(f"      {order} {lead // 1000:3d}us " + "  ".join(f"{g['medians'][0]:6.2f}/{g['medians'][1]:6.2f}="
              f"{g['medians'][1] / g['medians'][0]:.3f}" for g in got), flush=True)
    rows.append(row)
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "s60_order.json"), "w"))
