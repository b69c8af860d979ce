#!/usr/bin/env bash
# End-to-end checks of lesson 9's subcommands: train on a small text corpus, read the
# tables back with similar and neighbors, and bad input (exit 2, the message on stderr,
# no output file left behind).
# Usage: training_cli_test.sh path/to/andrea-embed
# shellcheck source=tests/cli/prelude.sh
. "$(dirname "$0")/prelude.sh" "$1"  # $exe, $tmp, fail

# A corpus of animals, days and instruments, each with its own context words.
for i in $(seq 1 200); do
  echo "the cat eats and the dog eats fur tail barn"
  echo "on monday and tuesday a week of meeting morning"
  echo "the piano and the xylophone play music concert"
done >"$tmp/corpus.txt"
corpus=(--corpus "$tmp/corpus.txt" --quiet)   # CLI11 takes each option once: no overrides
small=("${corpus[@]}" --min-count 1 --d-model 8 --window 2 --negatives 2 --epochs 2)

# expect_error NAME PATTERN ARGS... : exit 2, stderr holds PATTERN, no file in $tmp/out/
expect_error() {
  local name=$1 pattern=$2; shift 2
  rm -rf "$tmp/out"; mkdir "$tmp/out"
  "$exe" "$@" >"$tmp/stdout" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2 ($(cat "$tmp/err"))"
  grep -Fq -- "$pattern" "$tmp/err" || fail "$name: stderr lacks '$pattern': $(cat "$tmp/err")"
  [ -z "$(ls -A "$tmp/out")" ] || fail "$name: left $(ls "$tmp/out")"
}

# Train: two files, the report, the same bits for the same seed.
"$exe" train "${small[@]}" --out "$tmp/e.safetensors" >"$tmp/train.txt" 2>"$tmp/err" || fail "train: exit $? ($(cat "$tmp/err"))"
for f in e.safetensors e.vocab.txt; do [ -s "$tmp/$f" ] || fail "train did not write $f"; done
grep -Eq "^vocab +V = 22 rows" "$tmp/train.txt" || fail "train: vocabulary line: $(grep vocab "$tmp/train.txt")"
grep -Eq "nearest 10 words to 'cat'" "$tmp/train.txt" || fail "train: no neighbours of cat"
[ "$(head -1 "$tmp/e.vocab.txt")" = "<unk> 0" ] || fail "vocab row 0 is not '<unk> 0'"
"$exe" train "${small[@]}" --out "$tmp/f.safetensors" >/dev/null 2>&1
cmp -s "$tmp/e.safetensors" "$tmp/f.safetensors" || fail "two runs with the same seed differ"
"$exe" train "${small[@]}" --seed 7 --out "$tmp/g.safetensors" >/dev/null 2>&1
cmp -s "$tmp/e.safetensors" "$tmp/g.safetensors" && fail "a different seed gave the same table"

# The CUDA kernels on the CPU execution layer (tables held in their device memory) give
# the reference's bits; a backend this build lacks, or without a GPU, is refused.
if "$exe" train --backend nope "${small[@]}" --out "$tmp/x.safetensors" 2>&1 | grep -q "cudasim"; then
  "$exe" train "${small[@]}" --backend cudasim --out "$tmp/s.safetensors" >"$tmp/sim-train.txt" 2>"$tmp/err" ||
    fail "train --backend cudasim: exit $? ($(cat "$tmp/err"))"
  grep -q "^backend  cudasim" "$tmp/sim-train.txt" || fail "train --backend cudasim: no backend line"
  cmp -s "$tmp/e.safetensors" "$tmp/s.safetensors" || fail "cudasim's tables differ from the reference's"
else
  echo "skipped: this build has no cudasim backend (ANDREA_CUDA=OFF)"
fi

