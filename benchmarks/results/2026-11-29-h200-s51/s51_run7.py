"""Session 51, run 7: why the storer's gate vectors slow one-chunk items: GATES 2 (computed, unused), 4 (two chunks ahead)."""
import json, sys
from pathlib import Path
import torch
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT / "benchmarks"))
import scan_step as ss
out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
sms = torch.cuda.get_device_properties(0).multi_processor_count
rows = []
for gates in (1, 2, 4):
    for chunks, window, tiles, ctas in ((1, 3, 48, 5), (3, 2, 32, 3)):
        x = ss.synthetic_inputs(chunks, window, "cuda", seed=3)
        x["out"].fill_(float("nan"))
        want, want_out = ss.reference(x, tiles, chunks, window)
        got = ss.pair_launch(x, torch.full((tiles, 64, 128), float("nan"), device="cuda"), chunks, window, ctas, gates, 1).double().cpu()
        o = x["out"].double().cpu(); w = ~torch.isnan(want_out)
        print("check gates", gates, chunks, window, tiles, ctas, "state err %.5f out err %.5f nan-pattern %s" % (
            float((got - want).abs().max() / want.abs().max()), float((o[w] - want_out[w]).abs().max() / want_out[w].abs().max()),
            bool(torch.equal(~torch.isnan(o), w))), flush=True)
for chunks, waves in ((64, 1), (2, 8), (1, 16)):
    x = ss.synthetic_inputs(chunks, 8, "cuda")
    tiles = 2 * sms * waves
    for rnd in range(2):
        for gates, no in ((0, 1), (1, 1), (2, 1), (4, 1)):
            for ctas in (sms,):
                us = ss.time_launches(lambda st: ss.pair_launch(x, st, chunks, 8, ctas, gates, no), ss.state_buffer(x, tiles))
                step = us * sms / (chunks * tiles)
                rows.append(dict(chunks=chunks, round=rnd, gates=gates, out_slots=no, persistent=ctas is not None, us=us, step=step))
                print(f"chunks {chunks:2d} round {rnd} gates {gates:d} out_slots {no} persistent {ctas is not None:d}: {us:8.2f} us, {step:.3f} us a tile-step an SM", flush=True)
(out / "s51_run7.json").write_text(json.dumps(rows, indent=1))
