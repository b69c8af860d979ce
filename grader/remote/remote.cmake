# The remote backend of a grade build (grader/remote/README.md), included by tests/CMakeLists.txt.
# Variables of the caller read here: backend, library, ARG_ORDERS, ARG_DEFINES, ANDREA_<lesson>_*.

# The pieces' headers and functions for both sides (pieces.hpp, runner.cpp) are
# andrea_pieces/headers.inc and functions.inc, made by tests/CMakeLists.txt
# (ANDREA_PIECES_INCLUDE); each runner has its own list of what it serves.

# The trusted side: the client, one library per kind of runner settings (client.hpp).
add_library(andrea_remote_client STATIC ${CMAKE_CURRENT_LIST_DIR}/client.cpp
                                        ${CMAKE_CURRENT_LIST_DIR}/settings_none.cpp)
target_link_libraries(andrea_remote_client PUBLIC andrea_core cudasim_api)
target_include_directories(andrea_remote_client PUBLIC ${ANDREA_PIECES_INCLUDE})
if(TARGET cudasim)
  add_library(andrea_remote_client_cudasim STATIC ${CMAKE_CURRENT_LIST_DIR}/client.cpp
                                                  ${CMAKE_CURRENT_LIST_DIR}/settings_cudasim.cpp)
  target_link_libraries(andrea_remote_client_cudasim PUBLIC andrea_core cudasim)
  target_include_directories(andrea_remote_client_cudasim PUBLIC ${ANDREA_PIECES_INCLUDE})
endif()

# What a runner gives up before its first call (confine.hpp): a seccomp filter, where libseccomp
# is installed (libseccomp-dev). Without it the runners are not confined, and grade_class.py
# refuses a class unless told --unsafe.
find_library(ANDREA_SECCOMP_LIBRARY seccomp)
find_path(ANDREA_SECCOMP_INCLUDE_DIR seccomp.h)
add_library(andrea_remote_confine STATIC ${CMAKE_CURRENT_LIST_DIR}/confine.cpp)
target_link_libraries(andrea_remote_confine PRIVATE andrea_core)
if(ANDREA_SECCOMP_LIBRARY AND ANDREA_SECCOMP_INCLUDE_DIR)
  target_compile_definitions(andrea_remote_confine PRIVATE ANDREA_SECCOMP)
  target_include_directories(andrea_remote_confine PRIVATE ${ANDREA_SECCOMP_INCLUDE_DIR})
  target_link_libraries(andrea_remote_confine PRIVATE ${ANDREA_SECCOMP_LIBRARY})
else()
  message(STATUS "libseccomp not found (libseccomp-dev): the piece runners are not confined")
endif()

