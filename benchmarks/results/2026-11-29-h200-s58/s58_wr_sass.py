import sys, tempfile
from pathlib import Path
import triton
from triton.backends.compiler import GPUTarget
from gdnkit import compile_check as cc
from triton.experimental.gluon._runtime import GluonASTSource
shape = tuple(int(x) for x in sys.argv[1].split("/"))
for launch in cc.record_launches("sm90", prefill_shapes=[shape]):
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
    src = GluonASTSource if getattr(fn, "is_gluon", lambda: False)() else None
    if src is None:
        continue
    k = triton.compile(src(fn=fn, signature=sig, constexprs=ce, attrs=attrs), target=GPUTarget("cuda", 90, 32),
                       options=dict(launch.options))
    with tempfile.TemporaryDirectory() as d:
        Path("/tmp/wr.sass").write_text(cc._cuobjdump_text(k.asm["cubin"], Path(d), "-sass"))
    Path("/tmp/wr.ttgir").write_text(k.asm["ttgir"]); Path("/tmp/wr.ptx").write_text(k.asm["ptx"])
    Path("/tmp/wr.llir").write_text(k.asm["llir"])
    print("ok", launch.constexprs)
