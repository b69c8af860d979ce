// The runner's seccomp filter (confine.hpp): a deny-list, so that every call the C++ library and
// the CPU execution layer make on their own (mmap, futex, clone of a thread, sigaction) goes on.
#include "grader/remote/confine.hpp"

#if defined(ANDREA_SECCOMP) && !defined(__SANITIZE_ADDRESS__)
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
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

// Refused too, named as text: some are newer than the libseccomp a build has (a name it does not
// know is skipped; a number it does not know is refused below).
constexpr const char* kRefusedByName[] = {
    // files: the other ways to change one by name, or to hold one without open
    "utime", "futimesat", "fchmodat2", "open_tree", "move_mount", "fsopen", "fsmount", "fspick",
    "mount_setattr", "fanotify_init", "fanotify_mark", "inotify_add_watch", "acct", "swapon",
    "swapoff", "quotactl", "quotactl_fd",
    // other processes: their limits, priorities, memory; IPC objects that outlive the runner
    "setpriority", "ioprio_set", "kcmp", "process_madvise", "process_mrelease", "msgget", "msgsnd",
    "msgrcv", "msgctl", "semget", "semop", "semtimedop", "semctl", "shmget", "shmat", "shmctl",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
    // the machine's own state (root's; refused whoever runs the runner)
    "syslog", "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "sethostname", "setdomainname", "settimeofday", "clock_settime",
    "clock_adjtime", "adjtimex", "iopl", "ioperm", "uselib", "vhangup", "lookup_dcookie"};

// Refused when their first argument is not the runner itself: signals go to its own threads only.
constexpr int kToItselfOnly[] = {SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo),
                                 SCMP_SYS(rt_tgsigqueueinfo)};

// Refused when their first argument is not 0 (this process): another process's limits,
// scheduling or pages.
constexpr int kSelfAsZeroOnly[] = {SCMP_SYS(prlimit64), SCMP_SYS(sched_setaffinity),
                                   SCMP_SYS(sched_setscheduler), SCMP_SYS(sched_setparam),
                                   SCMP_SYS(sched_setattr), SCMP_SYS(migrate_pages),
                                   SCMP_SYS(move_pages)};

// fcntl's commands that make the kernel signal a process when a file is ready (F_SETOWN and
// F_SETOWN_EX name the process, F_SETSIG the signal): a signal to another process by the back door.
constexpr int kSignalOwners[] = {F_SETOWN, F_SETOWN_EX, F_SETSIG};

// System call numbers past those this libseccomp knows are the kernel's newest: ENOSYS, which the
// C library reads as "not there" and works around.
constexpr int kNewestCallsUpTo = 600;

int refuse_rest(scmp_filter_ctx filter, scmp_datum_t self) {
  const auto refused = SCMP_ACT_ERRNO(EPERM);
  int failed = 0;
  for (const char* name : kRefusedByName) {
    const int call = seccomp_syscall_resolve_name(name);
    if (call != __NR_SCMP_ERROR) failed |= seccomp_rule_add(filter, refused, call, 0);
  }
  for (const int call : kToItselfOnly)
    failed |= seccomp_rule_add(filter, refused, call, 1, SCMP_A0(SCMP_CMP_NE, self));
  for (const int call : kSelfAsZeroOnly)
    failed |= seccomp_rule_add(filter, refused, call, 1, SCMP_A0(SCMP_CMP_NE, 0));
  for (const int command : kSignalOwners) {
    failed |= seccomp_rule_add(filter, refused, SCMP_SYS(fcntl), 1,
                               SCMP_A1(SCMP_CMP_EQ, static_cast<scmp_datum_t>(command)));
  }
  int known = 0;
  for (int call = 0; call <= kNewestCallsUpTo; ++call) {
    if (char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, call)) {
      known = call;
      std::free(name);
    }
  }
  for (int call = known + 1; call <= kNewestCallsUpTo; ++call)
    failed |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), call, 0);
  return failed;
}

}  // namespace

const char* confine() {
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
  if (filter == nullptr) return "seccomp_init failed";
  const auto refused = SCMP_ACT_ERRNO(EPERM);
  const auto self = static_cast<scmp_datum_t>(::getpid());
  int failed = seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);  // threads started already
  for (const int call : kRefused) failed |= seccomp_rule_add(filter, refused, call, 0);
  failed |= refuse_rest(filter, self);
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
