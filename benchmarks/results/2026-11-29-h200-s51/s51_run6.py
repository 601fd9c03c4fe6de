"""Session 51, run 6: the pair loop's gate vectors from the storer (GATES) and one output slot a consumer, A/B."""
import json, sys
from pathlib import Path
import torch
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT / "benchmarks"))
import scan_step as ss
out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
sms = torch.cuda.get_device_properties(0).multi_processor_count
rows = []
for chunks, waves in ((64, 1), (2, 8), (1, 16)):
    x = ss.synthetic_inputs(chunks, 8, "cuda")
    tiles = 2 * sms * waves
    for rnd in range(2):
        for gates, no in ((False, 2), (False, 1), (True, 1)):
            for ctas in (None, sms):
                us = ss.time_launches(lambda st: ss.pair_launch(x, st, chunks, 8, ctas, gates, no), ss.state_buffer(x, tiles))
                step = us * sms / (chunks * tiles)
                rows.append(dict(chunks=chunks, round=rnd, gates=gates, out_slots=no, persistent=ctas is not None, us=us, step=step))
                print(f"chunks {chunks:2d} round {rnd} gates {gates:d} out_slots {no} persistent {ctas is not None:d}: {us:8.2f} us, {step:.3f} us a tile-step an SM", flush=True)
(out / "s51_run6.json").write_text(json.dumps(rows, indent=1))