# similar and neighbors read the table back.
"$exe" similar --weights "$tmp/e.safetensors" cat dog xylophone >"$tmp/sim.txt" 2>"$tmp/err" || fail "similar: exit $? ($(cat "$tmp/err"))"
grep -Eq "^ +cat +\+1\.000 " "$tmp/sim.txt" || fail "similar: cos(cat, cat) is not 1: $(cat "$tmp/sim.txt")"
"$exe" similar --weights "$tmp/e.safetensors" --centre --svg "$tmp/h.svg" cat dog >/dev/null 2>&1 || fail "similar --svg"
grep -q "<svg" "$tmp/h.svg" || fail "no heatmap written"
"$exe" neighbors --weights "$tmp/e.safetensors" -k 3 dog >"$tmp/nb.txt" 2>&1 || fail "neighbors: exit $?"
[ "$(grep -c '^  [a-z]' "$tmp/nb.txt")" = 3 ] || fail "neighbors -k 3: $(cat "$tmp/nb.txt")"

# --tokens bpe: a row per token id of the course's tokenizer (V = 8,449), seen or not; a word
# names its token " word", read back by similar from the file's metadata.
bpe=(--tokens bpe "${corpus[@]}" --d-model 4 --window 2 --negatives 2 --epochs 1)
"$exe" train "${bpe[@]}" --out "$tmp/b.safetensors" >"$tmp/bpe.txt" 2>"$tmp/err" || fail "train --tokens bpe: exit $? ($(cat "$tmp/err"))"
grep -Eq "^vocab +V = 8449 rows: one per token id" "$tmp/bpe.txt" || fail "bpe: vocabulary line: $(grep vocab "$tmp/bpe.txt")"
[ "$(wc -l <"$tmp/b.vocab.txt")" = 8449 ] || fail "bpe: the vocabulary file has $(wc -l <"$tmp/b.vocab.txt") rows"
grep -q '^\\x20cat [1-9]' "$tmp/b.vocab.txt" || fail "bpe: no row for the token ' cat' seen in the corpus"
"$exe" similar --weights "$tmp/b.safetensors" cat '\x20cat' >"$tmp/sim.txt" 2>"$tmp/err" || fail "bpe similar: exit $? ($(cat "$tmp/err"))"
grep -Eq '^ +cat +\+1\.000 +\+1\.000$' "$tmp/sim.txt" || fail "bpe similar: cat is not the token ' cat': $(cat "$tmp/sim.txt")"
expect_error bpe-min-count "--min-count is for --tokens words" train "${bpe[@]}" --min-count 2 --out "$tmp/out/e.safetensors"
expect_error words-merges "--merges-file is for --tokens bpe" train "${small[@]}" --merges-file "$tmp/corpus.txt" --out "$tmp/out/e.safetensors"
expect_error bpe-tokens "--tokens: chars not in {words,bpe}" train "${corpus[@]}" --tokens chars --out "$tmp/out/e.safetensors"

