"""Scratch (session 50): benchmarks/prefill_timeline.py on the TMA kernel (CHUNKED_SPLIT_WIDE_TMA), whose text
moves two of the tool's anchors: they are put back in the anchors' form before the probes go in and restored
after."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import prefill_timeline as pt

CALL = "GRID_WAIT=PDL,\n                            descs=(k_desc, q_desc, v_desc, t_desc, p_desc), TMA=TMA)\n"
SIG = "    K_SPLIT: tl.constexpr = False, descs=None, TMA: tl.constexpr = False,\n):\n    \"\"\"The state recursion"
_probed = pt.probed_source


def probed(src):
    assert src.count(CALL) == 1 and src.count(SIG) == 1
    src = src.replace(CALL, "GRID_WAIT=PDL)\n").replace(SIG, "    K_SPLIT: tl.constexpr = False,\n):\n    \"\"\"The state recursion")
    out = _probed(src)
    a = "GRID_WAIT=PDL, probe_ptr=probe_ptr, ppid=qid)\n    tl.store(probe_ptr + qid"
    b = "    K_SPLIT: tl.constexpr = False, probe_ptr=None, ppid=0,\n):"
    assert out.count(a) == 1 and out.count(b) == 1
    out = out.replace(a, "GRID_WAIT=PDL, descs=(k_desc, q_desc, v_desc, t_desc, p_desc), TMA=TMA, probe_ptr=probe_ptr,"
                         " ppid=qid)\n    tl.store(probe_ptr + qid")
    return out.replace(b, "    K_SPLIT: tl.constexpr = False, descs=None, TMA: tl.constexpr = False, probe_ptr=None, ppid=0,\n):")


pt.probed_source = probed
if __name__ == "__main__":
    sys.argv[0] = "prefill_timeline.py"
    pt.main()
