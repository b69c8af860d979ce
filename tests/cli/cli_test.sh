#!/usr/bin/env bash
# End-to-end checks of andrea-embed: the demo, every input path, --out read back
# by numpy, and bad input (non-zero exit, message on stderr, no output file).
# Usage: cli_test.sh path/to/andrea-embed
# shellcheck source=tests/cli/prelude.sh
. "$(dirname "$0")/prelude.sh" "$1"  # $exe, $tmp, fail

# expect_ok NAME PATTERN ARGS... : exit 0 and stdout matches PATTERN (grep -E)
expect_ok() {
  local name=$1 pattern=$2; shift 2
  if ! "$exe" "$@" >"$tmp/out" 2>"$tmp/err"; then fail "$name: exit $? ($(cat "$tmp/err"))"; return; fi
  grep -Eq -- "$pattern" "$tmp/out" || fail "$name: stdout lacks /$pattern/"
}

# expect_error NAME PATTERN ARGS... : non-zero exit, stderr matches PATTERN, no x.npy
# (--out goes to $out, default $tmp/x.npy)
expect_error() {
  local name=$1 pattern=$2; shift 2
  rm -f "$tmp/x.npy"
  if "$exe" "$@" --out "${out:-$tmp/x.npy}" >"$tmp/out" 2>"$tmp/err"; then fail "$name: exit 0"; return; fi
  grep -Fq -- "$pattern" "$tmp/err" || fail "$name: stderr lacks '$pattern': $(cat "$tmp/err")"
  [ ! -e "$tmp/x.npy" ] && [ ! -e "$tmp/x.npy.partial" ] || fail "$name: wrote an output file"
}

expect_ok default "7,275,264" 
expect_ok default-shape "shape \(1024, 768\)"
expect_ok ids "x\[2\] = wte\[7301\] \+ wpe\[2\]" --ids 256,1842,7301
expect_ok ids-spaces "3 token ids" --ids "1 2   3"
expect_ok text "2 token ids.*\[195, 169\]" --text "é"
expect_ok text-tokenizer "3 token ids.*\[386, 1470, 2055\]" --text "the cat sat"
expect_ok text-pieces "pieces   386 'the' \| 1470 ' cat' \| 2055 ' sat'" --text "the cat sat"
expect_ok bytes "3 token ids.*\[116, 104, 101\]" --bytes "the"
expect_ok gpt2 "38,597,376" --config gpt2-124m --ids 50256
expect_ok positions-sinusoidal "sinusoidal positions \(fixed\) +\(1024, 768\) +0 " --positions sinusoidal --ids 256,1842,7301
expect_ok positions-sinusoidal-layer "embedding layer +6,488,832" --positions sinusoidal --ids 256,1842,7301
expect_ok positions-sinusoidal-x "x\[1\] = wte\[1842\] \+ PE\[1\]" --positions sinusoidal --ids 256,1842,7301
printf '5, 6\n7\t8 9\n' >"$tmp/ids.txt"
expect_ok ids-file-text "\[6, 7, 8\]" --ids-file "$tmp/ids.txt" --offset 1 --length 3
printf '\x00\x01\x02\x00\x05\x00' >"$tmp/train.bin"   # 256, 2, 5 little-endian
expect_ok ids-file-uint16 "\[256, 2, 5\]" --ids-file "$tmp/train.bin"
expect_ok ids-file-window "\[2\]" --ids-file "$tmp/train.bin" --offset 1 --length 1

