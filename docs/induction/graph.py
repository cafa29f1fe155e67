"""Draws the top edges of an `edges` CSV (sender,receiver,input,score) as an SVG circuit graph.

python3 docs/induction/graph.py edges.csv LAYERS HEADS TOP out.svg
Standard library only. Nodes sit in rows by forward order (the embeddings at the bottom, each layer's heads
then its MLP, the logits on top); an edge's width is its |score| over the largest, red where the score is
negative (the edge carries the behaviour), blue where positive; the receiver's input (q, k, v) is written at
the arrow's end.
"""
import csv
import sys


def main():
    path, layers, heads, top, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    rows.sort(key=lambda r: -abs(float(r["score"])))
    rows = rows[:top]
    width, row_h, col_w = 160 + 110 * (heads + 1), 110, 110
    height = row_h * (2 * layers + 2) + 40
    pos = {}

    def place(label, row, col, count):
        x = width / 2 + (col - (count - 1) / 2) * col_w
        y = height - 40 - row * row_h
        pos[label] = (x, y)

    place("embed", 0, 0, 1)
    for layer in range(1, layers + 1):
        for h in range(1, heads + 1):
            place(f"{layer}-{h}", 2 * layer - 1, h - 1, heads)
        pos[f"mlp{layer}"] = (width - 60, height - 40 - (2 * layer) * row_h)  # aside: edges do not cross it
    place("logits", 2 * layers + 1, 0, 1)
    biggest = max(abs(float(r["score"])) for r in rows) if rows else 1
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">',
           '<rect width="100%" height="100%" fill="white"/>']
    for r in reversed(rows):
        s = float(r["score"])
        (x1, y1), (x2, y2) = pos[r["sender"]], pos[r["receiver"]]
        w = 1 + 9 * abs(s) / biggest
        color = "#c0392b" if s < 0 else "#2e6da4"
        # the arrow ends short of the receiver's circle; q, k and v enter at its left, middle and right
        dx = {"q": -14, "k": 0, "v": 14}.get(r["input"], 0)
        y2e = y2 + 22
        svg.append(f'<line x1="{x1:.1f}" y1="{y1 - 22:.1f}" x2="{x2 + dx:.1f}" y2="{y2e:.1f}" stroke="{color}" '
                   f'stroke-width="{w:.1f}" stroke-opacity="0.75"/>')
        if abs(s) >= 0.1 * biggest:  # the large ones labelled, a third of the way down from the receiver
            lx, ly = x2 + dx + (x1 - x2 - dx) / 3, y2e + (y1 - 22 - y2e) / 3
            name = r["input"] + " " if r["input"] in ("q", "k", "v") else ""
            svg.append(f'<text x="{lx + 8:.1f}" y="{ly:.1f}" fill="{color}" font-size="12">{name}{s:+.2f}</text>')
    for label, (x, y) in pos.items():
        svg.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="22" fill="#f4f4f4" stroke="#555"/>')
        svg.append(f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle">{label}</text>')
    svg.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
