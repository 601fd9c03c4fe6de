"""TTGIR and PTX of the decode launch for one batch size (scratch, session 58)."""
import sys
from gdnkit import compile_check as cc
knobs = cc.parse_knobs(sys.argv[2:]) if len(sys.argv) > 2 else None
for launch in cc.record_launches("sm90", knobs=knobs, decode_batches=[int(sys.argv[1])]):
    k = cc.compile_kernel(launch, "sm90")
    open("/tmp/k.ttgir", "w").write(k.asm["ttgir"]); open("/tmp/k.ptx", "w").write(k.asm["ptx"])
