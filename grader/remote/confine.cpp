// The runner's seccomp filter (confine.hpp): a deny-list, so that every call the C++ library and
// the CPU execution layer make on their own (mmap, futex, clone of a thread, sigaction) goes on.
#include "grader/remote/confine.hpp"

#if defined(ANDREA_SECCOMP) && !defined(__SANITIZE_ADDRESS__)
#include <sched.h>
#include <seccomp.h>
#include <unistd.h>

#include <cerrno>
#endif

namespace andrea::remote {

#if defined(ANDREA_SECCOMP) && !defined(__SANITIZE_ADDRESS__)
namespace {

// Refused whatever their arguments.
constexpr int kRefused[] = {
    // files, by name: none is opened, created, removed, renamed or changed
    SCMP_SYS(open), SCMP_SYS(openat), SCMP_SYS(openat2), SCMP_SYS(creat),
    SCMP_SYS(open_by_handle_at), SCMP_SYS(name_to_handle_at), SCMP_SYS(unlink),
    SCMP_SYS(unlinkat), SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2),
    SCMP_SYS(mkdir), SCMP_SYS(mkdirat), SCMP_SYS(rmdir), SCMP_SYS(link), SCMP_SYS(linkat),
    SCMP_SYS(symlink), SCMP_SYS(symlinkat), SCMP_SYS(mknod), SCMP_SYS(mknodat), SCMP_SYS(chmod),
    SCMP_SYS(fchmodat), SCMP_SYS(chown), SCMP_SYS(lchown), SCMP_SYS(fchownat),
    SCMP_SYS(truncate), SCMP_SYS(utimensat), SCMP_SYS(utimes), SCMP_SYS(setxattr),
    SCMP_SYS(lsetxattr), SCMP_SYS(removexattr), SCMP_SYS(lremovexattr),
    // programs and processes (a thread is a clone with CLONE_THREAD, below)
    SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork), SCMP_SYS(ptrace),
    SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev), SCMP_SYS(pidfd_open),
    SCMP_SYS(pidfd_getfd), SCMP_SYS(pidfd_send_signal), SCMP_SYS(tkill), SCMP_SYS(setsid),
    SCMP_SYS(setpgid),
    // the network, and what reaches the kernel another way (io_uring does files without open)
    SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter),
    SCMP_SYS(io_uring_register), SCMP_SYS(bpf), SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd),
    SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root), SCMP_SYS(chroot),
    SCMP_SYS(unshare), SCMP_SYS(setns), SCMP_SYS(keyctl), SCMP_SYS(add_key),
    SCMP_SYS(request_key)};

// Refused when their first argument is not the runner itself: signals go to its own threads only.
constexpr int kToItselfOnly[] = {SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo),
                                 SCMP_SYS(rt_tgsigqueueinfo)};

}  // namespace

const char* confine() {
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
  if (filter == nullptr) return "seccomp_init failed";
  const auto refused = SCMP_ACT_ERRNO(EPERM);
  const auto self = static_cast<scmp_datum_t>(::getpid());
  int failed = seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);  // threads started already
  for (const int call : kRefused) failed |= seccomp_rule_add(filter, refused, call, 0);
  for (const int call : kToItselfOnly)
    failed |= seccomp_rule_add(filter, refused, call, 1, SCMP_A0(SCMP_CMP_NE, self));
  // A clone that is not a thread of this process; clone3 passes its flags in memory, which a
  // filter cannot read: ENOSYS sends the C library back to clone.
  failed |= seccomp_rule_add(filter, refused, SCMP_SYS(clone), 1,
                             SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  failed |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  if (failed == 0) failed = seccomp_load(filter);  // sets no_new_privs too
  seccomp_release(filter);
  return failed == 0 ? "" : "a seccomp rule was refused";
}
#else
const char* confine() { return ""; }
#endif

}  // namespace andrea::remote
