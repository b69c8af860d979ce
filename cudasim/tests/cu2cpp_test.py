#!/usr/bin/env python3
"""Unit tests of cudasim/cu2cpp.py, the rewrite of CUDA source for the CPU execution layer:
every line keeps its number, and each launch form becomes one launch_chevron call."""
import pathlib
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # cudasim/
import cu2cpp  # noqa: E402


def launches(text):
    return cu2cpp.rewrite(text, "t.cu").count("::cudasim::detail::launch_chevron(")


class Launch(unittest.TestCase):
    def test_plain_launch_names_the_kernel_and_keeps_config_and_arguments(self):
        out = cu2cpp.rewrite("void f() { k<<<g, b>>>(x, y); }", "t.cu")
        self.assertIn('LaunchConfig(g, b), "k"', out)
        self.assertIn("decltype(k(cudasim_a...))", out)
        self.assertTrue(out.endswith(", x, y); }"), out)

    def test_no_arguments(self):
        out = cu2cpp.rewrite("void f() { k<<<1, 1>>>(); }", "t.cu")
        self.assertIn('"); }); }', out)

    def test_shared_bytes_and_stream(self):
        out = cu2cpp.rewrite("void f() { k<<<g, b, n * sizeof(float), s>>>(x); }", "t.cu")
        self.assertIn("LaunchConfig(g, b, n * sizeof(float), s)", out)

    def test_callee_forms(self):
        for callee in ["k<float4>", "ns::k", "::ns::k<float, 4>", "(k<float, 4>)", "a::b<T>::k"]:
            out = cu2cpp.rewrite(f"void f() {{ {callee}<<<1, 2>>>(x); }}", "t.cu")
            self.assertIn(f'"{callee}"', out)
            self.assertIn(f"decltype({callee}(cudasim_a...))", out)

    def test_lines_keep_their_numbers(self):
        text = "void f() {\n  k<<<dim3(1,\n        2), 32>>>(a,\n      b);\n  int after = 1;\n}\n"
        out = cu2cpp.rewrite(text, "t.cu")
        self.assertEqual(out.count("\n"), text.count("\n"))
        self.assertEqual(out.splitlines()[4], "  int after = 1;")

    def test_comments_strings_and_shifts_are_left_alone(self):
        text = '// k<<<1,1>>>(x)\nconst char* s = "k<<<1,1>>>(x)";\nint y = n << 2 >> 1;\n'
        self.assertEqual(cu2cpp.rewrite(text, "t.cu"), text)

    def test_several_launches(self):
        self.assertEqual(launches("void f() { a<<<1,1>>>(x); b<T><<<2,2>>>(); ::c<<<3,3>>>(y); }"), 3)

    def test_wrong_configuration_is_an_error_naming_the_line(self):
        with self.assertRaises(SystemExit) as e:
            cu2cpp.rewrite("void f() {\n  k<<<1, 2, 3, 4, 5>>>(x);\n}", "t.cu")
        self.assertIn("t.cu:2:", str(e.exception))


class Shared(unittest.TestCase):
    def test_extern_shared_points_at_the_dynamic_buffer(self):
        out = cu2cpp.rewrite("__global__ void k() { extern __shared__ float s[]; }", "t.cu")
        self.assertIn("static thread_local float* const s = "
                      "::cudasim::detail::dynamic_shared<float>();", out)

    def test_extern_shared_with_the_type_first_is_the_same_declaration(self):
        for text in ("extern float __shared__ s[];", "extern __align__(16) unsigned int __shared__ s[];",
                     "extern __shared__ __align__(16) unsigned int s[];"):
            out = cu2cpp.rewrite("__global__ void k() { %s }" % text, "t.cu")
            t = "float" if "float" in text else "unsigned int"
            self.assertIn(f"static thread_local {t}* const s = "
                          f"::cudasim::detail::dynamic_shared<{t}>();", out)

    def test_function_scope_shared_is_poisoned_once_per_declarator(self):
        out = cu2cpp.rewrite("__global__ void k() { static __shared__ float a[4], b[2]; }", "t.cu")
        self.assertNotIn("static __shared__", out)
        self.assertIn('sizeof a, "a");', out)  # the name, for racecheck's reports
        self.assertIn('sizeof b, "b");', out)

    def test_file_scope_shared_is_not_poisoned_but_registered_on_its_line(self):
        out = cu2cpp.rewrite("static __shared__ float a[4];\nnamespace { __shared__ int b; }", "t.cu")
        self.assertNotIn("poison_shared", out)
        first, second = out.splitlines()
        self.assertTrue(first.startswith("__shared__ float a[4]; static const "
                                         "::cudasim::detail::SharedRegistration "), first)
        self.assertIn('return const_cast<void*>(static_cast<const volatile void*>(&a)); }, '
                      'sizeof a, "a");', first)
        self.assertTrue(second.startswith("namespace { __shared__ int b; static const"), second)
        self.assertTrue(second.endswith('sizeof b, "b"); }'), second)


