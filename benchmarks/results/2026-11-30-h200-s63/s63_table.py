"""Mean of rounds per variant from a gpu_check text output: python s63_table.py FILE NVARIANTS name1,name2,..."""
import re, sys, statistics as st, collections
txt = open(sys.argv[1]).read()
names = sys.argv[3].split(",")
nv = int(sys.argv[2])
lines = [l for l in txt.splitlines() if "worst err" in l]
acc = collections.defaultdict(list)
for i, l in enumerate(lines):
    acc[names[i % nv]].append([float(x) for x in l.split("|")[1].split()])
wl = re.findall(r"(\w+)\(T(\d+)/N(\d+)\)", txt)
print("| input | " + names[0] + " | " + " | ".join(n + " (diff)" for n in names[1:]) + " |")
print("|---" * nv + "|---|")
for j, (u, t, n) in enumerate(wl):
    base = [r[j] for r in acc[names[0]]]
    cells = [f"{st.mean(base):.2f} ({min(base):.2f}-{max(base):.2f})"]
    for name in names[1:]:
        x = [r[j] for r in acc[name]]
        cells.append(f"{st.mean(x) - st.mean(base):+.2f} ({min(x):.2f}-{max(x):.2f})")
    print(f"| {u} {t}/{n} | " + " | ".join(cells) + " |")