expect_error id-too-large "token id 8449 at position 2 is outside [0, 8449)" --ids 1,2,8449
expect_error id-negative "token id -1 at position 0 is outside [0, 8449)" --ids -1
expect_error too-long "sequence length 1025 exceeds context length 1024" --bytes "$(head -c 1025 /dev/zero | tr '\0' a)"
expect_error not-an-id "entry 2 'x' is not a token id" --ids 1,x
expect_error empty "empty sequence" --ids ","
expect_error missing-file "cannot open ids file" --ids-file "$tmp/nope.txt"
printf '\x00\x01\x02' >"$tmp/odd.bin"
expect_error truncated "is truncated: 3 bytes is not a whole number of uint16 ids" --ids-file "$tmp/odd.bin"
expect_error bad-offset "--offset 9 is outside the 3 ids" --ids-file "$tmp/train.bin" --offset 9
expect_error bad-length "--length 5 from --offset 1 runs past the 3 ids" --ids-file "$tmp/train.bin" --offset 1 --length 5
expect_error bad-config "config" --config llama
expect_error bad-backend "unknown backend 'tpu'" --backend tpu
expect_error old-backend-name "backend 'cuda' is spelled 'gpu' now" --backend cuda
expect_error bad-positions "unknown position scheme 'rope': learned or sinusoidal" --positions rope
"$exe" --positions rope --ids 1 >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || fail "bad --positions: exit $rc, expected 2 (bad input)"
expect_error two-inputs "excludes" --ids 1 --text a
expect_error empty-ids-value "empty sequence" --ids ""
expect_error empty-text "empty sequence" --text ""
expect_error text-and-bytes "excludes" --text a --bytes b
expect_error empty-backend "unknown backend ''" --backend ""
expect_error negative-length "--length" --ids-file "$tmp/train.bin" --length -3
expect_error negative-seed "--seed" --seed -1
expect_error directory-as-ids "cannot open ids file '$tmp': it is a folder, not a regular file" --ids-file "$tmp"
: >"$tmp/empty.txt"
expect_error empty-file "ids file '$tmp/empty.txt' is empty" --ids-file "$tmp/empty.txt"
printf ' \n, \n' >"$tmp/blank.txt"
expect_error blank-file "holds no ids" --ids-file "$tmp/blank.txt"
expect_error binary-as-text "is not a token id" --ids-file "$tmp/train.bin" --ids-format text
if "$exe" --ids 1 --out "" >/dev/null 2>"$tmp/err"; then fail "empty --out: exit 0"; fi
grep -Fq -- "--out needs a file name" "$tmp/err" || fail "empty --out: $(cat "$tmp/err")"
out=/dev/null expect_error device-as-out "cannot write '/dev/null': it exists and is not a regular file" --ids 1
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
out=/nonexistent/dir/x.npy expect_error unwritable "cannot write '/nonexistent/dir/x.npy': folder '/nonexistent/dir' does not exist" --ids 1

