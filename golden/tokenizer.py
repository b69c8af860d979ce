#!/usr/bin/env python3
"""Golden values for the course's byte-level BPE tokenizer (golden/tokenizer.json).

Pure Python 3 (no numpy, no torch, no network): an implementation of the rules written in
tokenizer/bpe.hpp made independently of the C++ code, in a different way on purpose:

  * pre-split by one regular expression (the C++ scans byte classes by hand);
  * training recounts every pair over every distinct chunk before each merge (the C++ keeps a
    table updated incrementally);
  * encoding merges the single leftmost occurrence of the lowest-rank pair at a time, as
    tiktoken does (the C++ merges every occurrence of that pair in one pass).

Usage:
  python3 golden/tokenizer.py           # writes golden/tokenizer.json (about a second)
  python3 golden/tokenizer.py --out DIR # writes DIR/tokenizer.json
  python3 golden/tokenizer.py --check   # regenerate to a temp dir, compare byte for byte
"""
import argparse
import json
import os
import pathlib
import random
import re
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
WS = rb" \t\n\x0b\x0c\r"
LETTER = rb"A-Za-z\x80-\xff"
# A chunk: one optional ' ' then a run of one non-space class; or a run of spaces that leaves
# its last ' ' to a following non-space; or any other run of spaces.
CHUNK = re.compile(
    rb" ?[" + LETTER + rb"]+"
    rb"| ?[0-9]+"
    rb"| ?[^" + LETTER + rb"0-9" + WS + rb"]+"
    rb"|[" + WS + rb"]+(?= [^" + WS + rb"])"
    rb"|[" + WS + rb"]+")


def pre_split(data: bytes) -> list:
    chunks = CHUNK.findall(data)
    assert b"".join(chunks) == data
    return chunks


def merge_all(ids, pair, token):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(token)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def train(corpus: bytes, merges: int) -> list:
    words = {}
    for chunk in pre_split(corpus):
        words[chunk] = words.get(chunk, 0) + 1
    seqs = [(list(chunk), n) for chunk, n in words.items()]
    result = []
    for r in range(merges):
        counts = {}
        for ids, n in seqs:
            for pair in zip(ids, ids[1:]):
                counts[pair] = counts.get(pair, 0) + n
        if not counts:
            raise SystemExit(f"corpus ran out of pairs after {r} merges")
        # Highest count, then the smallest (left, right).
        best = min(counts, key=lambda p: (-counts[p], p[0], p[1]))
        result.append(best)
        seqs = [(merge_all(ids, best, 256 + r), n) for ids, n in seqs]
    return result


def encode(merges: list, data: bytes) -> list:
    rank = {tuple(pair): r for r, pair in enumerate(merges)}
    out = []
    for chunk in pre_split(data):
        ids = list(chunk)
        while True:
            found = [(rank[p], i) for i, p in enumerate(zip(ids, ids[1:])) if p in rank]
            if not found:
                break
            r, i = min(found)  # lowest rank, then leftmost
            ids[i:i + 2] = [256 + r]
        out += ids
    return out


def decode(merges: list, ids: list) -> bytes:
    pieces = [bytes([b]) for b in range(256)]
    for left, right in merges:
        pieces.append(pieces[left] + pieces[right])
    pieces.append(b"<|endoftext|>")
    return b"".join(pieces[i] for i in ids)


def read_merges(path: pathlib.Path) -> list:
    lines = path.read_text(encoding="ascii").splitlines()
    head = lines[0].split()
    assert head[0] == "andrea-bpe" and int(head[2]) == 256 + int(head[4]) + 1
    merges = []
    for r, line in enumerate(lines[1:]):
        token, left, right = (int(x) for x in line.split(" #")[0].split())
        assert token == 256 + r and left < token and right < token
        merges.append((left, right))
    assert len(merges) == int(head[4])
    return merges


# A small corpus worked with the rules: English sentences, French with accents (UTF-8), digits,
# punctuation, runs of spaces and tabs, and bytes that are not UTF-8.
SMALL_CORPUS = (
    "the cat sat on the mat. the dog sat on the log!\n"
    "a cat and a dog: 12 cats, 3 dogs -- 1234 pets in all.\n"
    "le chat a mang\u00e9 la souris ; l'\u00e9l\u00e8ve \u00e9tudie \u00e0 l'\u00e9cole.\n"
    "  indented  line\twith\ttabs   and   spaces \n"
    "aaaa bbbb aaaa abab abab\n"
).encode("utf-8") * 3 + bytes([0xff, 0xfe, 0x80, 0x41, 0x42, 0xc3, 0x28, 0x0a])
SMALL_MERGES = 60