class Symbols(unittest.TestCase):
    """__device__ and __constant__ variables are registered for the tools; functions are not."""

    def registered(self, text):
        out = cu2cpp.rewrite(text, "t.cu")
        self.assertEqual(out.count("\n"), text.count("\n"))
        return [(line.split('sizeof ')[1].split(',')[0], line.split("SymbolKind::")[1].split(",")[0])
                for line in out.split(";") if "SymbolRegistration" in line]

    def test_variables_of_each_form(self):
        text = ("__device__ int counter;\n"
                "__constant__ float coefficients[4] = {1, 2, 3, 4};\n"
                "__device__ __align__(16) float table[8], other;\n"
                "static __device__ unsigned long long calls = 0;\n"
                "namespace ns { __device__ double total{0}; }\n"
                "__constant__ __device__ int both;\n")
        self.assertEqual(self.registered(text),
                         [("counter", "device"), ("coefficients", "constant"), ("table", "device"),
                          ("other", "device"), ("calls", "device"), ("total", "device"),
                          ("both", "constant")])

    def test_functions_declarations_and_macros_are_not_variables(self):
        text = ("__device__ float f(float x) { return x; }\n"
                "__host__ __device__ inline float g(float);\n"
                "template <class T> __device__ T h(T x) { return x; }\n"
                "template <class T> __device__ T zero;\n"
                "extern __device__ int elsewhere;\n"
                "#define DEVICE __device__\n"
                "struct S { __device__ int get() const { return 1; } };\n"
                "__global__ void k() { __device__ int inside; }\n")
        self.assertEqual(self.registered(text), [])

    def test_a_launch_carries_the_kernel_parameter_names(self):
        text = ("__global__ void oob(const float* __restrict__ in, float* out, int) {}\n"
                "template <class T> __global__ void __launch_bounds__(256) copy(const T* src, T* dst);\n"
                "void f() { oob<<<1, 32>>>(a, b, 3); copy<float><<<1, 1>>>(a, b); ns::other<<<1, 1>>>(a); }\n")
        out = cu2cpp.rewrite(text, "t.cu")
        self.assertIn('"oob", "in,out,", [&]', out)
        self.assertIn('"copy<float>", "src,dst", [&]', out)
        self.assertIn('"ns::other", nullptr, [&]', out)  # defined elsewhere: positions only
        out = cu2cpp.rewrite("__global__ void t(Pair<int, 2> p, float* x);\n"
                             "void f() { t<<<1, 1>>>(p, x); }\n", "t.cu")
        self.assertIn('"t", nullptr, [&]', out)  # a comma inside <>: no names rather than wrong ones


class Refused(unittest.TestCase):
    def test_the_first_refused_name_stops_compilation_at_its_line(self):
        out = cu2cpp.rewrite("// cudaGraph_t in a comment is not a use\nint x;\n"
                             "void f(cudaTextureObject_t t) { cudaGraph_t g; }\n", "t.cu")
        self.assertTrue(out.startswith('#line 3 "t.cu"\n#error "cudaTextureObject_t (texture and '
                                       'surface memory) is not supported'), out)
        self.assertIn('#include "(compilation stopped', out)
        old_style = cu2cpp.rewrite("texture<float, 1, cudaReadModeElementType> tex;", "t.cu")
        self.assertIn("texture (texture and surface memory)", old_style)

    def test_names_that_only_look_alike_are_kept(self):
        text = "int texture_count, my_tex2D; bool b = texture < limit, c = textured < 2;\n"
        self.assertEqual(cu2cpp.rewrite(text, "t.cu"), text)


class Other(unittest.TestCase):
    def test_assert_becomes_the_layer_assert_but_static_assert_stays(self):
        out = cu2cpp.rewrite("void f() { assert(x); static_assert(true); }", "t.cu")
        self.assertEqual(out, "void f() { CUDASIM_ASSERT(x); static_assert(true); }")

    def test_inline_ptx_is_refused(self):
        out = cu2cpp.rewrite('void f() { asm("trap;"); }', "t.cu")
        self.assertIn("static_assert(false, \"inline PTX (asm) is not supported", out)


if __name__ == "__main__":
    unittest.main()
