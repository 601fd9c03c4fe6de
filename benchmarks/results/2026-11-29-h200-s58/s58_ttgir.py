import sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from gdnkit import compile_check as cc
knobs = cc.parse_knobs(sys.argv[2:]) if len(sys.argv) > 2 else None
for launch in cc.record_launches("sm90", knobs=knobs, decode_batches=[int(sys.argv[1])]):
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
    open("/tmp/k.ttgir", "w").write(k.asm["ttgir"]); open("/tmp/k.ptx", "w").write(k.asm["ptx"])
