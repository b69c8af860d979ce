#!/usr/bin/env python3
"""A whole program that fails on the layer says why on stderr (Python unittest): a launch it
never asks about, a limit of the layer, a stack overflow; and nothing more when it asks.

  program_failures_test.py [path/to/libcudasim.a [driver options the library was built with...]]

Each test builds a small program with cudasim/nvcc-cpu and runs it.
"""
import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest

DRIVER = pathlib.Path(__file__).resolve().parents[2] / "nvcc-cpu"  # cudasim/nvcc-cpu
LIBRARY = str(pathlib.Path(sys.argv[1]).resolve()) if len(sys.argv) > 1 else None
FLAGS = sys.argv[2:]
del sys.argv[1:]


def driver(*args, cwd):
    command = [sys.executable, str(DRIVER), *FLAGS, *args] + (["--cudasim-lib", LIBRARY] if LIBRARY else [])
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True)


class ProgramFailures(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name).resolve()

    def tearDown(self):
        self.tmp.cleanup()

    def build_and_run(self, source: str, *options):
        (self.dir / "main.cu").write_text(textwrap.dedent(source).lstrip())
        built = driver("-O0", *options, "-o", "prog", "main.cu", cwd=self.dir)  # -O0: quick
        self.assertEqual(built.returncode, 0, built.stderr)
        return subprocess.run([str(self.dir / "prog")], capture_output=True, text=True, timeout=60)

    def test_a_failed_launch_the_program_never_asks_about_is_printed_when_it_ends(self):
        # Threads 0-15 wait at a barrier that the others skip: the launch fails, the program
        # ignores it, finds out[0] unwritten and exits 1.
        ran = self.build_and_run("""
            __global__ void half_barrier(int* out) {
              if (threadIdx.x < 16) __syncthreads();
              out[threadIdx.x] = 1;
            }
            int main() {
              int* d;
              int h[64];
              cudaMalloc(&d, sizeof h);
              half_barrier<<<1, 64>>>(d);
              cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
              return h[0] == 1 ? 0 : 1;
            }
            """)
        self.assertEqual(ran.returncode, 1, ran.stderr)
        self.assertIn("cudasim: a kernel launch failed and the program never asked (cudaGetLastError "
                      "would have returned cudaErrorLaunchFailure: unspecified launch failure): "
                      "kernel 'half_barrier'", ran.stderr)

    def test_a_limit_of_the_layer_is_named_with_the_value_and_the_bound(self):
        ran = self.build_and_run("""
            __global__ void wide(int* out) { out[threadIdx.x] = 1; }
            int main() {
              int* d;
              cudaMalloc(&d, 2048 * sizeof(int));
              wide<<<1, 2048>>>(d);
              return 1;
            }
            """)
        self.assertEqual(ran.returncode, 1, ran.stderr)
        self.assertIn("would have returned cudaErrorInvalidConfiguration: invalid configuration "
                      "argument): kernel 'wide': blockDim (2048,1,1) has more than 1024 threads",
                      ran.stderr)

    def test_a_failure_the_program_asks_about_is_not_printed_again(self):
        ran = self.build_and_run("""
            #include <cstdio>
            __global__ void wide(int* out) { out[threadIdx.x] = 1; }
            int main() {
              int* d;
              cudaMalloc(&d, 2048 * sizeof(int));
              wide<<<1, 2048>>>(d);
              std::printf("%s\\n", cudaGetErrorName(cudaGetLastError()));
              return 0;
            }
            """)
        self.assertEqual((ran.returncode, ran.stdout), (0, "cudaErrorInvalidConfiguration\n"))
        self.assertNotIn("cudasim:", ran.stderr)

    def test_a_stack_overflow_in_a_kernel_is_named_before_the_program_dies(self):
        # A 1 MiB local array: far more than a CUDA thread's stack here. The probes of
        # -fstack-clash-protection reach the guard page below the stack first.
        ran = self.build_and_run("""
            __global__ void deep(int* out) {
              volatile char big[1 << 20];
              big[threadIdx.x] = 1;
              out[threadIdx.x] = big[threadIdx.x];
            }
            int main() {
              int* d;
              cudaMalloc(&d, 32 * sizeof(int));
              deep<<<1, 32>>>(d);
              return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
            }
            """, "-Xcompiler", "-fstack-clash-protection")
        # SIGSEGV; under AddressSanitizer (the sanitize build), its own report and exit status 1.
        sanitized = any("-fsanitize=address" in flag for flag in FLAGS)
        self.assertEqual(ran.returncode, 1 if sanitized else -11, ran.stderr)
        self.assertRegex(ran.stderr, r"cudasim: a CUDA thread overflowed its stack of \d+ KiB "
                                     r"\(the layer's limit per thread\)")


if __name__ == "__main__":
    unittest.main()
