"""Session 51, run 11: the persistent pair loop with its final states stored by the TMA engine from shared memory
(scratch copy build/s51_ss_tma.py; two ring slots to make room for two 32 KB stages), checked and timed."""
import sys
from pathlib import Path
import torch
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT / "build"))
import s51_ss_tma as ss
sms = torch.cuda.get_device_properties(0).multi_processor_count
for gates in (False, True):
    for chunks, window, tiles, ctas in ((1, 3, 48, 5), (3, 2, 32, 3), (2, 3, 48, None)):
        x = ss.synthetic_inputs(chunks, window, "cuda", seed=3)
        x["out"].fill_(float("nan"))
        want, want_out = ss.reference(x, tiles, chunks, window)
        st = torch.full((tiles, 64, 128), float("nan"), device="cuda")
        got = ss.pair_launch(x, st, chunks, window, ctas, gates, 1 if gates else 2, True, 2)
        torch.cuda.synchronize()
        got = got.double().cpu(); o = x["out"].double().cpu(); w = ~torch.isnan(want_out)
        print("check gates", gates, chunks, window, tiles, ctas, "state err %.5f out err %.5f nan-pattern %s" % (
            float((got - want).abs().max() / want.abs().max()),
            float((o[w] - want_out[w]).abs().max() / want_out[w].abs().max()), bool(torch.equal(~torch.isnan(o), w))),
            flush=True)
for chunks, waves in ((1, 16), (2, 8), (64, 1)):
    x = ss.synthetic_inputs(chunks, 8, "cuda")
    tiles = 2 * sms * waves
    for rnd in range(2):
        for gates, tma_, slots in ((False, False, 3), (False, False, 2), (False, True, 2), (True, False, 3),
                                   (True, True, 2)):
            us = ss.time_launches(lambda st: ss.pair_launch(x, st, chunks, 8, sms, gates, 1 if gates else 2, tma_,
                                                            slots), ss.state_buffer(x, tiles))
            print(f"chunks {chunks:2d} round {rnd} gates {gates:d} state by TMA {tma_:d} slots {slots}: {us:8.2f} us, "
                  f"{us * sms / (chunks * tiles):.3f} us a tile-step an SM", flush=True)
