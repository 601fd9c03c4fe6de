"""SASS census of the decode launches (scratch, session 58)."""
import collections, sys, tempfile
from pathlib import Path
from gdnkit import compile_check as cc

knobs = dict(kv.split("=", 1) for kv in sys.argv[2:])
knobs = cc.parse_knobs([f"{k}={v}" for k, v in knobs.items()]) if knobs else None
for B in [int(b) for b in sys.argv[1].split(",")]:
    for launch in cc.record_launches("sm90", knobs=knobs, decode_batches=[B]):
        k = cc.compile_kernel(launch, "sm90")
        with tempfile.TemporaryDirectory() as d:
            sass = cc._cuobjdump_text(k.asm["cubin"], Path(d), "-sass")
        code = cc._sass_code(sass)
        ops = collections.Counter(op.split(".")[0] for _, op, _, _ in code)
        print("B", B, launch.constexprs, "instr", len(code), dict(ops.most_common()))
        Path(f"/tmp/decode_B{B}.sass").write_text(sass)
