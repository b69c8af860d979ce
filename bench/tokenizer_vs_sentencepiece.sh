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
# Then the long-chunk rows: 8,192 merges on one chunk of 32 KiB and one of 256 KiB of random
# letters a-j (no space, no newline: one chunk, one "sentence"), wall and user seconds and the
# peak resident memory (/usr/bin/time's %M, what `time -v` prints as "Maximum resident set
# size"). Without spm_train the rows give the course's figures alone.
set -euo pipefail
build=${1:-build}
exe=$build/apps/andrea-embed
spm=yes
command -v spm_train >/dev/null || { spm=no; echo "spm_train not found (apt-get install sentencepiece): andrea-embed's figures alone" >&2; }
[ -x "$exe" ] || { echo "$exe not found: cmake --build $build --target andrea-embed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seconds() { /usr/bin/time -f "%e %U" -o "$1" "${@:2}"; }
spm_options=(--vocab_size=8449 --model_type=bpe --num_threads=1 --character_coverage=1.0
  --byte_fallback=true --input_sentence_size=0 --normalization_rule_name=identity
  --remove_extra_whitespaces=false --minloglevel=1)

"$exe" tokenizer corpus --out "$tmp/corpus.txt" >/dev/null
cat /usr/share/common-licenses/{GPL-3,Apache-2.0,MPL-2.0,LGPL-3,GFDL-1.3,Artistic} >"$tmp/heldout.txt"

seconds "$tmp/ours.train" "$exe" tokenizer train --corpus "$tmp/corpus.txt" --merges 8192 \
  --out "$tmp/merges.txt" >"$tmp/ours.txt"
seconds "$tmp/ours.encode" "$exe" tokenize --merges-file "$tmp/merges.txt" --file "$tmp/corpus.txt" >"$tmp/ours.ids"
"$exe" tokenize --merges-file "$tmp/merges.txt" --file "$tmp/heldout.txt" >"$tmp/ours.held"
if [ $spm = yes ]; then
  seconds "$tmp/spm.train" spm_train --input="$tmp/corpus.txt" --model_prefix="$tmp/spm" \
    "${spm_options[@]}" >"$tmp/spm.log" 2>&1
  seconds "$tmp/spm.encode" spm_encode --model="$tmp/spm.model" --output_format=id <"$tmp/corpus.txt" >"$tmp/spm.ids"
  spm_encode --model="$tmp/spm.model" --output_format=id <"$tmp/heldout.txt" >"$tmp/spm.held"
fi

# Tokens: ours, one id a word; SentencePiece's, one id a word plus one per line (the newline).
tokens() { if [ "${1##*.}" = ids ] || [ "${1##*.}" = held ]; then
  case $1 in *spm.*) echo $(($(wc -w <"$1") + $(wc -l <"$1")));; *) wc -w <"$1";; esac; fi; }
bytes=$(wc -c <"$tmp/corpus.txt"); held=$(wc -c <"$tmp/heldout.txt")
printf 'corpus: %s bytes (WordNet glosses); held-out: %s bytes (licence texts)\n' "$bytes" "$held"
printf '%-14s %14s %14s %16s %18s\n' "" "train (s)" "encode (s)" "corpus B/token" "held-out B/token"
for who in ours $([ $spm = yes ] && echo spm); do
  read -r tw tu <"$tmp/$who.train"; read -r ew eu <"$tmp/$who.encode"
  printf '%-14s %8s (%4s) %8s (%4s) %16.3f %18.3f\n' "$([ $who = ours ] && echo andrea-embed || echo sentencepiece)" \
    "$tw" "$tu" "$ew" "$eu" "$(echo "$bytes / $(tokens "$tmp/$who.ids")" | bc -l)" \
    "$(echo "$held / $(tokens "$tmp/$who.held")" | bc -l)"
done
echo "(wall seconds, user CPU seconds in brackets; one thread each)"
grep merges "$tmp/ours.txt"

# One long chunk: KiB kibibytes of random letters a-j (awk's generator, fixed seed), no newline.
letters() { awk -v n=$(($1 * 1024)) 'BEGIN { srand(43); for (i = 0; i < n; i++) printf "%c", 97 + int(rand() * 10) }'; }
# peak COMMAND...: runs it, writes "wall user maxrss_kB" (or "failed") to $tmp/peak.
peak() { /usr/bin/time -f "%e %U %M" -o "$tmp/peak" "$@" >"$tmp/peak.log" 2>&1 || echo failed >"$tmp/peak"; }
echo
echo "one chunk of random letters a-j, no space, 8,192 merges (V = 8,449):"
printf '%-14s %8s %14s %16s\n' "" "chunk" "train (s)" "peak RSS (MB)"
for kib in 32 256; do
  letters $kib >"$tmp/long.txt"
  peak "$exe" tokenizer train --corpus "$tmp/long.txt" --merges 8192 --out "$tmp/long.merges" --quiet
  rows=("andrea-embed $(cat "$tmp/peak")")
  if [ $spm = yes ]; then  # one sentence of kib KiB: past spm_train's default of 4,192 bytes
    peak spm_train --input="$tmp/long.txt" --model_prefix="$tmp/long" "${spm_options[@]}" \
      --max_sentence_length=$((kib * 1024 + 1)) --hard_vocab_limit=false
    rows+=("sentencepiece $(cat "$tmp/peak")")
  fi
  for row in "${rows[@]}"; do
    read -r who w u m <<<"$row"
    if [ "$w" = failed ]; then printf '%-14s %5s KiB %14s\n' "$who" "$kib" "failed"; continue; fi
    printf '%-14s %5s KiB %6s (%5s) %16.1f\n' "$who" "$kib" "$w" "$u" "$(echo "$m / 1000" | bc -l)"
  done
done
echo "(wall seconds, user CPU seconds in brackets; peak resident set size, 1 MB = 1,000 kB)"
