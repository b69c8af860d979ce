#!/usr/bin/env bash
# Lesson 10 under real processes: runs andrea-embed-parallel with mpirun and checks what
# it prints and its exit status.
#   parallel_test.sh MPIEXEC PROGRAM NP CASE
# CASE  check       ANDREA-120M, the example sequence as a batch of 2: exit 0, the padding
#                   and row ranges of the issue, x / dwte / dwpe bit-identical to one process
#       bad-id      id 8,449 (inside the padding, outside the real V): exit 2, every rank
#                   names it, none is left in a collective (the test's timeout would fire)
#       lone-bad-id only rank 1 gets a bad id (--bad-id-on-rank 1): it reports it, the other
#                   ranks learn it from the vote and stop too; exit 2, no hang; a rank R
#                   that does not exist (R = np) is refused, exit 2
#       refused     V = 300 on 4 ranks leaves rank 3 only padding: exit 2, every rank says why
#       disagree    an MPMD launch, rank 0 given --length 16 and the others --length 32 (then
#                   --batch 1 and 2): exit 2 before any collective of the step, the ranks
#                   that differ name the option, no crash in MPI_Allreduce
#       sizes       sizes that overflow or do not fit one MPI call, and values typed outside
#                   an option's bounds (--vocab-size 2^63 - 1, --batch 10^7, --length 0,
#                   --ids ""): exit 2 with the value typed, never a crash
#       cudasim     the check with the CUDA kernel on the CPU execution layer (short sequence)
#       gpu         the check with the kernel on a GPU; exit 77 (skipped) with the reason if none
#       edges       the check on the ids at every rank's edges (first - 1, first, the last real
#                   row, first + V_p) and 0, V - 1, 8 times over: each id read by its owner only
# No mpirun: exit 77 (skipped) with the reason.
set -uo pipefail
mpiexec=$1 program=$2 np=$3 case=$4
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
if [ ! -x "$mpiexec" ] && ! command -v "$mpiexec" >/dev/null 2>&1; then
  echo "skipped: no mpirun ('$mpiexec'): install openmpi-bin to run lesson 10 on $np processes"; exit 77
fi
fail() {  # the program's output first, then the reason (the grader reads the line after "Failure");
          # of the ranks' errors, the lowest rank's: the same words whichever rank printed first
  echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"
  printf 'Failure\n%s, np %s: %s%s%s\n' "$case" "$np" "$*" "$(grep -h ': NO$' "$out" | sed 's/^ */; /' | tr -d '\n')" \
    "$(grep -h ': error: \|: failed: ' "$err" | sort -t' ' -k3,3n | head -1 | sed 's/^/; /')"
  exit 1
}
run() { "$mpiexec" -np "$np" --oversubscribe "$program" "$@" >"$out" 2>"$err"; }
expect_out() { grep -Fq -- "$1" "$out" || fail "no line with \"$1\""; }
every_rank() {  # every rank printed this error on stderr
  for ((r = 0; r < np; r++)); do
    grep -Fq -- "rank $r: error: $1" "$err" || fail "rank $r did not report \"$1\""
  done
}
padded() { case $1 in 1) echo 8,576 ;; 2 | 4) echo 8,704 ;; 3) echo 8,832 ;; esac; }
rows=$(( $(padded "$np" | tr -d ,) / np ))

