"""Scratch (session 50): benchmarks/prefill_timeline.py on the late-state kernel (CHUNKED_SPLIT_LATE_STATE),
whose text moves two of the tool's anchors: they are put back in the anchors' form before the probes go
in and restored after."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import prefill_timeline as pt

LATE_CALL = "GRID_WAIT=PDL,\n                            LATE_STATE=LATE_STATE)\n"
LATE_LOAD = ("HAS_STATE and not LATE_STATE)\n    late_state_ptr = state_ptr + i_nh.to(tl.int64) * (V * K)\n\n"
             "    num_chunks = tl.cdiv(")
_probed = pt.probed_source


def probed(src):
    assert src.count(LATE_CALL) == 1 and src.count(LATE_LOAD) == 1
    src = src.replace(LATE_CALL, "GRID_WAIT=PDL)\n").replace(LATE_LOAD, "HAS_STATE)\n\n    num_chunks = tl.cdiv(")
    out = _probed(src)
    a = "GRID_WAIT=PDL, probe_ptr=probe_ptr, ppid=qid)\n    tl.store(probe_ptr + qid"
    b = "V, BV, HAS_STATE)\n    tl.store(probe_ptr + ppid"
    assert out.count(a) == 1 and out.count(b) == 1
    out = out.replace(a, "GRID_WAIT=PDL, LATE_STATE=LATE_STATE, probe_ptr=probe_ptr, ppid=qid)\n    tl.store(probe_ptr + qid")
    return out.replace(b, "V, BV, HAS_STATE and not LATE_STATE)\n"
                          "    late_state_ptr = state_ptr + i_nh.to(tl.int64) * (V * K)\n    tl.store(probe_ptr + ppid")


pt.probed_source = probed
if __name__ == "__main__":
    sys.argv[0] = "prefill_timeline.py"
    pt.main()
