"""Session 51, run 10: the persistent pair loop without its final state stores (scratch copy of scan_step.py):
do the consumers' state stores throttle the producer's copies on one-chunk items?"""
import sys
from pathlib import Path
import torch
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT / "build"))
import s51_ss_nostate as ss
sms = torch.cuda.get_device_properties(0).multi_processor_count
for chunks, waves in ((1, 16), (2, 8), (64, 1)):
    x = ss.synthetic_inputs(chunks, 8, "cuda")
    tiles = 2 * sms * waves
    for rnd in range(2):
        for gates, store in ((False, True), (False, False), (True, True), (True, False)):
            us = ss.time_launches(lambda st: ss.pair_launch(x, st, chunks, 8, sms, gates, 1 if gates else 2, store),
                                  ss.state_buffer(x, tiles))
            print(f"chunks {chunks:2d} round {rnd} gates {gates:d} state stores {store:d}: {us:8.2f} us, "
                  f"{us * sms / (chunks * tiles):.3f} us a tile-step an SM", flush=True)
