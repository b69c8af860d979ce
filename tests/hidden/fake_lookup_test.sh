#!/bin/sh
# The hidden tests catch what the public ones cannot: a lookup that knows the public tests'
# inputs (fake_lookup.cpp) passes lesson 1's public tests and fails its hidden ones, with a
# message that names the element, both values and the seed.
#   fake_lookup_test.sh PUBLIC_TESTS HIDDEN_TESTS   (both linked with the fake lookup)
public=$1
hidden=$2
if ! output=$("$public" 2>&1); then
  printf '%s\n' "$output"
  echo "FAIL: the fake lookup should pass lesson 1's public tests"
  exit 1
fi
if output=$("$hidden" 2>&1); then
  printf '%s\n' "$output"
  echo "FAIL: the hidden tests passed a lookup that knows only the public inputs"
  exit 1
fi
printf '%s\n' "$output"
for expected in "the course's solution gives" "seed $ANDREA_HIDDEN_SEED (ANDREA_HIDDEN_SEED=$ANDREA_HIDDEN_SEED" \
                "HiddenLookup.Andrea120mShapes" "HiddenLookup.AwkwardShapes"; do
  case $output in
    *"$expected"*) ;;
    *) echo "FAIL: the hidden tests' report does not say: $expected"; exit 1 ;;
  esac
done
echo "ok: the fake lookup passes the public tests and fails the hidden ones"
