#!/usr/bin/env bash
# Lesson 9's trainer against fastText's skip-gram (Debian `fasttext`), one run each, one
# thread, the same corpus, words, d_model, window, negatives, epochs, min count, subsampling
# threshold and learning rate; then both tables scored on lessons/09_training/pairs.tsv.
#   bash bench/training_vs_fasttext.sh [BUILD_DIR] [EPOCHS]   (defaults: build, 10)
# fastText runs without subwords (-minn 0 -maxn 0): plain word2vec skip-gram. Its corpus is
# the text andrea-embed trains on, one sentence a line (same word rule, <unk> included).
# Speeds: words of the corpus read per second of one thread (before subsampling), fastText's
# own "words/sec/thread" and andrea-embed's; CPU seconds from /usr/bin/time as a check on a
# shared machine.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-build}
epochs=${2:-10}
exe=$build/apps/andrea-embed
command -v fasttext >/dev/null || { echo "fasttext not found: apt-get install fasttext" >&2; exit 1; }
[ -x "$exe" ] || { echo "$exe not found: cmake --build $build --target andrea-embed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$exe" train --dump-corpus "$tmp/corpus.txt" >/dev/null
/usr/bin/time -f "%U" -o "$tmp/ours.cpu" "$exe" train --epochs "$epochs" --quiet --out "$tmp/ours.safetensors" \
  >"$tmp/ours.txt"
/usr/bin/time -f "%U" -o "$tmp/ft.cpu" fasttext skipgram -input "$tmp/corpus.txt" -output "$tmp/ft" \
  -dim 64 -ws 5 -neg 5 -epoch "$epochs" -minCount 1 -t 1e-4 -lr 0.05 -minn 0 -maxn 0 -thread 1 \
  -verbose 2 >"$tmp/ft.txt" 2>&1 || { cat "$tmp/ft.txt"; exit 1; }

/usr/bin/python3 - "$tmp" "$here/lessons/09_training/pairs.tsv" "$epochs" <<'PY'
import json, re, struct, sys
import numpy as np
tmp, pairs_path, epochs = sys.argv[1], sys.argv[2], int(sys.argv[3])
words = [l.split()[0] for l in open(f"{tmp}/ours.vocab.txt")]
raw = open(f"{tmp}/ours.safetensors", "rb").read()   # safetensors: u64 header length, JSON, data
size = struct.unpack("<Q", raw[:8])[0]
entry = json.loads(raw[8:8 + size])["wte"]
begin, end = entry["data_offsets"]
wte = np.frombuffer(raw[8 + size + begin:8 + size + end], "<f4").reshape(entry["shape"])
ours = dict(zip(words, wte))
ft = {}
with open(f"{tmp}/ft.vec") as f:
    next(f)
    for line in f:
        w, *v = line.rstrip().split(" ")
        ft[w] = np.array(v, np.float32)
pairs = [l.rstrip("\n").split("\t") for l in open(pairs_path) if l.strip() and not l.startswith("#")]

def score(table, centre):
    mean = np.mean(np.stack(list(table.values())), axis=0) if centre else 0
    cos = lambda a, b: float((table[a] - mean) @ (table[b] - mean) /
                             np.linalg.norm(table[a] - mean) / np.linalg.norm(table[b] - mean))
    rel = [cos(a, b) for a, b, l in pairs if l == "related"]
    unr = [cos(a, b) for a, b, l in pairs if l == "unrelated"]
    med = np.median(unr)
    return np.mean(rel), np.mean(unr), 100 * np.mean(np.array(rel) > med)

ours_out = open(f"{tmp}/ours.txt").read()
ours_speed = float(re.search(r"([0-9.]+) words/s", ours_out).group(1))
ft_out = open(f"{tmp}/ft.txt").read().replace("\r", "\n")
ft_speed = float(re.findall(r"words/sec/thread:\s+([0-9]+)", ft_out)[-1])
words_total = sum(len(l.split()) for l in open(f"{tmp}/corpus.txt")) * epochs
cpu = {k: float(open(f"{tmp}/{k}.cpu").read().split()[-1]) for k in ("ours", "ft")}
print(f"{'':<14}{'words/s/thread':>16}{'CPU s':>8}{'words/CPU s':>13}   pairs raw: related / unrelated / above median   centred")
scores = {}  # key -> (raw, centred) scores
for name, key, speed, table in (("andrea-embed", "ours", ours_speed, ours), ("fastText", "ft", ft_speed, ft)):
    r = score(table, False); c = score(table, True)
    scores[key] = (r, c)
    print(f"{name:<14}{speed:>16,.0f}{cpu[key]:>8.1f}{words_total / cpu[key]:>13,.0f}   "
          f"{r[0]:+.3f} / {r[1]:+.3f} / {r[2]:.0f}%   {c[0]:+.3f} / {c[1]:+.3f} / {c[2]:.0f}%")
ratio = cpu["ft"] / cpu["ours"]
print(f"speed ratio andrea-embed / fastText (words per CPU second): {ratio:.2f}")
# Similarity: the share of related pairs above the unrelated median, raw and centred.
(o_raw, o_cen), (f_raw, f_cen) = scores["ours"], scores["ft"]
no_worse = o_raw[2] >= f_raw[2] and o_cen[2] >= f_cen[2]
print(f"goal trainer: {'meets' if ratio >= 2 else 'misses'} >= 2x fastText words per CPU second "
      f"({ratio:.2f}x); similarity {'no worse' if no_worse else 'WORSE'}: related pairs above "
      f"the unrelated median, raw {o_raw[2]:.0f}% vs {f_raw[2]:.0f}%, centred {o_cen[2]:.0f}% vs "
      f"{f_cen[2]:.0f}% (andrea-embed vs fastText)")
PY
