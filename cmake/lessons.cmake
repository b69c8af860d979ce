# Reads lessons/lessons.json, the one list of the lessons, into variables that
# reference/, cuda/ and tests/ use:
#   ANDREA_LESSON_LABELS              L01 L02 ... in course order
#   ANDREA_PIECES                     every piece, in course order (lookup norm ... rope ...)
#   ANDREA_<label>_FOLDER             01_lookup
#   ANDREA_<label>_PIECES             lookup (lesson 7: sinusoidal rope)
#   ANDREA_<label>_TESTS              the stem of tests/<stem>_test.cpp
#   ANDREA_<label>_NEEDS              pieces of earlier lessons its pieces and tests link
#   ANDREA_<label>_TESTS_NEED_CPU     C++ pieces its tests link on every backend
#   ANDREA_<label>_SLOW_TESTS         a gtest filter of its slow tests, run once ("" if none)
#   ANDREA_<label>_FURTHER            its going-further kernels (lookup_float4): not graded
#   ANDREA_PIECE_<piece>_LESSON       the label of the lesson that teaches the piece
#   ANDREA_PIECE_<piece>_FUNCTIONS    its public functions the tests call (cpu:name, cuda:name for
#                                     one backend's only): the remote backend's list
set(_manifest ${PROJECT_SOURCE_DIR}/lessons/lessons.json)
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_manifest})
file(READ ${_manifest} _json)

# _andrea_json_list(<out> <json> <key>...): a JSON array of strings (at json[key][...]) as a
# CMake list ("" if absent).
function(_andrea_json_list out json)
  set(_items "")
  string(JSON _n ERROR_VARIABLE _missing LENGTH "${json}" ${ARGN})
  if(NOT _missing AND _n GREATER 0)
    math(EXPR _last "${_n} - 1")
    foreach(i RANGE ${_last})
      string(JSON _item GET "${json}" ${ARGN} ${i})
      list(APPEND _items ${_item})
    endforeach()
  endif()
  set(${out} ${_items} PARENT_SCOPE)
endfunction()

set(ANDREA_LESSON_LABELS "")
set(ANDREA_PIECES "")
string(JSON _count LENGTH "${_json}" lessons)
math(EXPR _last "${_count} - 1")
foreach(i RANGE ${_last})
  string(JSON _lesson GET "${_json}" lessons ${i})
  string(JSON _label GET "${_lesson}" label)
  if(NOT _label MATCHES "^L[0-9][0-9]$")
    message(FATAL_ERROR "${_manifest}: lesson ${i} has label '${_label}', expected LNN")
  endif()
  list(APPEND ANDREA_LESSON_LABELS ${_label})
  string(JSON ANDREA_${_label}_FOLDER GET "${_lesson}" folder)
  string(JSON ANDREA_${_label}_TESTS GET "${_lesson}" tests)
  _andrea_json_list(ANDREA_${_label}_PIECES "${_lesson}" pieces)
  _andrea_json_list(ANDREA_${_label}_NEEDS "${_lesson}" needs)
  _andrea_json_list(ANDREA_${_label}_TESTS_NEED_CPU "${_lesson}" tests_need_cpu)
  _andrea_json_list(ANDREA_${_label}_FURTHER "${_lesson}" further)
  string(JSON ANDREA_${_label}_SLOW_TESTS ERROR_VARIABLE _absent GET "${_lesson}" slow_tests)
  if(_absent)
    set(ANDREA_${_label}_SLOW_TESTS "")
  endif()
  foreach(piece IN LISTS ANDREA_${_label}_PIECES)
    list(APPEND ANDREA_PIECES ${piece})
    set(ANDREA_PIECE_${piece}_LESSON ${_label})
    _andrea_json_list(ANDREA_PIECE_${piece}_FUNCTIONS "${_lesson}" functions ${piece})
    if(NOT ANDREA_PIECE_${piece}_FUNCTIONS)
      message(FATAL_ERROR "${_manifest}: lesson ${_label} lists no functions for its piece ${piece} "
                          "(\"functions\": {\"${piece}\": [...]})")
    endif()
  endforeach()
endforeach()

# andrea_piece_source(<out> <piece> <ext>): the file a piece is built from: reference/<piece>.cpp
# or cuda/<piece>.cu, or in grade mode the student's lessons/<folder>/<piece>.<ext> ("" when a
# grade tree lacks it).
function(andrea_piece_source out piece ext solution_dir)
  if(ANDREA_GRADE)
    set(_label ${ANDREA_PIECE_${piece}_LESSON})
    set(_file ${ANDREA_LESSONS_DIR}/${ANDREA_${_label}_FOLDER}/${piece}.${ext})
  else()
    set(_file ${solution_dir}/${piece}.${ext})
  endif()
  if(NOT EXISTS ${_file})
    set(_file "")
  endif()
  set(${out} ${_file} PARENT_SCOPE)
endfunction()
