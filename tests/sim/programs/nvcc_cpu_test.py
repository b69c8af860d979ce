#!/usr/bin/env python3
"""Tests of cuda/sim/nvcc-cpu, the layer's compiler driver (Python unittest).

  nvcc_cpu_test.py [path/to/libcudasim.a [driver options the library was built with...]]

Without a library path the driver builds its own into the cache folder (slow the first time).
The options (the sanitizers' -Xcompiler -fsanitize=...) go to every build of the driver.
"""
import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest

DRIVER = pathlib.Path(__file__).resolve().parents[3] / "cuda" / "sim" / "nvcc-cpu"
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
        self.dir = pathlib.Path(self.tmp.name)

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

    def test_an_unknown_option_is_named(self):
        write(self.dir, "k.cu", "int main() {}\n")
        built = driver("--frobnicate", "k.cu", cwd=self.dir)
        self.assertEqual(built.returncode, 1)
        self.assertIn("unknown option '--frobnicate'", built.stderr)


if __name__ == "__main__":
    unittest.main()