# Bad input.
expect_error corpus-missing "install it with \`apt-get install wordnet-base\`" train --corpus "$tmp/no-such-dir/" --out "$tmp/out/e.safetensors"
expect_error corpus-file-missing "cannot open the corpus file" train --corpus "$tmp/none.txt" --out "$tmp/out/e.safetensors"
printf '1 2 3\n\n' >"$tmp/empty.txt"
expect_error corpus-empty "holds no word" train --corpus "$tmp/empty.txt" --out "$tmp/out/e.safetensors"
expect_error vocab-too-small "a vocabulary of fewer than 2 words" train "${corpus[@]}" --min-count 100000 --out "$tmp/out/e.safetensors"
expect_error d-model "--d-model 0 is outside [1, 65536]" train "${corpus[@]}" --d-model 0 --out "$tmp/out/e.safetensors"
expect_error window "--window 0 is outside [1, 1000]" train "${corpus[@]}" --window 0 --out "$tmp/out/e.safetensors"
expect_error negatives "--negatives -3 is outside [1, 1000]" train "${corpus[@]}" --negatives -3 --out "$tmp/out/e.safetensors"
expect_error epochs "--epochs 0 is outside [1, 1000000]" train "${corpus[@]}" --epochs 0 --out "$tmp/out/e.safetensors"
expect_error backend "unknown backend 'nope'" train "${small[@]}" --backend nope --out "$tmp/out/e.safetensors"
expect_error old-backend-name "backend 'cuda-sim' is spelled 'cudasim' now" train "${small[@]}" --backend cuda-sim --out "$tmp/out/e.safetensors"
expect_error option-before-train "--backend is an option of the forward pass" --backend cpu train "${small[@]}" --out "$tmp/out/e.safetensors"
expect_error parse-error "--d-model 'abc' is not an integer" train "${corpus[@]}" --d-model abc --out "$tmp/out/e.safetensors"
printf 'cat\tunicorn\trelated\r\ncat\tdog\tunrelated\n' >"$tmp/unknown-pairs.tsv"   # CRLF ends are read too
expect_error pairs-before-training "the word 'unicorn' is not in the vocabulary" train "${small[@]}" --pairs "$tmp/unknown-pairs.tsv" --out "$tmp/out/e.safetensors"
grep -q "^trained" "$tmp/stdout" && fail "pairs-before-training: trained before refusing the list"
expect_error lr-too-large "--lr 1e30 is outside [1e-06, 10]" train "${small[@]}" --lr 1e30 --out "$tmp/out/e.safetensors"
expect_error out-not-safetensors "must end in .safetensors" train "${small[@]}" --out "$tmp/out/e.bin"
expect_error unknown-word "the word 'unicorn' is not in the vocabulary" similar --weights "$tmp/e.safetensors" --svg "$tmp/out/h.svg" cat unicorn
expect_error unknown-neighbor "the word 'unicorn' is not in the vocabulary" neighbors --weights "$tmp/e.safetensors" unicorn
head -5 "$tmp/e.vocab.txt" >"$tmp/short.vocab.txt" && cp "$tmp/e.safetensors" "$tmp/short.safetensors"
expect_error shape "the weights $tmp/short.safetensors have 22 rows but the vocabulary $tmp/short.vocab.txt has 5 words" similar --weights "$tmp/short.safetensors" cat
cp "$tmp/e.safetensors" "$tmp/nan.safetensors" && cp "$tmp/e.vocab.txt" "$tmp/nan.vocab.txt"
header=$(od -An -tu8 -N8 "$tmp/nan.safetensors" | tr -d ' ')   # wte's data comes first
printf '\xff\xff\xff\x7f' | dd of="$tmp/nan.safetensors" bs=1 seek=$((8 + header)) conv=notrunc 2>/dev/null
expect_error weights-nan "$tmp/nan.safetensors: tensor 'wte' row 0 (the word '<unk>') holds nan" similar --weights "$tmp/nan.safetensors" cat
expect_error weights-missing "cannot open weights file" similar --weights "$tmp/none.safetensors" cat

# A run that trained no step fails: one word a line gives no (centre, context) pair.
for i in $(seq 1 50); do echo cat; echo dog; done >"$tmp/one-word-lines.txt"
expect_error no-step "trained no step: no sentence of the 100 words gave a (centre, context) pair" train --corpus "$tmp/one-word-lines.txt" --quiet --min-count 1 --out "$tmp/out/e.safetensors"

# All outputs or none, never a table that is not finite, never an input overwritten.
expect_error init-overflow "--init-scale 1e40 is outside [1e-06, 1000]" train "${small[@]}" --init-scale 1e40 --out "$tmp/out/e.safetensors"
cp "$tmp/corpus.txt" "$tmp/c.vocab.txt"
expect_error corpus-is-output "--out's vocabulary '$tmp/c.vocab.txt' is the input --corpus '$tmp/c.vocab.txt'" train --corpus "$tmp/c.vocab.txt" --quiet --out "$tmp/c.safetensors"
cmp -s "$tmp/corpus.txt" "$tmp/c.vocab.txt" || fail "corpus-is-output: the corpus was changed"
[ ! -e "$tmp/c.safetensors" ] || fail "corpus-is-output: wrote c.safetensors"
expect_error svg-is-input "--svg '$tmp/e.vocab.txt' is the input --weights' vocabulary" similar --weights "$tmp/e.safetensors" --svg "$tmp/e.vocab.txt" cat
dump=(--corpus "$tmp/corpus.txt" --min-count 1)  # --dump-corpus takes no training option
(ulimit -f 1; exec "$exe" train "${dump[@]}" --dump-corpus "$tmp/out/dump.txt") >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] || fail "dump-too-large: exit $rc, expected 2"
grep -Fq "cannot write '$tmp/out/dump.txt': File too large" "$tmp/err" || fail "dump-too-large: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/out")" ] || fail "dump-too-large: left $(ls -A "$tmp/out")"
"$exe" train "${dump[@]}" --dump-corpus "$tmp/out/dump.txt" >/dev/null 2>&1 || fail "dump-corpus: exit $?"
[ "$(head -1 "$tmp/out/dump.txt")" = "the cat eats and the dog eats fur tail barn" ] || fail "dump-corpus: $(head -1 "$tmp/out/dump.txt")"

