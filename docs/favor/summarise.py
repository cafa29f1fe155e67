#!/usr/bin/env python3
"""Summaries for docs/FAVOR.md: FAVOR+ map error (favor.csv) against each head's Kovaleva category and
entropy (classify.csv), ORF against iid, and the effect rows when present. Usage:
  python3 docs/favor/summarise.py favor.csv classify.csv [favor-effect.csv]"""
import csv, sys, statistics as st

def rows(path):
    with open(path, newline='') as f:
        return list(csv.DictReader(f))

favor = rows(sys.argv[1])
cls = {(r['layer'], r['head']): r for r in rows(sys.argv[2])}
heads = [r for r in favor if r['head'] != '*' and r['layer'] != '*']
ms = sorted({int(r['features']) for r in heads})

def rank(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for t in range(i, j + 1):
            out[order[t]] = (i + j) / 2
        i = j + 1
    return out

def spearman(a, b):
    ra, rb = rank(a), rank(b)
    ma, mb = st.mean(ra), st.mean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    return cov / (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5

print("## ORF against iid: mean map error over the 144 heads (and heads where ORF < iid)")
print("| m | ORF | iid | ORF better on |")
print("|---|---|---|---|")
for m in ms:
    o = {(r['layer'], r['head']): float(r['map_error']) for r in heads if int(r['features']) == m and r['kind'] == 'orf'}
    i = {(r['layer'], r['head']): float(r['map_error']) for r in heads if int(r['features']) == m and r['kind'] == 'iid'}
    if not i:
        print(f"| {m} | {st.mean(o.values()):.3f} | - | - |")
        continue
    better = sum(1 for k in o if o[k] < i[k])
    print(f"| {m} | {st.mean(o.values()):.3f} | {st.mean(i.values()):.3f} | {better} / {len(o)} |")

print()
print("## Map error (ORF) by Kovaleva category (classify's category over the same inputs)")
cats = ['vertical', 'diagonal', 'vertical+diagonal', 'block', 'heterogeneous']
print("| category | heads | " + " | ".join(f"m={m}" for m in ms) + " | mean entropy (nats) |")
print("|---|---|" + "---|" * len(ms) + "---|")
for c in cats:
    keys = [k for k, r in cls.items() if r['category'] == c]
    if not keys:
        continue
    cells = []
    for m in ms:
        e = [float(r['map_error']) for r in heads if int(r['features']) == m and r['kind'] == 'orf'
             and (r['layer'], r['head']) in keys]
        cells.append(f"{st.mean(e):.3f}")
    ent = st.mean(float(cls[k]['entropy']) for k in keys)
    print(f"| {c} | {len(keys)} | " + " | ".join(cells) + f" | {ent:.2f} |")

print()
print("## Map error (ORF) against each head's mean entropy, and against other scores: Spearman rho over 144 heads")
for m in ms:
    sel = [r for r in heads if int(r['features']) == m and r['kind'] == 'orf']
    err = [float(r['map_error']) for r in sel]
    out = []
    for col in ['entropy', 'vertical', 'diagonal', 'sep', 'cls', 'mean_value_norm']:
        out.append(f"{col} {spearman(err, [float(cls[(r['layer'], r['head'])][col]) for r in sel]):+.2f}")
    print(f"- m={m}: " + ", ".join(out))

print()
print("## By layer (ORF, model-wide rows): mean map error")
layer_rows = [r for r in favor if r['head'] == '*' and r['layer'] != '*' and r['kind'] == 'orf']
print("| m | " + " | ".join(f"L{l}" for l in range(1, 13)) + " |")
print("|---|" + "---|" * 12)
for m in ms:
    v = {int(r['layer']): float(r['map_error']) for r in layer_rows if int(r['features']) == m}
    print(f"| {m} | " + " | ".join(f"{v[l]:.2f}" for l in range(1, 13)) + " |")

mid = ms[len(ms) // 2]
sel = sorted([r for r in heads if int(r['features']) == mid and r['kind'] == 'orf'], key=lambda r: float(r['map_error']))
def name(r):
    c = cls[(r['layer'], r['head'])]
    return f"{r['layer']}-{r['head']} {float(r['map_error']):.2f} ({c['category']}, H={float(c['entropy']):.2f})"
print()
print(f"Most approximable at m={mid}: " + "; ".join(name(r) for r in sel[:8]))
print(f"Least approximable at m={mid}: " + "; ".join(name(r) for r in sel[-8:][::-1]))

if len(sys.argv) > 3:
    eff = rows(sys.argv[3])
    print()
    print("## Effects (from --effect)")
    model = [r for r in eff if r['layer'] == '*']
    print("| m | kind | all heads on FAVOR+: delta log-prob |")
    print("|---|---|---|")
    for r in model:
        print(f"| {r['features']} | {r['kind']} | {float(r['delta_logprob']):+.3f} |")
    for m, kind in sorted({(int(r['features']), r['kind']) for r in eff}):
        hs = [r for r in eff if r['head'] != '*' and r['layer'] != '*' and int(r['features']) == m
              and r['kind'] == kind]
        worse = sum(1 for r in hs if float(r['delta_logprob']) < float(r['off_delta_logprob']))
        print(f"- m={m} {kind}: mean per-head delta {st.mean(float(r['delta_logprob']) for r in hs):+.4f}, "
              f"switch-off mean {st.mean(float(r['off_delta_logprob']) for r in hs):+.4f}; "
              f"FAVOR+ worse than switching off on {worse} / {len(hs)} heads")
