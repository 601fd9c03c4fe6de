"""Compile the split prep launch (ROLE 1) for sm90 locally and summarise its SASS instruction mix."""
import sys, re, subprocess, collections
from pathlib import Path
sys.path.insert(0, '.')
from gdnkit import compile_check as cc
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

launches = cc.record_launches("sm90")
sel = [l for l in launches if l.kernel == "_gdn_prefill_chunked_kernel" and l.constexprs.get("ROLE") == int(sys.argv[1])]
for l in sel:
    print(l.shapes, {k: l.constexprs[k] for k in ("BV", "TRANSITION", "PREP_HEADS", "WIDE_HALF_DOTS") if k in l.constexprs}, l.options)
l = [x for x in sel if sys.argv[2] in x.shapes][0]
fn = l.fn
signature, attrs = {}, {}
for i, p in enumerate(fn.params):
    if p.name in l.constexprs:
        signature[p.name] = "constexpr"
    else:
        signature[p.name] = l.args[p.name]
        if signature[p.name].startswith("*"):
            attrs[(i,)] = [["tt.divisibility", 16]]
constexprs = {(fn.arg_names.index(k),): v for k, v in l.constexprs.items()}
k = triton.compile(ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs),
                   target=GPUTarget("cuda", 90, 32), options=dict(l.options))
out = Path(sys.argv[3]); out.mkdir(exist_ok=True, parents=True)
(out / "k.cubin").write_bytes(k.asm["cubin"]); (out / "k.ttgir").write_text(k.asm["ttgir"]); (out / "k.ptx").write_text(k.asm["ptx"])
sass = subprocess.run([str(cc._cuobjdump()), "-sass", str(out / "k.cubin")], capture_output=True, text=True).stdout
(out / "k.sass").write_text(sass)
ops = collections.Counter()
for line in sass.splitlines():
    m = re.match(r"\s+/\*[0-9a-f]+\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
    if m:
        ops[m.group(2).split('.')[0]] += 1
print(sum(ops.values()), "instructions; shared", k.metadata.shared, "warps", k.metadata.num_warps)
print(ops.most_common(45))