# andrea_remote_runner(<runner> <kernel library> <piece>...): the runner of these pieces on
# one backend (runner.cpp), linking the student's pieces only; <runner>_serves.inc lists the
# functions it serves (lesson 9's also serves its tables: ANDREA_SERVES_TABLES).
function(andrea_remote_runner runner kernel_library)
  set(pieces ${ARGN})
  set(libraries ${pieces})
  list(TRANSFORM libraries PREPEND ${kernel_library}_)
  set(skip cuda)
  if(ARG_DEFINES)  # a CUDA backend
    set(skip cpu)
  endif()
  set(serves "// Made by grader/remote/remote.cmake from lessons/lessons.json.\n")
  foreach(piece IN LISTS pieces)
    foreach(function IN LISTS ANDREA_PIECE_${piece}_FUNCTIONS)
      if(function MATCHES "^(cpu|cuda):(.+)$")
        if(CMAKE_MATCH_1 STREQUAL skip)
          continue()
        endif()
        set(function ${CMAKE_MATCH_2})
      endif()
      string(APPEND serves "ANDREA_SERVE(${function}),\n")
    endforeach()
  endforeach()
  set(list_file ${CMAKE_CURRENT_BINARY_DIR}/${runner}_serves.inc)
  file(CONFIGURE OUTPUT ${list_file} CONTENT "${serves}")
  add_executable(${runner} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/runner.cpp)
  # The course's archives whole, ahead of the exercise's: the linker keeps the first copy of an
  # inline function or a template it meets, so every copy the course's code calls is its own, and
  # an exercise's definition of one of its functions is a duplicate, refused. Nothing of the
  # archives is exported (--exclude-libs): a shared library's own calls (libstdc++'s) never reach
  # a copy the exercise made.
  set(course andrea_core andrea_remote_confine)
  if(NOT kernel_library STREQUAL "andrea_reference" AND TARGET cudasim
     AND NOT kernel_library STREQUAL "andrea_cuda_gpu")
    list(APPEND course cudasim)
  endif()
  list(TRANSFORM course REPLACE "(.+)" "$<TARGET_FILE:\\1>")
  target_link_options(${runner} PRIVATE LINKER:--whole-archive ${course} LINKER:--no-whole-archive
                      LINKER:--exclude-libs,ALL)
  target_link_libraries(${runner} PRIVATE ${libraries} andrea_core cudasim_api andrea_remote_confine)
  # Before it links: the exercise code uses only what an exercise may (allowed_symbols.py; nvcc's
  # objects, which call the CUDA runtime's registration functions, are not checked).
  set(checked)
  foreach(library IN LISTS libraries)
    list(APPEND checked "$<TARGET_FILE:${library}>=$<TARGET_PROPERTY:${library},ANDREA_EXERCISE_FILE>")
  endforeach()
  if(NOT kernel_library STREQUAL "andrea_cuda_gpu")
    add_custom_command(TARGET ${runner} PRE_LINK
      COMMAND ${CUDASIM_PYTHON} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/allowed_symbols.py --nm ${CMAKE_NM} --objdump=${CMAKE_OBJDUMP} ${checked}
      VERBATIM)
  endif()
  target_include_directories(${runner} PRIVATE ${ANDREA_PIECES_INCLUDE})
  target_compile_definitions(${runner} PRIVATE ${ARG_DEFINES} ANDREA_SERVES="${list_file}")
  if("training" IN_LIST pieces AND TARGET ${kernel_library}_device_tables)
    target_link_libraries(${runner} PRIVATE ${kernel_library}_device_tables)
  endif()
  if("training" IN_LIST pieces)
    target_compile_definitions(${runner} PRIVATE ANDREA_SERVES_TABLES)
  endif()
  add_dependencies(lesson_tests ${runner})
endfunction()

# _andrea_remote_client(<program> <runner>): what a trusted program of this backend links,
# its entry point included (andrea_test_main_<backend>, compiled once for the graded and the
# hidden programs). The runner is the environment's ANDREA_RUNNER, else <runner> of this build
# (a file of one line, made here: client.hpp's kDefaultRunner).
function(_andrea_remote_client program runner)
  set(client andrea_remote_client)
  if(backend STREQUAL "cudasim")
    set(client andrea_remote_client_cudasim)
  elseif(backend STREQUAL "gpu")  # the GPU presence check (cudasim/include/cudasim/gpu_presence.hpp)
    list(APPEND client ${library}_device)
  endif()
  andrea_test_main(${backend} DEFINES ANDREA_BACKEND_REMOTE ${ARG_DEFINES} LIBRARIES ${client})
  target_sources(${program} PRIVATE $<TARGET_OBJECTS:andrea_test_main_${backend}>)
  target_link_libraries(${program} PRIVATE ${client})
  # (for the program's own sources: a hidden test's file, the runner's path below; a graded
  # program's body and binding get theirs from _andrea_test_body)
  target_compile_definitions(${program} PRIVATE ANDREA_BACKEND_REMOTE ${ARG_DEFINES})
  # The runners' kernels carry the tools: a call comes back profiled.
  if(backend STREQUAL "cudasim" AND CUDASIM_INSTRUMENTED)
    target_compile_definitions(${program} PRIVATE ANDREA_RUNNERS_INSTRUMENTED)
  endif()
  file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${program}_runner.cpp CONTENT
       "extern const char* const andrea_remote_default_runner = \"$<TARGET_FILE:${runner}>\";\n")
  target_sources(${program} PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/${program}_runner.cpp)
