// What the piece runner gives up once it is set up, before it serves the first call: a seccomp
// filter (Linux, through libseccomp) under which its code, the student's included, can no longer
// open, create or remove a file, start a program or a process, signal another process, trace
// one, or open a socket. Such a call fails with EPERM; the runner goes on.
//
// The sandbox (grader/class/sandbox.sh) already hides the host and the grading tree's answers;
// this closes what code inside it could still do with the system calls the C++ library reaches
// (std::ofstream, std::filesystem::remove, std::thread's clone) or with its own. What it allows:
// reading and writing the files it holds (the requests on fd 3, the answers on fd 4, its output),
// memory, threads, clocks, and signals to itself.
#pragma once

namespace andrea::remote {

/// Installs the filter on the calling process and every thread it starts later. Returns an
/// error's text ("" when done, or when the build has no libseccomp: ANDREA_SECCOMP unset). Not
/// installed under AddressSanitizer, whose report starts a symbolizer and reads /proc.
const char* confine();

}  // namespace andrea::remote
