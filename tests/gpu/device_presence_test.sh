#!/bin/sh
# The split between "no device" (skip) and "a device that fails" (fail), checked without a GPU:
# runs a GPU test program under fake cudaGetDeviceCount results (CUDASIM_FAKE_DEVICE_COUNT,
# read by test programs only: cudasim/include/cudasim/gpu_presence.hpp) and checks its exit status and its words.
#   device_presence_test.sh PROGRAM
# PROGRAM: a program whose start decides with cudasim::gpu::presence_in_test() (a lesson's GPU test
# program, test_cudasim_features_gpu, cudasim_program_gpu_present).
# Each case: CUDASIM_FAKE_DEVICE_COUNT value, the exit status expected, words expected in the output.
program=$1
failures=0

check() {  # check VALUE STATUS WORDS
  out=$(CUDASIM_FAKE_DEVICE_COUNT="$1" "$program" 2>&1)
  status=$?
  if [ "$status" != "$2" ]; then
    echo "FAILED: CUDASIM_FAKE_DEVICE_COUNT='$1': exit status $status, expected $2; output:"
    echo "$out" | sed 's/^/    /' | tail -n 8
    failures=$((failures + 1))
  elif ! printf '%s\n' "$out" | grep -qF -- "$3"; then
    echo "FAILED: CUDASIM_FAKE_DEVICE_COUNT='$1': exit status $status as expected, but no '$3' in:"
    echo "$out" | sed 's/^/    /' | tail -n 8
    failures=$((failures + 1))
  else
    echo "ok: CUDASIM_FAKE_DEVICE_COUNT='$1': exit status $status, says '$3'"
  fi
}

check "0 0 12040" 77 "no CUDA device: cudaGetDeviceCount found 0 devices"
check "100 0 12040" 77 "cudaErrorNoDevice"
check "35 0 0" 77 "no CUDA driver is installed"
check "35 0 11020" 1 "the CUDA device fails: cudaGetDeviceCount returned cudaErrorInsufficientDriver"
check "35 0 11020" 1 "the driver supports CUDA 11.2, this program's runtime is CUDA"
check "999 0 12040" 1 "cudaErrorUnknown (unknown error)"
check "46 0 12040" 1 "cudaErrorDevicesUnavailable"
check "three words" 1 "CUDASIM_FAKE_DEVICE_COUNT is 'three words': expected three numbers"

if [ "$failures" != 0 ]; then
  echo "device presence: $failures case(s) failed for $program"
  exit 1
fi
echo "device presence: every case as expected for $program"
