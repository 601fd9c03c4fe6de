"""SASS census of the decode launches (scratch, session 58)."""
import collections, sys, tempfile
from pathlib import Path
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from gdnkit import compile_check as cc

knobs = dict(kv.split("=", 1) for kv in sys.argv[2:])
knobs = cc.parse_knobs([f"{k}={v}" for k, v in knobs.items()]) if knobs else None
for B in [int(b) for b in sys.argv[1].split(",")]:
    for launch in cc.record_launches("sm90", knobs=knobs, decode_batches=[B]):
        fn = launch.fn
        sig, attrs = {}, {}
        for i, p in enumerate(fn.params):
            if p.name in launch.constexprs:
                sig[p.name] = "constexpr"
            else:
                sig[p.name] = launch.args[p.name]
                if sig[p.name].startswith("*"):
                    attrs[(i,)] = [["tt.divisibility", 16]]
        ce = {(fn.arg_names.index(k),): v for k, v in launch.constexprs.items()}
        k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=ce, attrs=attrs),
                           target=GPUTarget("cuda", 90, 32), options=dict(launch.options))
        with tempfile.TemporaryDirectory() as d:
            sass = cc._cuobjdump_text(k.asm["cubin"], Path(d), "-sass")
        code = cc._sass_code(sass)
        ops = collections.Counter(op.split(".")[0] for _, op, _, _ in code)
        print("B", B, launch.constexprs, "instr", len(code), dict(ops.most_common()))
        if "--dump" in sys.argv[1:] or True:
            Path(f"/tmp/decode_B{B}.sass").write_text(sass)