case $case in
  check | cudasim | gpu | edges)
    args=(--batch 2)
    [ "$case" = cudasim ] || [ "$case" = gpu ] && args=(--length 64 --batch 2 --backend "$case")
    if [ "$case" = edges ]; then
      ids=0,8448
      for ((r = 0; r < np; r++)); do
        last=$(( (r + 1) * rows < 8449 ? (r + 1) * rows : 8449 ))
        for id in $((r * rows - 1)) $((r * rows)) $((last - 1)) $last; do
          [ "$id" -ge 0 ] && [ "$id" -lt 8449 ] && ids+=,$id
        done
      done
      args=(--ids "$ids" --batch 8)
    fi
    run "${args[@]}"
    status=$?
    if [ "$case" = gpu ] && [ "$status" = 77 ]; then cat "$err"; exit 77; fi
    [ "$status" = 0 ] || fail "exit status $status, expected 0"
    expect_out "V padded to $(padded "$np") (a multiple of 128 x $np = $((128 * np))), V_p = "
    expect_out "rank $((np - 1))    rows [$(((np - 1) * rows)), $((np * rows)))"
    expect_out "x bit-identical to the one-process combine, on every rank: yes"
    expect_out "dwte shards gathered = the one-process gradient bit for bit, padding rows zero: yes"
    expect_out "dwpe the same on every rank and = the one-process gradient: yes"
    ;;
  bad-id)
    run --ids 5,8449,3
    status=$?
    [ "$status" = 2 ] || fail "exit status $status, expected 2"
    every_rank "token id 8449 at position 1 is outside [0, 8449)"
    ;;
  lone-bad-id)
    run --ids 5,6,7 --bad-id-on-rank 1
    status=$?
    [ "$status" = 2 ] || fail "exit status $status, expected 2"
    grep -Fq "rank 1: error: token id 8449 at position 2 is outside [0, 8449)" "$err" || fail "rank 1 did not report its bad id"
    for ((r = 0; r < np; r++)); do
      [ "$r" = 1 ] || grep -Fq "rank $r: stopping: another rank failed this step" "$err" || fail "rank $r did not stop"
    done
    run --ids 5,6,7 --bad-id-on-rank "$np"  # no such rank: refused, not ignored (issue 42)
    status=$?
    [ "$status" = 2 ] || fail "--bad-id-on-rank $np: exit status $status, expected 2"
    every_rank "--bad-id-on-rank $np is outside [-1, $((np - 1))] ($np ranks)"
    ;;
  refused)
    run --vocab-size 300
    status=$?
    [ "$status" = 2 ] || fail "exit status $status, expected 2"
    every_rank "$np ranks leave rank $((np - 1)) no real rows: its rows [384, 512) start at or past vocab_size 300"
    ;;
  disagree)
    for option in length:16:32 batch:1:2; do
      IFS=: read -r name first other <<<"$option"
      ids=(--ids 1,2)
      [ "$name" = length ] && ids=()  # --length sizes the drawn ids; with --ids it is refused
      "$mpiexec" --oversubscribe -np 1 "$program" --$name "$first" "${ids[@]}" : -np $((np - 1)) "$program" \
        --$name "$other" "${ids[@]}" >"$out" 2>"$err"
      status=$?
      [ "$status" = 2 ] || fail "--$name $first : --$name $other: exit status $status, expected 2"
      for ((r = 1; r < np; r++)); do
        grep -Fq "rank $r: error: this rank has --$name $other, rank 0 has --$name $first" "$err" ||
          fail "rank $r did not name --$name"
      done
      grep -Fq "rank 0: stopping: another rank was started with other options than rank 0" "$err" ||
        fail "rank 0 did not stop"
      ! grep -q "AddressSanitizer\|double free\|signal" "$err" || fail "a crash"
    done
    ;;
  sizes)
    for option in "--vocab-size 9223372036854775807|--vocab-size 9223372036854775807 is outside [1, 2147483647]" \
                  "--batch 10000000|x, the all-reduce of B x n x d_model is 7,864,320,000,000 floats, more than the 2,147,483,647 one MPI call sends" \
                  "--length 0|--length 0 is outside [1, 1024]" \
                  "--ids |empty sequence: at least one token id is required"; do
      args=${option%%|*} expected=${option#*|}
      read -ra words <<<"$args"
      [ "${#words[@]}" = 1 ] && words+=("")   # --ids "": an empty value
      run "${words[@]}"
      status=$?
      [ "$status" = 2 ] || fail "$args: exit status $status, expected 2"
      every_rank "$expected"
    done
    ;;
  *) echo "unknown case $case"; exit 1 ;;
esac
echo "ok ($case, np $np)"