TEXTS = [
    "the cat sat on the mat",
    "a dog and a cat: 42 pets!",
    "l'\u00e9l\u00e8ve mang\u00e9",
    "   spaced\t\tout  \n\n words ",
    "aaaaaaa abababab",
    "",
    "x",
]


def encode_chunk(merges: list, data: bytes) -> list:
    """One chunk, without the pre-split (reference::encode_chunks, one chunk)."""
    rank = {tuple(pair): r for r, pair in enumerate(merges)}
    ids = list(data)
    while True:
        found = [(rank[p], i) for i, p in enumerate(zip(ids, ids[1:])) if p in rank]
        if not found:
            return ids
        r, i = min(found)
        ids[i:i + 2] = [256 + r]


def count_pairs(ids: list, vocab_size: int) -> list:
    """[a, b, count] for every pair counted, sorted (reference::count_pairs)."""
    counts = {}
    for a, b in zip(ids, ids[1:]):
        if a >= 0 and b >= 0:
            counts[(a, b)] = counts.get((a, b), 0) + 1
    return [[a, b, n] for (a, b), n in sorted(counts.items())]


def lesson_case(small: list) -> dict:
    """Lesson 11's functions: encode_chunks, decode_ids (small corpus's merges) and
    count_pairs on ids with a skewed distribution (popular pairs, as in text) and separators."""
    rng = random.Random(11)
    chunks = [b"the", b" cat", b"aaaaaaa", b"abababab", b"\xc3\xa9l\xc3\xa8ve", b"", b"zz"]
    vocab_size = 300
    ids = []
    for _ in range(3000):
        u = rng.random()
        ids.append(-1 if u < 0.05 else int(vocab_size * u ** 3))
    return {"name": "lesson", "merges": [list(p) for p in small],
            "chunks": [{"bytes_hex": hex_of(c), "ids": encode_chunk(small, c)} for c in chunks],
            "pairs": {"vocab_size": vocab_size, "ids": ids, "counts": count_pairs(ids, vocab_size)}}


def hex_of(data: bytes) -> str:
    return data.hex()


def document() -> dict:
    rng = random.Random(1337)
    small = train(SMALL_CORPUS, SMALL_MERGES)
    inputs = [t.encode("utf-8") for t in TEXTS]
    inputs.append(bytes(rng.randrange(256) for _ in range(64)))  # not UTF-8
    inputs.append(SMALL_CORPUS)
    small_cases = []
    for data in inputs:
        ids = encode(small, data)
        assert decode(small, ids) == data
        small_cases.append({"bytes_hex": hex_of(data), "ids": ids})
    shipped = read_merges(ROOT / "tokenizer" / "merges.txt")
    shipped_texts = [t.encode("utf-8") for t in TEXTS[:4]] + [
        b"the first layer of a language model turns token ids into vectors.",
        "na\u00efve caf\u00e9 r\u00e9sum\u00e9".encode("utf-8"),
    ]
    shipped_cases = []
    for data in shipped_texts:
        ids = encode(shipped, data)
        assert decode(shipped, ids) == data
        shipped_cases.append({"bytes_hex": hex_of(data), "ids": ids})
    return {
        "generator": "golden/tokenizer.py (pure Python, independent of the C++)",
        "piece": "tokenizer",
        "rules": "tokenizer/bpe.hpp: pre-split chunks, pair count with overlaps, "
                 "highest count then smallest (left, right), merges left to right",
        "cases": [
            {"name": "small_corpus", "corpus_hex": hex_of(SMALL_CORPUS), "merges": SMALL_MERGES,
             "expected_merges": [list(p) for p in small], "vocab_size": 256 + SMALL_MERGES + 1,
             "chunks_of_first_line": [c.decode("utf-8") for c in pre_split(inputs[3])],
             "encodings": small_cases},
            lesson_case(small),
            {"name": "shipped", "merges_file": "tokenizer/merges.txt", "vocab_size": 256 + len(shipped) + 1,
             "encodings": shipped_cases},
        ],
    }


def write(out_dir: pathlib.Path) -> pathlib.Path:
    path = out_dir / "tokenizer.json"
    path.write_text(json.dumps(document(), indent=1, sort_keys=True) + "\n")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "golden")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            fresh = write(pathlib.Path(tmp)).read_text()
        if fresh != (ROOT / "golden" / "tokenizer.json").read_text():
            print("golden/tokenizer.json differs from what golden/tokenizer.py writes")
            return 1
        print("golden/tokenizer.json matches")
        return 0
    print(f"wrote {write(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
