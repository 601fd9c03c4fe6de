import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[1]; data = rows[2:]
ix = {h: i for i, h in enumerate(hdr)}
stalls = [h for h in hdr[31:49]]
def num(x):
    try: return float(x.replace(',', ''))
    except: return 0.0
groups = collections.defaultdict(lambda: collections.Counter())
total = collections.Counter()
for r in data:
    ex = num(r[ix['Instructions Executed']])
    s = num(r[ix['Warp Stall Sampling (All Samples)']])
    key = int(ex)
    g = groups[key]
    g['samples'] += s; g['instr'] += 1
    for h in stalls: g[h] += num(r[ix[h]])
    total['samples'] += s
print("total samples", total['samples'])
for key in sorted(groups, key=lambda k: -groups[k]['samples']):
    g = groups[key]
    if g['samples'] < 0.01 * total['samples']: continue
    top = sorted(((g[h], h) for h in stalls), reverse=True)[:5]
    print(f"exec {key:6d}: {g['instr']:5d} instrs, {g['samples']:7.0f} samples ({100*g['samples']/total['samples']:4.1f}%) ",
          ", ".join(f"{h[6:]} {100*v/g['samples']:.0f}%" for v, h in top))
