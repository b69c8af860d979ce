#!/usr/bin/env python3
"""Tests of cudasim/nvcc-cpu, the layer's compiler driver (Python unittest).

  nvcc_cpu_test.py [path/to/libcudasim.a [driver options the library was built with...]]

Without a library path the driver builds its own into the cache folder (slow the first time).
The options (the sanitizers' -Xcompiler -fsanitize=...) go to every build of the driver.
"""
import os
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


def write(folder: pathlib.Path, name: str, text: str) -> pathlib.Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


class Driver(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name).resolve()

    def tearDown(self):
        self.tmp.cleanup()

    def test_a_kernel_and_its_launch_in_a_header_on_the_include_path_run(self):
        # An angled include found through -I, holding a kernel, a __shared__ array and a launch.
        write(self.dir, "inc/fill.cuh", """
            #pragma once
            __global__ void fill(int* out) {
              __shared__ int twice[64];
              twice[threadIdx.x] = 2 * threadIdx.x;
              __syncthreads();
              out[threadIdx.x] = twice[63 - threadIdx.x];
            }
            inline void launchFill(int* out) { fill<<<1, 64>>>(out); }
            """)
        write(self.dir, "main.cu", """
            #include <cstdio>
            #include <fill.cuh>
            int main() {
              int* d;
              int h[64];
              cudaMalloc(&d, sizeof h);
              launchFill(d);
              cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
              std::printf("%d %d\\n", h[0], h[63]);
              return cudaGetLastError() == cudaSuccess ? 0 : 1;
            }
            """)
        built = driver("-arch=sm_80", "-gencode", "arch=compute_80,code=sm_80", "-Iinc",
                       "-std=c++17", "-o", "prog", "main.cu", cwd=self.dir)
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertIn("-arch=sm_80: ignored", built.stderr)
        self.assertIn("-gencode arch=compute_80,code=sm_80: ignored", built.stderr)
        self.assertIn("-std=c++17: compiled as C++20", built.stderr)
        ran = subprocess.run([str(self.dir / "prog")], capture_output=True, text=True)
        self.assertEqual((ran.returncode, ran.stdout), (0, "126 0\n"))

    def test_an_error_in_a_rewritten_header_names_the_header_and_its_line(self):
        write(self.dir, "kernels.cuh", """
            #pragma once
            __global__ void scale(float* x) {
              extern __shared__ float s[];
              s[threadIdx.x] = x[threadIdx.x] * undeclared_factor;
            }
            inline void run(float* x) { scale<<<1, 32, 128>>>(x); }
            """)
        write(self.dir, "main.cu", '#include "kernels.cuh"\nint main() { run(nullptr); }\n')
        built = driver("-c", "main.cu", "-o", "main.o", cwd=self.dir)
        self.assertNotEqual(built.returncode, 0)
        self.assertIn(f"{self.dir / 'kernels.cuh'}:4:", built.stderr)
        self.assertIn("undeclared_factor", built.stderr)

    def test_a_refused_feature_gives_one_message_naming_it(self):
        write(self.dir, "tex.cu", """
            __global__ void k(cudaTextureObject_t t, float* out) {
              out[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x);
            }
            int main() {}
            """)
        built = driver("-c", "tex.cu", cwd=self.dir)
        self.assertNotEqual(built.returncode, 0)
        self.assertEqual(built.stderr.count("error:"), 2, built.stderr)  # #error, then the stop
        self.assertIn(f"{self.dir / 'tex.cu'}:1:", built.stderr)
        self.assertIn("cudaTextureObject_t (texture and surface memory) is not supported by the "
                      "CPU execution layer", built.stderr)

    @unittest.skipIf(any("-fsanitize=address" in f for f in FLAGS),
                     "AddressSanitizer build: the kernels carry no instrumentation, the tools are off")
    def test_racecheck_reports_a_planted_race_at_both_lines(self):
        # Thread t reads what thread t - 1 wrote, with no __syncthreads() between: the right
        # answer in the forward order, a race that racecheck names. -DBARRIER removes it.
        write(self.dir, "shift.cu", """
            #include <cstdio>
            __global__ void shift(const int* in, int* out) {
              __shared__ int s[64];
              s[threadIdx.x] = in[threadIdx.x];
            #ifdef BARRIER
              __syncthreads();
            #endif
              out[threadIdx.x] = threadIdx.x > 0 ? s[threadIdx.x - 1] : 0;
            }
            int main() {
              int h[64], *in, *out;
              for (int i = 0; i < 64; ++i) h[i] = i;
              cudaMalloc(&in, sizeof h);
              cudaMalloc(&out, sizeof h);
              cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
              shift<<<1, 64>>>(in, out);
              if (cudaDeviceSynchronize() != cudaSuccess) return 2;
              cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
              std::printf("%d %d\\n", h[1], h[63]);
              return 0;
            }
            """)
        tools = {**os.environ, "CUDASIM_TOOLS": "racecheck", "CUDASIM_ORDER": "forward"}
        for define, expected in (("-DNO_BARRIER", 2), ("-DBARRIER", 0)):
            built = driver("-g", define, "shift.cu", "-o", "shift", cwd=self.dir)
            self.assertEqual(built.returncode, 0, built.stderr)
            plain = subprocess.run([str(self.dir / "shift")], capture_output=True, text=True,
                                   env={**tools, "CUDASIM_TOOLS": "none"})
            self.assertEqual((plain.returncode, plain.stdout), (0, "0 62\n"), plain.stderr)
            ran = subprocess.run([str(self.dir / "shift")], capture_output=True, text=True, env=tools)
            self.assertEqual(ran.returncode, expected, ran.stderr)
            if expected == 0:
                self.assertNotIn("race", ran.stderr)
                continue
            self.assertIn("kernel 'shift' block (0,0,0): read-after-write race (RAW) on shared "
                          "memory 's'", ran.stderr)
            self.assertIn(f"wrote it at {self.dir / 'shift.cu'}:4", ran.stderr)
            self.assertIn(f"read it at {self.dir / 'shift.cu'}:8", ran.stderr)

    def test_an_unknown_option_is_named(self):
        write(self.dir, "k.cu", "int main() {}\n")
        built = driver("--frobnicate", "k.cu", cwd=self.dir)
        self.assertEqual(built.returncode, 1)
        self.assertIn("unknown option '--frobnicate'", built.stderr)


if __name__ == "__main__":
    unittest.main()
