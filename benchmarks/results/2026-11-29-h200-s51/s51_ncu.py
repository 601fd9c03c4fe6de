"""Session 51, run 9 driver: five launches of the persistent pair loop on one-chunk items (16 waves), gates or not."""
import sys
from pathlib import Path
import torch
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT / "benchmarks"))
import scan_step as ss
gates = sys.argv[1] == "1"
sms = torch.cuda.get_device_properties(0).multi_processor_count
x = ss.synthetic_inputs(1, 8, "cuda")
st = ss.state_buffer(x, 2 * sms * 16)
for _ in range(5):
    ss.pair_launch(x, st, 1, 8, sms, gates, 1 if gates else 2)
torch.cuda.synchronize()
print("done", gates)