endfunction()

# andrea_grade_plan(<lesson> <program target> <runner target> <hidden> <orders> <slow>): one line
# of grade_plan.jsonl, what the grader runs: the program, its runner, the thread orders (""
# for none), the gtest filter of the slow tests (run once, without the tools).
function(andrea_grade_plan lesson target runner hidden orders slow)
  set(quoted)
  foreach(order IN LISTS orders)
    list(APPEND quoted "\"${order}\"")
  endforeach()
  list(JOIN quoted ", " quoted)
  set_property(GLOBAL APPEND PROPERTY ANDREA_GRADE_PLAN
    "{\"lesson\": \"${lesson}\", \"backend\": \"${backend}\", \"target\": \"${target}\", \"program\": \"$<TARGET_FILE:${target}>\", \"runner_target\": \"${runner}\", \"runner\": \"$<TARGET_FILE:${runner}>\", \"hidden\": ${hidden}, \"orders\": [${quoted}], \"slow\": \"${slow}\"}")
endfunction()

# _andrea_graded_program(<lesson> <stem> <piece>...): the runner and the trusted program of a
# lesson on one backend, and its tests for ctest (each run with its runner).
function(_andrea_graded_program lesson stem)
  set(pieces ${ARGN})
  foreach(piece IN LISTS pieces)
    if(NOT TARGET ${library}_${piece})  # a lesson folder that is not there
      return()
    endif()
  endforeach()
  set(runner runner_${lesson}_${backend})
  andrea_remote_runner(${runner} ${library} ${pieces})
  set(target test_${lesson}_${stem}_${backend})
  _andrea_test_body(${lesson} ${stem} ON body)  # tests/CMakeLists.txt: the body and its binding
  add_executable(${target} $<TARGET_OBJECTS:${body}> $<TARGET_OBJECTS:${target}_binding>)
  # cudasim: the bodies' settings of the CPU layer (thread order, worker threads), on every backend
  target_link_libraries(${target} PRIVATE andrea_test_support cudasim)
  _andrea_remote_client(${target} ${runner})
  if(stem STREQUAL "training")  # the loop, corpus and vocabulary: the course's, not a lesson's
    target_link_libraries(${target} PRIVATE andrea_training_loop)
  endif()
  add_dependencies(lesson_tests ${target})
  set(orders "")
  if(ARG_ORDERS)
    set(orders ${ARG_ORDERS})
  endif()
  andrea_grade_plan(${lesson} ${target} ${runner} false "${orders}" "${ANDREA_${lesson}_SLOW_TESTS}")
  # For ctest --preset grade (the grader runs the programs itself): each order, tools on. A
  # first test, build/<runner>, builds the runner and the program: ctest never runs a runner
  # older than the student's files.
  add_test(NAME build/${runner} COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target ${runner} ${target})
  set_tests_properties(build/${runner} PROPERTIES FIXTURES_SETUP ${runner} RESOURCE_LOCK build TIMEOUT 600)
  if(ARG_ORDERS)
    foreach(order IN LISTS ARG_ORDERS)
      string(REPLACE ":" "-" order_name ${order})
      gtest_discover_tests(${target} TEST_PREFIX "${lesson}-${backend}-${order_name}/"
        PROPERTIES LABELS "${lesson}-${backend}" ENVIRONMENT "CUDASIM_ORDER=${order}"
                   ENVIRONMENT_MODIFICATION "CUDASIM_TOOLS=set:racecheck,memcheck"
                   TIMEOUT ${ANDREA_TEST_TIMEOUT} FIXTURES_REQUIRED ${runner})
    endforeach()
  else()
    gtest_discover_tests(${target} TEST_PREFIX "${lesson}-${backend}/"
      PROPERTIES LABELS "${lesson}-${backend}" SKIP_RETURN_CODE 77 TIMEOUT ${ANDREA_TEST_TIMEOUT}
                 FIXTURES_REQUIRED ${runner})
  endif()
endfunction()
