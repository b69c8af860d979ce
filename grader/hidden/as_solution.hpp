// Read first by every file of the solution libraries (g++ -include, grader/hidden/CMakeLists.txt):
// the course's solution, reference/<piece>.cpp, is compiled a second time with its namespace
// andrea::reference renamed andrea::solution, so that one hidden test program links both the
// student's andrea::reference (or andrea::cuda) and the solution it is compared with. The
// standard and core headers are read before the rename, which then reaches only the pieces'
// own headers and sources (andrea::reference and nothing else is spelled `reference` there).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <queue>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "core/config.hpp"
#include "core/errors.hpp"
#include "core/init.hpp"
#include "core/tensor.hpp"
#include "core/vocab_shard.hpp"

#define reference solution
