#!/usr/bin/env bash
# End-to-end checks of andrea-embed: the demo, every input path, --out read back
# by numpy, and bad input (non-zero exit, message on stderr, no output file).
# Usage: cli_test.sh path/to/andrea-embed
set -u
exe=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

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
expect_error too-long "sequence length 1025 exceeds context length 1024" --text "$(head -c 1025 /dev/zero | tr '\0' a)"
expect_error not-an-id "entry 2 'x' is not a token id" --ids 1,x
expect_error empty "empty sequence" --ids ","
expect_error missing-file "cannot open ids file" --ids-file "$tmp/nope.txt"
printf '\x00\x01\x02' >"$tmp/odd.bin"
expect_error truncated "is truncated: 3 bytes is not a whole number of uint16 ids" --ids-file "$tmp/odd.bin"
expect_error bad-offset "--offset 9 is outside the 3 ids" --ids-file "$tmp/train.bin" --offset 9
expect_error bad-length "--length 5 from --offset 1 runs past the 3 ids" --ids-file "$tmp/train.bin" --offset 1 --length 5
expect_error bad-config "config" --config llama
expect_error bad-backend "unknown backend 'tpu'" --backend tpu
expect_error bad-positions "unknown position scheme 'rope': learned or sinusoidal" --positions rope
"$exe" --positions rope --ids 1 >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || fail "bad --positions: exit $rc, expected 2 (bad input)"
expect_error two-inputs "excludes" --ids 1 --text a
expect_error empty-ids-value "empty sequence" --ids ""
expect_error empty-text "empty sequence" --text ""
expect_error empty-backend "unknown backend ''" --backend ""
expect_error negative-length "--length" --ids-file "$tmp/train.bin" --length -3
expect_error negative-seed "--seed" --seed -1
expect_error directory-as-ids "cannot open ids file '$tmp': not a regular file" --ids-file "$tmp"
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

# --out: numpy reads back float32 (n, d_model) equal to x = wte[id] + wpe[t].
if /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  "$exe" --ids 256,1842,7301 --out "$tmp/x.npy" >/dev/null || fail "npy: exit $?"
  /usr/bin/python3 - "$tmp/x.npy" <<'PY' || fail "npy: numpy check"
import sys, numpy as np
x = np.load(sys.argv[1])
assert x.dtype == np.float32 and x.shape == (3, 768), (x.dtype, x.shape)
assert np.isfinite(x).all() and 1.2 < np.linalg.norm(x[0]) < 1.7, np.linalg.norm(x[0])
PY
else
  echo "numpy not found: the --out read-back check is not run"
fi

echo "cli: $failures failure(s)"
[ "$failures" -eq 0 ]