# --weights / --save-weights (safetensors): the saved tables give back x bit for bit;
# the project's and GPT-2's names, BF16/F16; malformed files exit 2 and write nothing.
golden=$(cd "$(dirname "$0")/../../golden/safetensors" && pwd)
"$exe" --ids 1,2,3 --out "$tmp/a.npy" --save-weights "$tmp/w.safetensors" >"$tmp/out" 2>"$tmp/err" || fail "save-weights: exit $?"
grep -Fq "wrote $tmp/w.safetensors (safetensors: wte (8449, 768), wpe (1024, 768) F32)" "$tmp/out" || fail "save-weights: $(tail -2 "$tmp/out")"
expect_ok weights-shapes "V = 8,449, d_model = 768, context_length T = 1,024, from the tables' shapes" --weights "$tmp/w.safetensors" --ids 1
expect_ok weights-counted "embedding layer +7,275,264" --weights "$tmp/w.safetensors" --ids 1
"$exe" --weights "$tmp/w.safetensors" --ids 1,2,3 --out "$tmp/b.npy" >/dev/null 2>&1 || fail "weights: exit $?"
cmp -s "$tmp/a.npy" "$tmp/b.npy" || fail "weights: x from the saved tables differs from x from the init"
expect_ok gpt2-names "V = 6, d_model = 3, context_length T = 2" --weights "$golden/gpt2_names.safetensors" --ids 5,0
expect_ok gpt2-names-x "x\[0\] = wte\[5\] \+ wpe\[0\] = \[\+3.5010, \+3.9990, \+8.0000" --weights "$golden/gpt2_names.safetensors" --ids 5,0
# safetensors FILE HEADER DATA : a file of this JSON header and these bytes (printf escapes)
safetensors() {
  local n=${#2}
  printf "$(printf '\\x%02x\\x%02x' $((n & 255)) $((n >> 8)))\0\0\0\0\0\0%s$3" "$2" >"$1"
}
# wte (2, 1) BF16 = [1, -2], wpe (1, 1) F16 = [1]
safetensors "$tmp/half.safetensors" '{"wte.weight":{"dtype":"BF16","shape":[2,1],"data_offsets":[0,4]},"wpe.weight":{"dtype":"F16","shape":[1,1],"data_offsets":[4,6]}}' '\x80\x3f\x00\xc0\x00\x3c'
expect_ok bf16 "wte 'wte.weight' BF16, wpe 'wpe.weight' F16" --weights "$tmp/half.safetensors" --ids 0
expect_ok bf16-x "x\[0\] = wte\[1\] \+ wpe\[0\] = \[-1.0000, \.\.\.\]" --weights "$tmp/half.safetensors" --ids 1
# expect_exit2 NAME PATTERN ARGS... : exit status 2, stderr has PATTERN, no output file
expect_exit2() {
  local name=$1 pattern=$2; shift 2
  rm -f "$tmp/x.npy" "$tmp/s.safetensors"
  "$exe" "$@" --out "$tmp/x.npy" --save-weights "$tmp/s.safetensors" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq 2 ] || fail "$name: exit $rc, not 2"
  grep -Fq -- "$pattern" "$tmp/err" || fail "$name: stderr lacks '$pattern': $(cat "$tmp/err")"
  [ ! -e "$tmp/x.npy" ] && [ ! -e "$tmp/s.safetensors" ] || fail "$name: wrote an output file"
}
expect_exit2 weights-id-past-V "token id 6 at position 1 is outside [0, 6)" --weights "$golden/gpt2_names.safetensors" --ids 5,6
expect_exit2 weights-past-T "sequence length 3 exceeds context length 2" --weights "$golden/gpt2_names.safetensors" --ids 1,2,3
head -c 100 "$golden/tiny_f32.safetensors" >"$tmp/cut.safetensors"
expect_exit2 weights-truncated "header length 192 runs past the end of the file (92 bytes" --weights "$tmp/cut.safetensors" --ids 1
printf '\x04\x00\x00\x00\x00\x00\x00\x00{oops' >"$tmp/notjson.safetensors"
expect_exit2 weights-not-json "the header is not valid JSON" --weights "$tmp/notjson.safetensors" --ids 1
printf '\x02\x00\x00\x00\x00\x00\x00\x00{}' >"$tmp/none.safetensors"
expect_exit2 weights-missing "no wte table: looked for wte, wte.weight, transformer.wte, transformer.wte.weight; the file holds no tensors" --weights "$tmp/none.safetensors" --ids 1
expect_exit2 weights-no-file "cannot open weights file '$tmp/nope.safetensors': no such file" --weights "$tmp/nope.safetensors" --ids 1
expect_exit2 weights-empty-name "--weights needs a file name" --weights "" --ids 1
expect_error save-weights-unwritable "cannot write '/nonexistent/w.safetensors'" --ids 1 --save-weights /nonexistent/w.safetensors

