"""SASS census of the recurrent kernel per TOKENS_PER_STEP (scratch, session 58)."""
import collections, re, sys, tempfile
from pathlib import Path
from gdnkit import compile_check as cc

for shape in [(6, 1), (3, 1), (8, 2)]:
    for P in (1, 2, 3, 6):
        launches = cc.record_launches("sm90", knobs={"RECURRENT_TOKENS_PER_STEP": P}, prefill_shapes=[shape])
        with tempfile.TemporaryDirectory() as d:
            for launch in launches:
                import triton
                from triton.backends.compiler import GPUTarget
                from triton.compiler import ASTSource
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
                sass = cc._cuobjdump_text(k.asm["cubin"], Path(d), "-sass")
                code = cc._sass_code(sass)
                ops = collections.Counter(op.split(".")[0] for _, op, _, _ in code)
                print(shape, "P", P, "instr", len(code), "SHFL", ops["SHFL"], "FFMA", ops["FFMA"], "FMUL", ops["FMUL"],
                      "FADD", ops["FADD"], "LDG", ops["LDG"], "MUFU", ops["MUFU"])
