#!/usr/bin/env python3
"""The pictures of andrea-embed, parsed as XML: every cell, bar and label is where
it should be and carries the value numpy computes from x (--out) and from the
tables (--save-weights, read here byte by byte).
Usage: svg_test.py path/to/andrea-embed      (exit 77 without numpy)"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

try:
    import numpy as np
except ImportError:
    print("numpy not found: skipping the SVG checks")
    sys.exit(77)

SVG = "{http://www.w3.org/2000/svg}"
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def colour(v):  # the C++ scale: white -> RdBu's blue (-1) or red (+1)
    end = (178, 24, 43) if v > 0 else (33, 102, 172)
    a = min(abs(v), 1.0)
    return "#" + "".join(f"{int(math.floor(247 + a * (e - 247) + 0.5)):02x}" for e in end)


def texts(root, cls):
    return [t.text for t in root.iter(SVG + "text") if t.get("class") == cls]


def read_safetensors(path):
    raw = open(path, "rb").read()
    n, = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    data = raw[8 + n:]
    return {k: np.frombuffer(data[v["data_offsets"][0]:v["data_offsets"][1]], "<f4").reshape(v["shape"])
            for k, v in header.items()}


exe = sys.argv[1]
ids = [256, 1842, 7301, 256, 5]
with tempfile.TemporaryDirectory() as tmp:
    p = {name: os.path.join(tmp, name) for name in ("x.npy", "w.safetensors", "sim.svg", "wpe.svg", "norms.svg")}
    subprocess.run([exe, "--ids", ",".join(map(str, ids)), "--out", p["x.npy"], "--save-weights", p["w.safetensors"],
                    "--plot-similarity", p["sim.svg"], "--plot-table", "wpe", p["wpe.svg"],
                    "--plot-norms", p["norms.svg"]], check=True, stdout=subprocess.DEVNULL)
    x = np.load(p["x.npy"]).astype(np.float64)
    tables = read_safetensors(p["w.safetensors"])

    # Heatmap: 5 x 5 cosines of x's rows, labels t=i id ids[i], one value text per cell.
    root = ET.parse(p["sim.svg"]).getroot()
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = unit @ unit.T
    cells = [r for r in root.iter(SVG + "rect") if r.get("class") == "cell"]
    check(len(cells) == 25, f"heatmap: {len(cells)} cells, expected 25")
    for r in cells:
        i, j, v = int(r.get("data-row")), int(r.get("data-col")), float(r.get("data-value"))
        check(abs(v - cos[i, j]) <= 6e-5, f"heatmap cell ({i}, {j}): {v} vs numpy {cos[i, j]:.6f}")
        check(r.get("fill") == colour(v), f"heatmap cell ({i}, {j}): fill {r.get('fill')} vs {colour(v)}")
    diagonal = [r for r in cells if r.get("data-row") == r.get("data-col")]
    check(all(r.get("data-value") == "1.0000" and r.get("fill") == "#b2182b" for r in diagonal),
          "heatmap: the diagonal is not 1.0000 in full red")
    # Rows 0 and 3 are the same token at different positions: their cosine is the largest off the diagonal.
    check(float(next(r for r in cells if (r.get("data-row"), r.get("data-col")) == ("0", "3")).get("data-value"))
          == round(max(cos[i, j] for i in range(5) for j in range(5) if i != j), 4),
          "heatmap: cell (0, 3) is not the largest off-diagonal cosine")
    labels = [f"t={t} id {i}" for t, i in enumerate(ids)]
    check(texts(root, "row-label") == labels, f"heatmap row labels {texts(root, 'row-label')}")
    check(texts(root, "col-label") == labels, f"heatmap column labels {texts(root, 'col-label')}")
    check(texts(root, "value").count("1.00") == 5, "heatmap: five cells should read 1.00")
    check(texts(root, "scale-label") == ["+1", "0", "-1"], f"heatmap scale {texts(root, 'scale-label')}")
    check(texts(root, "title") == ["cosine similarity of the first 5 rows of x"], "heatmap title")

    # Table image: the top-left 64 x 128 block of wpe (1024, 768), values to 6 digits.
    root = ET.parse(p["wpe.svg"]).getroot()
    wpe = tables["wpe"]
    cells = [r for r in root.iter(SVG + "rect") if r.get("class") == "cell"]
    check(len(cells) == 64 * 128, f"table: {len(cells)} cells, expected {64 * 128}")
    got = np.zeros((64, 128))
    for r in cells:
        got[int(r.get("data-row")), int(r.get("data-col"))] = float(r.get("data-value"))
    check(np.allclose(got, wpe[:64, :128], rtol=1e-5, atol=0), "table: cell values differ from wpe[:64, :128]")
    a = np.abs(wpe[:64, :128]).max()
    r0, c0 = np.unravel_index(np.abs(wpe[:64, :128]).argmax(), (64, 128))
    extreme = next(r for r in cells if (int(r.get("data-row")), int(r.get("data-col"))) == (r0, c0))
    check(extreme.get("fill") in ("#b2182b", "#2166ac"), f"table: the largest |value| is drawn {extreme.get('fill')}")
    check(texts(root, "title") == ["wpe: rows 0..63 of 1024 x dimensions 0..127 of 768"], f"table title {texts(root, 'title')}")
    check(texts(root, "scale-label") == [f"{a:+.3g}", "0", f"{-a:+.3g}"], f"table scale {texts(root, 'scale-label')}")

    # Histogram: 30 bins over [min, max] of the row norms, counts as numpy bins them.
    root = ET.parse(p["norms.svg"]).getroot()
    norms = np.linalg.norm(np.load(p["x.npy"]).astype(np.float64), axis=1)
    bars = [r for r in root.iter(SVG + "rect") if r.get("class") == "bar"]
    check(len(bars) == 30, f"histogram: {len(bars)} bars")
    counts = [int(b.get("data-count")) for b in bars]
    check(sum(counts) == len(ids), f"histogram: counts {counts} do not add up to {len(ids)}")
    lo, hi = norms.min(), norms.max()
    expected = np.histogram(norms, bins=30, range=(lo, hi))[0].tolist()
    check(counts == expected, f"histogram counts {counts} vs numpy {expected}")
    check(abs(float(bars[0].get("data-lo")) - lo) <= 1e-5 * lo and abs(float(bars[-1].get("data-hi")) - hi) <= 1e-5 * hi,
          "histogram: bins do not span [min, max] of the norms")
    check(texts(root, "title") == ["row norms ||x[t]|| of the 5 rows of x"], "histogram title")

print(f"svg: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
