// What the piece runner gives up once it is set up, before the exercise's code runs: a seccomp
// filter (Linux, through libseccomp) under which its code, the student's included, can no longer
// open, create or remove a file, start a program or a process, signal, trace or change another
// process (its limits, its priority), make an IPC object that outlives it, or open a socket. Such
// a call fails with EPERM, and a system call newer than libseccomp knows with ENOSYS; the runner
// goes on. A call through another ABI (x32, int $0x80) kills it with SIGSYS, libseccomp's rule.
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