expect_error plot-table-name "--plot-table draws wte or wpe, not 'x'" --ids 1 --plot-table x "$tmp/t.svg"
expect_error plot-empty-name "--plot-norms needs a file name" --ids 1 --plot-norms ""
expect_error plot-unwritable "cannot write '/nonexistent/s.svg'" --ids 1 --plot-similarity /nonexistent/s.svg
[ ! -e "$tmp/t.svg" ] || fail "plot-table-name: wrote the picture"
# wpe of half_precision.safetensors holds +inf: refused where it is read, naming file, tensor and row.
expect_exit2 weights-non-finite "$golden/half_precision.safetensors: tensor 'wpe.weight' row 1 holds inf (column 1)" --weights "$golden/half_precision.safetensors" --ids 0 --plot-table wpe "$tmp/t.svg"
[ ! -e "$tmp/t.svg" ] || fail "weights-non-finite: wrote the picture"
# Small tables for the runs below (the default config's init is slow under ASan):
# wte and wpe (64, 64) F32, every value 1.
safetensors "$tmp/ones.safetensors" '{"wte":{"dtype":"F32","shape":[64,64],"data_offsets":[0,16384]},"wpe":{"dtype":"F32","shape":[64,64],"data_offsets":[16384,32768]}}' "$(printf '\\x00\\x00\\x80\\x3f%.0s' $(seq 8192))"
ones=(--weights "$tmp/ones.safetensors")

# Reads are bounded: a 4 GiB file (sparse: no disk used) is never read whole.
truncate -s 4G "$tmp/huge.bin"
expect_error huge-bin-whole "ids file '$tmp/huge.bin' holds 2147483648 ids from --offset 0, more than the 1024 a sequence may have" --ids-file "$tmp/huge.bin"
expect_ok huge-bin-window "3 token ids from $tmp/huge.bin \(raw uint16, offset 2147483000\): \[0, 0, 0\]" "${ones[@]}" --ids-file "$tmp/huge.bin" --offset 2147483000 --length 3
truncate -s 4G "$tmp/huge.txt"   # 4 GiB of NUL read as text: entry 1 is refused after one chunk
expect_error huge-text "$tmp/huge.txt: entry 1 '????????????????????????...' is at least 65536 characters long, more than the 64 a token id may have" --ids-file "$tmp/huge.txt"
seq 1 2000 >"$tmp/long.txt"
expect_error text-past-T "ids file '$tmp/long.txt' holds more than 1024 ids from --offset 0" --ids-file "$tmp/long.txt"
expect_ok text-window "\[1990, 1991\]" --ids-file "$tmp/long.txt" --offset 1989 --length 2
rm -f "$tmp/huge.bin" "$tmp/huge.txt"

# Integer options: the value typed, refused against the option's bounds (never wrapped or clamped).
expect_error seed-past-uint64 "--seed 18446744073709551616 is outside [0, 18446744073709551615]" --seed 18446744073709551616
expect_error seed-minus-one "--seed -1 is outside [0, 18446744073709551615]" --seed -1
expect_error offset-minus-one "--offset -1 is outside [0, 9223372036854775807]" --ids-file "$tmp/ids.txt" --offset -1
expect_error length-huge "--length 99999999999999999999 is outside [1, 9223372036854775807]" --ids-file "$tmp/ids.txt" --length 99999999999999999999
expect_error length-zero "--length 0 is outside [1, 9223372036854775807]" --ids-file "$tmp/ids.txt" --length 0
expect_error length-past-T "--length 2000 is more than the context length T = 1024 of andrea-120m" --ids-file "$tmp/long.txt" --length 2000

