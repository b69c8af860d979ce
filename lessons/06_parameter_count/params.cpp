// Lesson 06_parameter_count: your exercise. Write the code each `// TODO` asks for and delete the
// `throw NotImplemented(...)` lines; the contract is in reference/params.hpp.
// Grade it: python3 lessons/grade.py -L L06
#include "reference/params.hpp"

#include "core/check.hpp"
#include "core/init.hpp"

namespace andrea::reference {

ParameterReport materialize(const Config& config, std::uint64_t seed, FloatView wte,
                            FloatView wpe) {
  // TODO(lesson 06_parameter_count): write materialize() here.
  throw NotImplemented("06_parameter_count/params.cpp", "materialize");
}

}  // namespace andrea::reference
