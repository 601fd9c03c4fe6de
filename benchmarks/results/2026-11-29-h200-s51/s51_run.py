"""Session 51 scratch: the Gluon pair record loop (build/s51_pair.py) against the float64 recurrence and timed
beside the Triton record loop of benchmarks/scan_step.py. Writes JSON under argv[1].
Archived as run 3 ran it (runs 1-2 had other VARIANTS lists: notes/prefill.md, session 51), against
scan_step.py at 42d477f, whose time_launches took (program, x, grid, chunks, window, stages)."""
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "build"))
import scan_step as ss  # noqa: E402
import s51_pair  # noqa: E402

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
res = dict(check=[], time=[])
BASE = dict(NSLOT=3, PW=1, CONSUMER_REGS=216, PRODUCER_REGS=80)
W = dict(BASE, STORE=3, PW=2, SW=2)
VARIANTS = [dict(BASE, PW=4, STORE=2), dict(BASE, PW=4, STORE=2, KQ=1), dict(W), dict(W, KQ=1), dict(W, KQ=1, NSLOT=2),
            dict(W, KQ=1, PW=1, SW=1), dict(BASE, PW=4, STORE=0, KQ=1), dict(W, KQ=1, MODE=1)]
CHECKED = [v for v in VARIANTS if v.get("MODE", 0) == 0]


def pair_launch(x, state, chunks, window, knobs):
    grid = state.shape[0] // 2
    s51_pair.pair_program[(grid,)](x["q"], x["k"], x["v"], x["tri"], x["qk"], x["gate"], x["out"], state, chunks,
                                   window, num_warps=4, **knobs)
    return state


# correctness: 3 chunks, 2 sequences, all heads and both halves (grid 32 tiles = 16 CTAs), and 5 chunks over 3
for chunks, window, tiles in ((3, 2, 32), (5, 3, 48)):
    x = ss.synthetic_inputs(chunks, window, "cuda", seed=7)
    want = ss.reference_states(x, tiles, chunks, window)
    tri_loop = ss.launch(ss._loop_program, x, ss.state_buffer(x, tiles), chunks, window, 3).double().cpu()
    tri_out = x["out"].double().cpu()
    for knobs in CHECKED:
        st = torch.full((tiles, 64, 128), float("nan"), device="cuda")
        x["out"].fill_(float("nan"))
        got = pair_launch(x, st, chunks, window, knobs).double().cpu()
        o = x["out"].double().cpu()
        out_err = float((o - tri_out).abs().max() / tri_out.abs().max()) if knobs.get("STORE", 1) else -1.0
        err = float(((got - want).abs().max() / want.abs().max()))
        row = dict(chunks=chunks, window=window, knobs=knobs, finite=bool(torch.isfinite(got).all()), rel_err=err,
                   triton_rel_err=float(((tri_loop - want).abs().max() / want.abs().max())),
                   distinct=len({round(float(s.abs().sum()), 3) for s in got}))
        res["check"].append(row)
        print("check", chunks, window, knobs, "rel_err %.5f out vs triton %.5f triton %.5f finite %s distinct %d" % (
            err, out_err, row["triton_rel_err"], row["finite"], row["distinct"]), flush=True)

sms = torch.cuda.get_device_properties(0).multi_processor_count
for chunks in (64,):
    x = ss.synthetic_inputs(chunks, 8, "cuda")
    for per_sm in (1, 2):
        us = ss.time_launches(ss._loop_program, x, sms * per_sm, chunks, 8, 3)
        row = dict(what="triton3", chunks=chunks, tiles=sms * per_sm, us=us, step_per_sm=us / (chunks * per_sm))
        res["time"].append(row)
        print(row, flush=True)
    for knobs in VARIANTS:
        for ctas in (sms, 2 * sms):
            state = torch.empty(2 * ctas, 64, 128, device="cuda")
            for _ in range(3):
                pair_launch(x, state, chunks, 8, knobs)
            torch.cuda.synchronize()
            times = []
            for _ in range(5):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(10):
                    pair_launch(x, state, chunks, 8, knobs)
                b.record()
                torch.cuda.synchronize()
                times.append(a.elapsed_time(b) * 100)
            us = sorted(times)[2]
            row = dict(what="pair", knobs=knobs, chunks=chunks, tiles=2 * ctas, us=us,
                       step_per_sm=us / (chunks * 2 * ctas / sms))
            res["time"].append(row)
            print("pair", knobs, "tiles", 2 * ctas, "%.1f us, %.3f us a tile-step an SM" % (us, row["step_per_sm"]),
                  flush=True)
(out / "s51_pair.json").write_text(json.dumps(res, indent=1))
