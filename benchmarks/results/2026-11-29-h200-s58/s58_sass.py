"""SASS census of the recurrent kernel per TOKENS_PER_STEP (scratch, session 58)."""
import collections, tempfile
from pathlib import Path
from gdnkit import compile_check as cc

for shape in [(6, 1), (3, 1), (8, 2)]:
    for P in (1, 2, 3, 6):
        launches = cc.record_launches("sm90", knobs={"RECURRENT_TOKENS_PER_STEP": P}, prefill_shapes=[shape])
        with tempfile.TemporaryDirectory() as d:
            for launch in launches:
                k = cc.compile_kernel(launch, "sm90")
                code = cc._sass_code(cc._cuobjdump_text(k.asm["cubin"], Path(d), "-sass"))
                ops = collections.Counter(op.split(".")[0] for _, op, _, _ in code)
                print(shape, "P", P, "instr", len(code), "SHFL", ops["SHFL"], "FFMA", ops["FFMA"], "FMUL", ops["FMUL"],
                      "FADD", ops["FADD"], "LDG", ops["LDG"], "MUFU", ops["MUFU"])
