#!/usr/bin/env bash
# End-to-end checks of the tokenizer's subcommands: tokenizer train on a small corpus (merges worked
# by hand in tests/tokenizer_test.cpp), tokenize and detokenize with the shipped merges file
# (ids from golden/tokenizer.json), byte round trips, and bad input (exit 2, the message on
# stderr, nothing written).
# Usage: tokenizer_cli_test.sh path/to/andrea-embed
# shellcheck source=tests/cli/prelude.sh
. "$(dirname "$0")/prelude.sh" "$1"  # $exe, $tmp, fail

# expect_error NAME PATTERN ARGS... : exit 2, stderr holds PATTERN, stdout empty, no file in $tmp/out/
expect_error() {
  local name=$1 pattern=$2; shift 2
  rm -rf "$tmp/out"; mkdir "$tmp/out"
  "$exe" "$@" >"$tmp/stdout" 2>"$tmp/err" <"${stdin:-/dev/null}"
  local rc=$?
  [ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2 ($(cat "$tmp/err"))"
  grep -Fq -- "$pattern" "$tmp/err" || fail "$name: stderr lacks '$pattern': $(cat "$tmp/err")"
  [ -s "$tmp/stdout" ] && fail "$name: wrote to stdout: $(head -c 200 "$tmp/stdout")"
  [ -z "$(ls -A "$tmp/out")" ] || fail "$name: left $(ls "$tmp/out")"
}

# Train: the hand-worked merges of "aaabdaaabac" (tests/tokenizer_test.cpp, HandWorkedTieRule).
printf 'aaabdaaabac' >"$tmp/corpus.txt"
"$exe" tokenizer train --corpus "$tmp/corpus.txt" --merges 4 --out "$tmp/m.txt" >"$tmp/train.txt" 2>"$tmp/err" ||
  fail "tokenizer train: exit $? ($(cat "$tmp/err"))"
printf 'andrea-bpe vocab_size 261 merges 4\n256 97 97 # aa\n257 97 98 # ab\n258 256 257 # aaab\n259 97 99 # ac\n' >"$tmp/expected.txt"
cmp -s "$tmp/m.txt" "$tmp/expected.txt" || fail "tokenizer train: merges file differs: $(cat "$tmp/m.txt")"
grep -q "vocab_size V = 256 + 4 + 1 = 261" "$tmp/train.txt" || fail "train report: $(cat "$tmp/train.txt")"
[ "$("$exe" tokenize --merges-file "$tmp/m.txt" aaabdaaabac)" = "258 100 258 259" ] || fail "tokenize with the trained file"

# tokenizer corpus writes the bytes train reads (here a file, as it is).
"$exe" tokenizer corpus --corpus "$tmp/corpus.txt" --out "$tmp/copy.txt" >/dev/null || fail "tokenizer corpus: exit $?"
cmp -s "$tmp/corpus.txt" "$tmp/copy.txt" || fail "tokenizer corpus did not copy the file's bytes"

# The shipped tokenizer: V = 8,449 and the golden ids of "the cat sat on the mat".
head -1 "$(dirname "$0")/../../tokenizer/merges.txt" | grep -qx "andrea-bpe vocab_size 8449 merges 8192" || fail "shipped header"
[ "$("$exe" tokenize "the cat sat on the mat")" = "386 1470 2055 349 271 994" ] || fail "tokenize: $("$exe" tokenize "the cat sat on the mat")"
[ "$("$exe" detokenize 386 1470 2055 349 271 994)" = "the cat sat on the mat" ] || fail "detokenize arguments"
[ "$(echo "386,1470 2055" | "$exe" detokenize)" = "the cat sat" ] || fail "detokenize stdin"
[ "$("$exe" detokenize 8448)" = "<|endoftext|>" ] || fail "detokenize end-of-text"
"$exe" tokenize --pieces "the cat" | grep -q '^ 1470  " cat"$' || fail "tokenize --pieces: $("$exe" tokenize --pieces "the cat")"

# Any bytes round-trip, valid UTF-8 or not.
head -c 20000 /dev/urandom >"$tmp/random.bin"
"$exe" tokenize --file "$tmp/random.bin" | "$exe" detokenize >"$tmp/back.bin" || fail "round trip: exit $?"
cmp -s "$tmp/random.bin" "$tmp/back.bin" || fail "random bytes did not round-trip"

# Bad input.
expect_error "detokenize id = V" "id 8449 at position 2 is outside [0, 8449)" detokenize 1 2 8449
expect_error "detokenize negative" "id -5 at position 0 is outside [0, 8449)" detokenize -- -5
stdin=<(printf '1 2 x') expect_error "detokenize stdin junk" "entry 3 'x' is not a token id" detokenize
printf 'andrea-bpe vocab_size 8450 merges 8192\n' >"$tmp/bad.txt"
expect_error "merges V" "line 1: vocab_size 8450 is not 256 + 8192 merges + 1 end-of-text = 8449" tokenize --merges-file "$tmp/bad.txt" hi
head -5 "$(dirname "$0")/../../tokenizer/merges.txt" >"$tmp/short.txt"
expect_error "merges truncated" "line 6: the file ends after 4 merges; the header says 8192 (truncated?)" tokenize --merges-file "$tmp/short.txt" hi
: >"$tmp/empty.txt"
expect_error "tokenize endless file" "cannot open --file '/dev/zero': it is a device, not a regular file" tokenize --file /dev/zero
expect_error "empty corpus" "is empty (0 bytes)" tokenizer train --corpus "$tmp/empty.txt" --out "$tmp/out/m.txt"
printf 'abc\0\0\0' >"$tmp/nul.bin"
expect_error "binary corpus" "holds a NUL byte at offset 3: binary, not text" tokenizer train --corpus "$tmp/nul.bin" --out "$tmp/out/m.txt"
expect_error "endless corpus" "cannot open the corpus '/dev/zero': it is a device, not a regular file" tokenizer train --corpus /dev/zero --out "$tmp/out/m.txt"
mkfifo "$tmp/fifo"  # no writer: a FIFO is refused before anything waits on it
expect_error "endless FIFO" "it is a FIFO (a pipe), not a regular file" tokenizer train --corpus "$tmp/fifo" --out "$tmp/out/m.txt"
truncate -s 257M "$tmp/huge.txt"  # sparse: refused by its size, before a byte is read
expect_error "huge corpus" "the corpus '$tmp/huge.txt' is larger than 268435456 bytes, the most it may hold" tokenizer train --corpus "$tmp/huge.txt" --out "$tmp/out/m.txt"
rm -f "$tmp/huge.txt"
printf 'ab ab ab cd' >"$tmp/few.txt"
expect_error "too few pairs" "after 4 merges no adjacent pair is left in the corpus; 5 merges asked" tokenizer train --corpus "$tmp/few.txt" --merges 5 --out "$tmp/out/m.txt"
expect_error "merges bound" "--merges 1000001 is outside [0, 1000000]" tokenizer train --corpus "$tmp/corpus.txt" --merges 1000001 --out "$tmp/out/m.txt"

# Issue 42. Every write to standard output is checked, its close too: exit 1 and the reason.
# write_fails NAME ARGS... : to /dev/full, and with standard output closed
write_fails() {
  local name=$1 rc; shift
  "$exe" "$@" >/dev/full 2>"$tmp/err" <"${stdin:-/dev/null}"; rc=$?
  [ "$rc" -eq 1 ] && grep -Fq "cannot write standard output: No space left on device" "$tmp/err" ||
    fail "$name > /dev/full: exit $rc ($(cat "$tmp/err"))"
  "$exe" "$@" >&- 2>"$tmp/err" <"${stdin:-/dev/null}"; rc=$?
  [ "$rc" -eq 1 ] && grep -Fq "cannot write standard output: Bad file descriptor" "$tmp/err" ||
    fail "$name >&-: exit $rc ($(cat "$tmp/err"))"
}
write_fails tokenize tokenize "the cat"
write_fails "tokenize --pieces" tokenize --pieces "the cat"
write_fails detokenize detokenize 386 1470
yes 386 | head -n 400000 >"$tmp/many.txt"  # 1.2 MB of output ('the'): fails while it is written
stdin="$tmp/many.txt" write_fails "detokenize 1 MiB" detokenize
write_fails "tokenizer train" tokenizer train --corpus "$tmp/corpus.txt" --merges 4 --out "$tmp/m2.txt"
write_fails --help tokenize --help
# Standard input is read as a file is: read errors named, 256 MiB at most.
"$exe" detokenize <&- >"$tmp/stdout" 2>"$tmp/err"; rc=$?
[ "$rc" -eq 2 ] && grep -Fq "cannot read standard input: Bad file descriptor" "$tmp/err" || fail "detokenize <&-: exit $rc ($(cat "$tmp/err"))"
stdin=/tmp expect_error "detokenize < folder" "cannot read standard input: Is a directory" detokenize
stdin=/dev/zero expect_error "detokenize endless stdin" "standard input is larger than 268435456 bytes, the most it may hold" detokenize
# Outputs whose size follows from the input are counted first: 40 merges doubling a token.
{ printf 'andrea-bpe vocab_size 297 merges 40\n256 97 97\n'; for i in $(seq 257 295); do echo "$i $((i - 1)) $((i - 1))"; done; } >"$tmp/doubling.txt"
expect_error "detokenize 2^40 bytes" "token 295 at position 1 decodes to 1,099,511,627,776 bytes, more than the 268,435,456 bytes a decoded text may hold" \
  detokenize --merges-file "$tmp/doubling.txt" 1 295
[ "$("$exe" detokenize --merges-file "$tmp/doubling.txt" 258 2>&1)" = aaaaaaaa ] || fail "doubling: token 258"
# A file option given empty is refused, never read as the default.
expect_error "merges-file empty" "--merges-file needs a file name" tokenize --merges-file "" hi
expect_error "detokenize merges-file empty" "--merges-file needs a file name" detokenize --merges-file "" 1
expect_error "tokenize file empty" "--file needs a file name" tokenize --file ""
expect_error "train out empty" "--out needs a file name" tokenizer train --corpus "$tmp/corpus.txt" --out ""
expect_error "corpus empty" "--corpus needs a file name" tokenizer corpus --corpus "" --out "$tmp/out/c.txt"
# A merges file's bad value is named; a CRLF line end is said.
printf 'andrea-bpe vocab_size 258 merges 1\n256 -1 110\n' >"$tmp/neg.txt"
expect_error "merges negative id" "line 2: token -1 is outside [0, 256)" tokenize --merges-file "$tmp/neg.txt" hi
printf 'andrea-bpe vocab_size 255 merges -2\n' >"$tmp/negm.txt"
expect_error "merges negative count" "line 1: -2 merges is outside [0, 1000000]" tokenize --merges-file "$tmp/negm.txt" hi
sed 's/$/\r/' "$tmp/m.txt" >"$tmp/crlf.txt"
expect_error "merges CRLF" "line 1: it ends in '\\r' (a CRLF line end" tokenize --merges-file "$tmp/crlf.txt" hi

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all tokenizer CLI checks passed"
