#!/usr/bin/env bash
# Hostile input, class by class (issue 30): each class in several forms, so that it is
# fixed as a class and not by its example. Every refusal must exit 2, name the value and
# its bound (or the real cause) on stderr, and leave no file (no output, no temporary).
# Usage: hostile_test.sh path/to/andrea-embed [path/to/andrea-embed-parallel]
# (the parallel program runs as one process, without mpirun: MPI's singleton start)
# shellcheck source=tests/cli/prelude.sh
. "$(dirname "$0")/prelude.sh" "$1"  # $exe, $tmp, fail
parallel=${2:-}
out=$tmp/out  # every output goes here; a refusal leaves it empty

# refuse NAME PATTERN COMMAND... : exit 2 within 30 s (a hang is a failure), stderr holds PATTERN, $out empty
refuse() {
  local name=$1 pattern=$2; shift 2
  rm -rf "$out"; mkdir "$out"
  timeout 30 "$@" >"$tmp/stdout" 2>"$tmp/err" </dev/null
  local rc=$?
  [ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2 ($(head -c 300 "$tmp/err"))"
  grep -Fq -- "$pattern" "$tmp/err" || fail "$name: stderr lacks '$pattern': $(head -c 300 "$tmp/err")"
  [ -z "$(ls -A "$out")" ] || fail "$name: left $(ls -A "$out")"
}
# accept NAME PATTERN COMMAND... : exit 0 and stdout holds PATTERN
accept() {
  local name=$1 pattern=$2; shift 2
  timeout 30 "$@" >"$tmp/stdout" 2>"$tmp/err" </dev/null || fail "$name: exit $? ($(head -c 300 "$tmp/err"))"
  grep -Fq -- "$pattern" "$tmp/stdout" || fail "$name: stdout lacks '$pattern'"
}
embed() { refuse "$1" "$2" "$exe" "${@:3}"; }

# Small trained weights for similar and neighbors.
for i in $(seq 1 30); do echo "the cat eats and the dog eats fur"; echo "on monday and tuesday"; done >"$tmp/c.txt"
"$exe" train --corpus "$tmp/c.txt" --quiet --min-count 1 --subsample 0 --d-model 4 --epochs 1 --out "$tmp/w.safetensors" \
  >/dev/null 2>&1 || fail "setup: train failed"

# A safetensors file of 1 x 2 tables, its header between PREFIX and SUFFIX (printf escapes).
header='{"wte":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]},"wpe":{"dtype":"F32","shape":[1,2],"data_offsets":[8,16]}}'
safetensors() {  # safetensors FILE PREFIX SUFFIX [DATA]: the header between PREFIX and SUFFIX (printf escapes)
  printf "$2%s$3" "$header" >"$tmp/h"
  local n; n=$(wc -c <"$tmp/h")
  printf "$(printf '\\%03o' $((n & 255)) $((n >> 8 & 255)) 0 0 0 0 0 0)" >"$1"
  cat "$tmp/h" >>"$1"
  printf "${4:-\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x80\x3f\x00\x00\x00\x40}" >>"$1"
}
safetensors "$tmp/ok.st" "" "   "

# --- 3. Counts that feed a loop or an allocation are bounded where they are read.
if [ -n "$parallel" ]; then
  mpi() {  # MPI's own allocations are not the program's leaks (as in the L10 tests)
    refuse "$1" "$2" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      ASAN_OPTIONS=detect_leaks=0 "$parallel" "${@:3}"
  }
  mpi repeat-max "--repeat 9223372036854775807 is outside [0, 1000000]" --repeat 9223372036854775807
  mpi batch-max "is more than 2^63" --batch 9223372036854775807
fi
embed k-max "-k 9223372036854775807 is outside [1, 1000]" neighbors --weights "$tmp/w.safetensors" -k 9223372036854775807 cat
embed epochs-max "--epochs 9223372036854775807 is outside" train --epochs 9223372036854775807
printf '1 2 3\n' >"$tmp/ids.txt"
embed offset-max "--offset 9223372036854775807 is outside the 3 ids" --ids-file "$tmp/ids.txt" --offset 9223372036854775807
embed length-max "--length 9223372036854775807 is more than the context length" --ids-file "$tmp/ids.txt" --length 9223372036854775807

# --- 1. A signal mid-write removes every temporary, and the exit status names the signal.
# The run writes 29 MB: it is caught while a temporary exists (a few tries at most).
signal_case() {  # signal_case NAME NUMBER
  local name=$1 number=$2 caught=0 attempt pid rc
  for attempt in 1 2 3 4 5; do
    rm -rf "$out"; mkdir "$out"
    env --default-signal="$name" "$exe" --ids 1 --save-weights "$out/g.safetensors" \
      --out "$out/x.npy" --plot-table wte "$out/t.svg" >/dev/null 2>&1 &
    pid=$!
    while true; do  # until a temporary appears or the run ends
      compgen -G "$out/.andrea-*.tmp" >/dev/null && { kill -s "$name" "$pid"; caught=1; break; }
      kill -0 "$pid" 2>/dev/null || break
    done
    wait "$pid" 2>/dev/null; rc=$?
    [ "$caught" -eq 1 ] && break
  done
  [ "$caught" -eq 1 ] || { fail "signal $name: never caught a run while it wrote"; return; }
  [ "$attempt" -eq 1 ] || echo "note: signal $name: caught on try $attempt"
  [ "$rc" -eq $((128 + number)) ] || fail "signal $name: exit $rc, expected $((128 + number))"
  [ -z "$(ls -A "$out")" ] || fail "signal $name: left $(ls -A "$out")"
}
signal_case TERM 15
signal_case INT 2
signal_case HUP 1

# --- 2. Inputs that never end or never come: a regular file only, read whole with a bound.
mkfifo "$tmp/fifo"
embed corpus-fifo "cannot open the corpus file '$tmp/fifo': it is a FIFO (a pipe), not a regular file" train --corpus "$tmp/fifo" --out "$out/e.safetensors"
embed corpus-zero "cannot open the corpus file '/dev/zero': it is a device, not a regular file" train --corpus /dev/zero --out "$out/e.safetensors"
truncate -s 257M "$tmp/big.txt"  # sparse: no disk used
embed corpus-too-large "the corpus file '$tmp/big.txt' is larger than 268435456 bytes" train --corpus "$tmp/big.txt" --out "$out/e.safetensors"
embed pairs-fifo "cannot open the pair list '$tmp/fifo': it is a FIFO" similar --weights "$tmp/w.safetensors" --pairs "$tmp/fifo" cat
embed train-pairs-zero "cannot open the pair list '/dev/zero': it is a device" train --corpus "$tmp/c.txt" --pairs /dev/zero --out "$out/e.safetensors"
cp "$tmp/w.safetensors" "$tmp/z.safetensors"; ln -s /dev/zero "$tmp/z.vocab.txt"
embed vocab-zero "cannot open the vocabulary file '$tmp/z.vocab.txt': it is a device" similar --weights "$tmp/z.safetensors" cat
embed ids-fifo "cannot open ids file '$tmp/fifo': it is a FIFO" --ids-file "$tmp/fifo"
embed weights-fifo "cannot open weights file '$tmp/fifo': it is a FIFO" --weights "$tmp/fifo" --ids 1
mkdir -p "$tmp/wn"; mkfifo "$tmp/wn/data.noun"
embed wordnet-fifo "cannot open the WordNet corpus file '$tmp/wn/data.noun': it is a FIFO" train --corpus "$tmp/wn" --out "$out/e.safetensors"

# --- 7. One rule for every number: -?[0-9]+ ("-0" is 0), no '+', no spaces.
embed seed-plus "--seed '+5' is not an integer" --seed +5 --ids 1
embed ids-plus "entry 1 '+1' is not a token id" --ids +1
embed seed-space "--seed ' 5' is not an integer" --seed " 5" --ids 1
embed length-space "--length ' 2' is not an integer" --ids-file "$tmp/ids.txt" --length " 2"
printf '1 +2\n' >"$tmp/plus.txt"
embed ids-file-plus "entry 2 '+2' is not a token id" --ids-file "$tmp/plus.txt"
embed train-seed-plus "--seed '+1' is not an integer" train --seed +1
cp "$tmp/w.safetensors" "$tmp/p.safetensors"; sed '2s/ \([0-9]*\)$/ +\1/' "$tmp/w.vocab.txt" >"$tmp/p.vocab.txt"
embed vocab-count-plus "p.vocab.txt:2: expected 'word count'" similar --weights "$tmp/p.safetensors" cat
embed lr-plus "--lr '+0.1' is not a number" train --lr +0.1
embed lr-space "--lr ' 0.1' is not a number" train --lr " 0.1"
embed lr-hex "--lr '0x1p-3' is not a number" train --lr 0x1p-3
accept init-seed-minus-zero "cat" "$exe" similar --weights "$tmp/w.safetensors" --init-seed -0 cat dog
accept ids-minus-zero "token ids from --ids: [0]" "$exe" --weights "$tmp/ok.st" --ids -0
printf '0 0\n' >"$tmp/zeros.txt"
accept offset-minus-zero "1 token ids from" "$exe" --weights "$tmp/ok.st" --ids-file "$tmp/zeros.txt" --offset -0 --length 1

# --- 8. The safetensors header as the format allows it: '{' first, only spaces after the JSON.
accept header-spaces "weights  $tmp/ok.st" "$exe" --weights "$tmp/ok.st" --ids 0
safetensors "$tmp/nul.st" "" '\x00xy'
embed header-nul "only spaces (0x20) may follow the header's JSON, not byte 0x00" --weights "$tmp/nul.st" --ids 0 --save-weights "$out/s.st"
safetensors "$tmp/tab.st" "" '\t'
embed header-tab "not byte 0x09" --weights "$tmp/tab.st" --ids 0 --save-weights "$out/s.st"
safetensors "$tmp/nl.st" "" '  \n'
embed header-newline "not byte 0x0A at offset 118" --weights "$tmp/nl.st" --ids 0
safetensors "$tmp/bom.st" '\xef\xbb\xbf' ""
embed header-bom "the header must begin with '{' (0x7B), not with byte 0xEF" --weights "$tmp/bom.st" --ids 0 --save-weights "$out/s.st"
safetensors "$tmp/lead.st" ' ' ""
embed header-leading-space "not with byte 0x20" --weights "$tmp/lead.st" --ids 0
safetensors "$tmp/junk.st" "" ' x '
embed header-garbage "not byte 0x78 at offset 117" --weights "$tmp/junk.st" --ids 0
cp "$tmp/nul.st" "$tmp/nul.safetensors"; cp "$tmp/w.vocab.txt" "$tmp/nul.vocab.txt"
embed header-nul-similar "not byte 0x00" similar --weights "$tmp/nul.safetensors" cat

# --- 6. An option that has no effect in its combination is refused, naming both.
embed ids-format-with-ids "--ids-format requires --ids-file" --ids 1 --ids-format uint16
embed ids-format-with-text "--ids-format requires --ids-file" --text a --ids-format text
"$exe" --ids 1 --save-weights "$tmp/s.safetensors" >/dev/null 2>&1 || fail "setup: --save-weights"
embed seed-with-weights "--seed has no effect with --weights and an input" --weights "$tmp/s.safetensors" --ids 1 --seed 5
embed dump-with-lr "--lr excludes --dump-corpus" train --corpus "$tmp/c.txt" --dump-corpus "$out/d.txt" --lr 0.1
embed dump-with-pairs "--pairs excludes --dump-corpus" train --corpus "$tmp/c.txt" --dump-corpus "$out/d.txt" --pairs "$tmp/c.txt"
embed dump-with-out "--out excludes --dump-corpus" train --corpus "$tmp/c.txt" --dump-corpus "$out/d.txt" --out "$out/e.safetensors"
[ -n "$parallel" ] && mpi length-with-ids "--ids excludes --length" --ids 1,2 --length 2

# --- 5. Numbers that cannot train or cannot be represented; the input blamed, by name.
embed init-scale-subnormal "--init-scale 1e-320 is outside [1e-06, 1000]" train --init-scale 1e-320
embed lr-subnormal "--lr 5e-324 is outside [1e-06, 10]" train --lr 5e-324
embed lr-zero "--lr 0 is outside [1e-06, 10]" train --lr 0
embed lr-overflow "--lr 1e400 is outside" train --lr 1e400
embed lr-nan "--lr 'nan' is not a number" train --lr nan
embed subsample-subnormal "--subsample 1e-310 is outside [0, 1]" train --subsample 1e-310
safetensors "$tmp/big.st" "" "" '\x00\x00\x80\x3f\xe6\xb1\x61\x7f\x00\x00\x80\x3f\xe6\xb1\x61\x7f'  # 1, 3e38 twice
embed sum-overflow "x[0] = wte[0] + wpe[0] is inf in column 1 (3e+38 + 3e+38)" --weights "$tmp/big.st" --ids 0

# --- 9. Messages that name the real cause.
# A /proc file reports a size of 0 but holds a number (pid_max: 32768 or more, above V).
embed proc-file "token id $(cat /proc/sys/kernel/pid_max) at position 0 is outside [0, 8449)" --ids-file /proc/sys/kernel/pid_max
embed proc-file-uint16 "reports a size of 0 bytes but is not empty" --ids-file /proc/sys/kernel/pid_max --ids-format uint16
ln -s loop "$tmp/loop"
embed loop-ids "cannot open ids file '$tmp/loop': Too many levels of symbolic links" --ids-file "$tmp/loop"
embed loop-weights "cannot open weights file '$tmp/loop': Too many levels of symbolic links" --weights "$tmp/loop" --ids 1
embed loop-corpus "cannot open the corpus file '$tmp/loop': Too many levels of symbolic links" train --corpus "$tmp/loop" --out "$out/e.safetensors"
cp "$tmp/w.safetensors" "$tmp/d.safetensors"; mkdir "$tmp/d.vocab.txt"
embed folder-vocab "cannot open the vocabulary file '$tmp/d.vocab.txt': it is a folder, not a regular file" similar --weights "$tmp/d.safetensors" cat
grep -Fq "basic_filebuf" "$tmp/err" && fail "folder-vocab: the library's raw message"
embed folder-pairs "cannot open the pair list '$tmp/wn': it is a folder, not a regular file" similar --weights "$tmp/w.safetensors" --pairs "$tmp/wn" cat
embed folder-pairs-train "cannot open the pair list '$tmp/wn': it is a folder" train --corpus "$tmp/c.txt" --pairs "$tmp/wn" --out "$out/e.safetensors"
embed parent-is-file "cannot write '$tmp/c.txt/x.npy': '$tmp/c.txt' is not a folder" --ids 1 --out "$tmp/c.txt/x.npy"
embed grandparent-is-file "cannot write '$tmp/c.txt/a/x.npy': folder '$tmp/c.txt/a' cannot be used (Not a directory)" --ids 1 --out "$tmp/c.txt/a/x.npy"
embed parent-loop "folder '$tmp/loop' cannot be used (Too many levels of symbolic links)" --ids 1 --out "$tmp/loop/x.npy"
# Out of memory under a 150 MB limit (gpt2-124m's tables take 157 MB). Where the program
# cannot start under the limit (ASan, a CUDA runtime), nothing is checked.
{ (ulimit -v 150000; exec "$exe" --config gpt2-124m --backend cpu --ids 1 2>"$tmp/err" >/dev/null); } 2>/dev/null
if grep -Fq "out of memory: the tables" "$tmp/err"; then
  grep -Fq -- "--weights" "$tmp/err" && fail "oom: names --weights, which was not given: $(cat "$tmp/err")"
else
  echo "note: the out-of-memory message was not reached under ulimit -v 150000: $(head -c 200 "$tmp/err")"
fi

# --- 10. What a saved file says it is: the sinusoidal table is saved and read back as such.
"$exe" --positions sinusoidal --ids 1 --save-weights "$tmp/sin.safetensors" >/dev/null 2>&1 || fail "setup: sinusoidal save"
grep -aFq '"positions":"sinusoidal"' "$tmp/sin.safetensors" || fail "sinusoidal save: no positions in __metadata__"
grep -aFq '"positions":"learned"' "$tmp/s.safetensors" || fail "learned save: no positions in __metadata__"
accept sinusoidal-read-back "the weights file's __metadata__ says positions sinusoidal" "$exe" --weights "$tmp/sin.safetensors" --ids 1
grep -Fq "learned table wpe" "$tmp/stdout" && fail "sinusoidal-read-back: read back as the learned table"
grep -Eq "sinusoidal positions \(fixed\) +\(1024, 768\) +0 " "$tmp/stdout" || fail "sinusoidal-read-back: counted as parameters"

# --- 4. Output without bound: word lists, matrices and pictures have a cap.
words=$(printf 'cat %.0s' $(seq 1 65))
embed similar-65-words "65 words: similar compares at most 64" similar --weights "$tmp/w.safetensors" $words
embed similar-svg-65-words "65 words: similar compares at most 64" similar --weights "$tmp/w.safetensors" --svg "$out/s.svg" $words
embed neighbors-k "-k 1001 is outside [1, 1000]" neighbors --weights "$tmp/w.safetensors" -k 1001 cat
accept similar-64-words "cat" "$exe" similar --weights "$tmp/w.safetensors" $(printf 'cat %.0s' $(seq 1 64))

# --- 11. Writes to standard output are checked, the close too: exit 1 and the reason (issue 42).
# write_fails NAME COMMAND... : to /dev/full, then with standard output closed
write_fails() {
  local name=$1 rc; shift
  timeout 30 "$@" >/dev/full 2>"$tmp/err" </dev/null; rc=$?
  [ "$rc" -eq 1 ] && grep -Fq "cannot write standard output: No space left on device" "$tmp/err" ||
    fail "$name > /dev/full: exit $rc ($(head -c 300 "$tmp/err"))"
  timeout 30 "$@" >&- 2>"$tmp/err" </dev/null; rc=$?
  [ "$rc" -eq 1 ] && grep -Fq "cannot write standard output: Bad file descriptor" "$tmp/err" ||
    fail "$name >&-: exit $rc ($(head -c 300 "$tmp/err"))"
}
write_fails forward-pass "$exe" --weights "$tmp/ok.st" --ids 0
write_fails similar "$exe" similar --weights "$tmp/w.safetensors" cat dog
write_fails help "$exe" --help
if [ -n "$parallel" ]; then
  write_fails parallel env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    ASAN_OPTIONS=detect_leaks=0 "$parallel" --length 8
  # An option naming a rank that does not exist tests nothing: refused with the ranks there are.
  mpi bad-id-rank "--bad-id-on-rank 1 is outside [-1, 0] (1 rank)" --bad-id-on-rank 1 --length 8
  mpi bad-id-rank-max "--bad-id-on-rank 2147483647 is outside [-1, 0]" --bad-id-on-rank 2147483647
fi
# A value too long to be an id is shown with its length and the bound, never cut to look valid.
embed ids-long-zeros "entry 1 '000000000000000000000000...' is 65 characters long, more than the 64 a token id may have" \
  --ids "$(printf '0%.0s' $(seq 64))1"
printf '1 %s\n' "$(printf '9%.0s' $(seq 70))" >"$tmp/long.txt"
embed ids-file-long "entry 2 '999999999999999999999999...' is 70 characters long" --ids-file "$tmp/long.txt"
embed ids-big "entry 1 '99999999999999999999' is not a token id" --ids 99999999999999999999
# A file option given empty is refused, as --weights "" and --out "" are: never "the default".
embed train-pairs-empty "--pairs needs a file name" train --pairs ""
embed train-corpus-empty "--corpus needs a file name" train --corpus ""
embed train-out-empty "--out needs a file name" train --out ""
embed similar-svg-empty "--svg needs a file name" similar --weights "$tmp/w.safetensors" --svg "" cat
embed neighbors-weights-empty "--weights needs a file name" neighbors --weights "" cat

echo "hostile: $failures failure(s)"
[ "$failures" -eq 0 ]
