"""Scratch (session 50): cc_bv128 with host TMA descriptors typed, and the sm90 SASS of the scan launch."""
import sys, os
import gdnkit.compile_check as cc
from triton.tools.tensor_descriptor import TensorDescriptor
_orig = cc._signature_type
def _sig(value, param):
    if isinstance(value, TensorDescriptor):
        dt = cc._DTYPES[str(value.base.dtype).replace("torch.", "")]
        return f"tensordesc<{dt}{list(value.block_shape)}>", None
    return _orig(value, param)
cc._signature_type = _sig
cc.DECODE_BATCHES = ()
knobs = {}
for a in sys.argv[1:]:
    k, v = a.split("=")
    knobs[k] = int(v)
cc.PREFILL_SHAPES = ((8192, 56),) if not knobs else ()
import solution.triton.gdn_prefill as _m
cc.PREFILL_KNOB_SHAPES = ((knobs, ((8192, 56),)),) if knobs else ()
results = cc.check(("sm90",))
print(cc.format_table(results))