# All outputs or none. A 254-byte name is legal, and so is its temporary; 256 bytes is
# refused before any work, and the picture asked for with it is not left behind.
dir="$tmp/outs"; mkdir "$dir"
name254=$(printf 'n%.0s' $(seq 250)).npy
"$exe" "${ones[@]}" --ids 1,2 --plot-similarity "$dir/ok.svg" --out "$dir/$name254" >/dev/null 2>"$tmp/err" || fail "254-byte name: $(cat "$tmp/err")"
[ -s "$dir/ok.svg" ] && [ -s "$dir/$name254" ] || fail "254-byte name: not both files written"
rm -f "$dir"/*
out="$dir/$(printf 'n%.0s' $(seq 252)).npy" expect_error name-too-long "File name too long" --ids 1 --plot-similarity "$dir/ok.svg"
[ -z "$(ls -A "$dir")" ] || fail "name-too-long: left $(ls -A "$dir")"
# Past a file-size limit: the reason named, neither file nor a temporary left.
(ulimit -f 64; exec "$exe" "${ones[@]}" --ids 1,2 --plot-similarity "$dir/ok.svg" --plot-table wte "$dir/big.svg") >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] || fail "file-too-large: exit $rc, expected 2"
grep -Fq "cannot write '$dir/big.svg': File too large (no output was written)" "$tmp/err" || fail "file-too-large: $(cat "$tmp/err")"
[ -z "$(ls -A "$dir")" ] || fail "file-too-large: left $(ls -A "$dir")"
# Outputs that are one file, or an input.
out="$dir/same" expect_error two-outputs-one-file "--plot-norms '$dir/same' and --out '$dir/same' name the same file" --ids 1 --plot-norms "$dir/same"
cp "$tmp/ids.txt" "$tmp/ids-before.txt"
out="$tmp/ids.txt" expect_error output-is-input "--out '$tmp/ids.txt' is the input --ids-file '$tmp/ids.txt'" --ids-file "$tmp/ids.txt"
ln "$tmp/ids.txt" "$dir/hard.npy"   # another name of the same file
out="$dir/hard.npy" expect_error output-is-input-linked "--out '$dir/hard.npy' is the input --ids-file '$tmp/ids.txt'" --ids-file "$tmp/ids.txt"
cmp -s "$tmp/ids.txt" "$tmp/ids-before.txt" || fail "output-is-input: the input was changed"
rm -f "$dir"/*

# Text from a file is printed escaped: a tensor name with an escape sequence.
safetensors "$tmp/esc.safetensors" '{"\u001b[31mwte":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]}}' '\x00\x00\x80\x3f'
expect_error escaped-name 'the file holds \x1b[31mwte' --weights "$tmp/esc.safetensors" --ids 0
! grep -q $'\x1b' "$tmp/err" || fail "escaped-name: a raw escape character reached stderr"

# --out: numpy reads back float32 (n, d_model) equal to x = wte[id] + wpe[t].
if /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  "$exe" --ids 256,1842,7301 --out "$tmp/x.npy" >/dev/null || fail "npy: exit $?"
  /usr/bin/python3 - "$tmp/x.npy" <<'PY' || fail "npy: numpy check"
import sys, numpy as np
x = np.load(sys.argv[1])
assert x.dtype == np.float32 and x.shape == (3, 768), (x.dtype, x.shape)
assert np.isfinite(x).all() and 1.2 < np.linalg.norm(x[0]) < 1.7, np.linalg.norm(x[0])
PY
  /usr/bin/python3 - "$tmp/w.safetensors" "$tmp/a.npy" <<'PY' || fail "save-weights: numpy check"
import json, struct, sys, numpy as np
raw = open(sys.argv[1], "rb").read()
n, = struct.unpack("<Q", raw[:8])
header = json.loads(raw[8:8 + n])
meta = header.pop("__metadata__")
assert meta == {"format": "andrea-embeddings", "config": "andrea-120m", "vocab_size": "8449", "d_model": "768",
                "context_length": "1024", "seed": "1337", "positions": "learned"}, meta
data = raw[8 + n:]
t = {k: np.frombuffer(data[v["data_offsets"][0]:v["data_offsets"][1]], "<f4").reshape(v["shape"]) for k, v in header.items()}
assert t["wte"].shape == (8449, 768) and t["wpe"].shape == (1024, 768) and n % 8 == 0
x = np.load(sys.argv[2])
assert np.array_equal(x, t["wte"][[1, 2, 3]] + t["wpe"][:3]), "x != wte[ids] + wpe[:3]"
PY
else
  echo "numpy not found: the --out read-back check is not run"
fi

echo "cli: $failures failure(s)"
[ "$failures" -eq 0 ]