# Integer options: the value typed, refused against its bounds.
expect_error seed-minus-one "--seed -1 is outside [0, 18446744073709551615]" train "${small[@]}" --seed -1 --out "$tmp/out/e.safetensors"
expect_error epochs-huge "--epochs 99999999999999999999 is outside [1, 1000000]" train "${corpus[@]}" --epochs 99999999999999999999 --out "$tmp/out/e.safetensors"
expect_error k-huge "-k 100000000000000000000 is outside [1, 1000]" neighbors --weights "$tmp/e.safetensors" -k 100000000000000000000 cat
expect_error k-past-vocabulary "-k 50 is more than the 20 other words of the vocabulary" neighbors --weights "$tmp/e.safetensors" -k 50 cat
expect_error init-seed-minus-one "--init-seed -1 is outside [0, 18446744073709551615]" similar --weights "$tmp/e.safetensors" --init-seed -1 cat

# A word is a word wherever it stands; no command starts another. The scratch folder
# would receive train's default embeddings.safetensors.
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && exec "$exe" similar --weights "$tmp/e.safetensors" --centre cat train) >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && grep -Fq "the word 'train' is not in the vocabulary" "$tmp/err" || fail "word-train: exit $rc: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/cwd")" ] || fail "word-train: a training run wrote $(ls "$tmp/cwd")"
sed 's/^barn /train /' "$tmp/e.vocab.txt" >"$tmp/w.vocab.txt" && cp "$tmp/e.safetensors" "$tmp/w.safetensors"
for order in "--centre cat train" "cat train --centre" "cat --centre train"; do
  # shellcheck disable=SC2086
  (cd "$tmp/cwd" && exec "$exe" similar --weights "$tmp/w.safetensors" $order) >"$tmp/stdout" 2>"$tmp/err" ||
    fail "word-train ($order): exit $? ($(cat "$tmp/err"))"
  grep -Eq "^ +train +[-+][0-9.]+ +\+1\.000$" "$tmp/stdout" || fail "word-train ($order): no row for 'train': $(cat "$tmp/stdout")"
done
(cd "$tmp/cwd" && exec "$exe" neighbors --weights "$tmp/w.safetensors" -k 2 train) >"$tmp/stdout" 2>&1 || fail "neighbors train: $(cat "$tmp/stdout")"
[ -z "$(ls -A "$tmp/cwd")" ] || fail "word-train: a training run wrote $(ls "$tmp/cwd")"

# Words from a file are printed escaped, and every SVG written is well-formed XML.
sed $'s/^barn /b\x1b[31m\x01<\\&\xff /' "$tmp/e.vocab.txt" >"$tmp/esc.vocab.txt" && cp "$tmp/e.safetensors" "$tmp/esc.safetensors"
"$exe" similar --weights "$tmp/esc.safetensors" --svg "$tmp/esc.svg" cat $'b\x1b[31m\x01<&\xff' >"$tmp/stdout" 2>"$tmp/err" || fail "escaped-word: exit $? ($(cat "$tmp/err"))"
! grep -q $'\x1b\|\x01' "$tmp/stdout" || fail "escaped-word: a control character reached stdout"
grep -Fq 'b\x1b[31m\x01<&\xff' "$tmp/stdout" || fail "escaped-word: $(cat "$tmp/stdout")"
if [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$tmp/esc.svg" || fail "escaped-word: the SVG is not well-formed XML"
fi

echo "training cli: $failures failure(s)"
[ "$failures" -eq 0 ]
