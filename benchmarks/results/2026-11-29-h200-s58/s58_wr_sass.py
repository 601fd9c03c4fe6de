"""SASS, TTGIR, PTX and LLVM IR of the warp-role kernel for one prefill shape T/N (scratch, session 58)."""
import sys, tempfile
from pathlib import Path
from gdnkit import compile_check as cc
shape = tuple(int(x) for x in sys.argv[1].split("/"))
for launch in cc.record_launches("sm90", prefill_shapes=[shape]):
    if not getattr(launch.fn, "is_gluon", lambda: False)():
        continue
    k = cc.compile_kernel(launch, "sm90")
    with tempfile.TemporaryDirectory() as d:
        Path("/tmp/wr.sass").write_text(cc._cuobjdump_text(k.asm["cubin"], Path(d), "-sass"))
    Path("/tmp/wr.ttgir").write_text(k.asm["ttgir"]); Path("/tmp/wr.ptx").write_text(k.asm["ptx"])
    Path("/tmp/wr.llir").write_text(k.asm["llir"])
    print("ok", launch.constexprs)
