#!/usr/bin/env bash
# The course's byte-level BPE against SentencePiece's BPE trainer (Debian `sentencepiece`:
# spm_train, spm_encode), one thread each, the same corpus (the WordNet glosses that
# tokenizer/merges.txt is trained on, written by `andrea-embed tokenizer corpus`), the same
# vocabulary size V = 8,449. Reports: training time, time to encode the whole corpus, and
# compression (bytes per token) on English text neither was trained on (the licence texts
# in /usr/share/common-licenses). Not a timed test: figures only.
#   bash bench/tokenizer_vs_sentencepiece.sh [BUILD_DIR]   (default: build; a few minutes)
# SentencePiece runs with --byte_fallback (any byte encodes, as ours), --character_coverage=1,
# --normalization_rule_name=identity and --remove_extra_whitespaces=false (no NFKC, runs of
# spaces kept: both see the same bytes) and --input_sentence_size=0 (every line).
# SentencePiece reads line by line and never makes a token of the newline; ours does. So that
# both pay for the same bytes, SentencePiece's token counts below add one token per line.
set -euo pipefail
build=${1:-build}
exe=$build/apps/andrea-embed
command -v spm_train >/dev/null || { echo "spm_train not found: apt-get install sentencepiece" >&2; exit 1; }
[ -x "$exe" ] || { echo "$exe not found: cmake --build $build --target andrea-embed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seconds() { /usr/bin/time -f "%e %U" -o "$1" "${@:2}"; }

"$exe" tokenizer corpus --out "$tmp/corpus.txt" >/dev/null
cat /usr/share/common-licenses/{GPL-3,Apache-2.0,MPL-2.0,LGPL-3,GFDL-1.3,Artistic} >"$tmp/heldout.txt"

seconds "$tmp/ours.train" "$exe" tokenizer train --corpus "$tmp/corpus.txt" --merges 8192 \
  --out "$tmp/merges.txt" >"$tmp/ours.txt"
seconds "$tmp/spm.train" spm_train --input="$tmp/corpus.txt" --model_prefix="$tmp/spm" \
  --vocab_size=8449 --model_type=bpe --num_threads=1 --character_coverage=1.0 \
  --byte_fallback=true --input_sentence_size=0 --normalization_rule_name=identity \
  --remove_extra_whitespaces=false \
  --minloglevel=1 >"$tmp/spm.log" 2>&1
seconds "$tmp/ours.encode" "$exe" tokenize --merges-file "$tmp/merges.txt" --file "$tmp/corpus.txt" >"$tmp/ours.ids"
seconds "$tmp/spm.encode" spm_encode --model="$tmp/spm.model" --output_format=id <"$tmp/corpus.txt" >"$tmp/spm.ids"
"$exe" tokenize --merges-file "$tmp/merges.txt" --file "$tmp/heldout.txt" >"$tmp/ours.held"
spm_encode --model="$tmp/spm.model" --output_format=id <"$tmp/heldout.txt" >"$tmp/spm.held"

# Tokens: ours, one id a word; SentencePiece's, one id a word plus one per line (the newline).
tokens() { if [ "${1##*.}" = ids ] || [ "${1##*.}" = held ]; then
  case $1 in *spm.*) echo $(($(wc -w <"$1") + $(wc -l <"$1")));; *) wc -w <"$1";; esac; fi; }
bytes=$(wc -c <"$tmp/corpus.txt"); held=$(wc -c <"$tmp/heldout.txt")
printf 'corpus: %s bytes (WordNet glosses); held-out: %s bytes (licence texts)\n' "$bytes" "$held"
printf '%-14s %14s %14s %16s %18s\n' "" "train (s)" "encode (s)" "corpus B/token" "held-out B/token"
for who in ours spm; do
  read -r tw tu <"$tmp/$who.train"; read -r ew eu <"$tmp/$who.encode"
  printf '%-14s %8s (%4s) %8s (%4s) %16.3f %18.3f\n' "$([ $who = ours ] && echo andrea-embed || echo sentencepiece)" \
    "$tw" "$tu" "$ew" "$eu" "$(echo "$bytes / $(tokens "$tmp/$who.ids")" | bc -l)" \
    "$(echo "$held / $(tokens "$tmp/$who.held")" | bc -l)"
done
echo "(wall seconds, user CPU seconds in brackets; one thread each)"
grep merges "$tmp/ours.txt"
