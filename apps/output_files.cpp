#include "apps/output_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "core/errors.hpp"

namespace andrea::cli {

namespace fs = std::filesystem;

namespace {

// The folder a file is written in ("." for a bare name).
fs::path folder_of(const std::string& path) {
  const fs::path folder = fs::path(path).parent_path();
  return folder.empty() ? fs::path(".") : folder;
}

// True when a and b name one file: the same inode when both exist, else the same
// absolute path once the links of its existing folders are resolved.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return !ca.empty() && ca == cb;
}

// A folder opened for openat/renameat, closed when it goes out of scope.
struct Folder {
  int fd = -1;
  explicit Folder(const fs::path& path)
      : fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}
  Folder(const Folder&) = delete;
  Folder& operator=(const Folder&) = delete;
  ~Folder() {
    if (fd >= 0) ::close(fd);
  }
};

// One file being written: its folder, its final name, its temporary name there.
struct Pending {
  std::string path, name, temporary;
  int folder = -1;
  bool created = false;
};

// The temporaries being written, for the signal handler: a fixed array it may read
// without allocating (async-signal-safe), filled before each file is created.
struct Temporary {
  int folder = -1;
  char name[40] = {};
};
constexpr int kMaxTemporaries = 16;
Temporary temporaries[kMaxTemporaries];
volatile std::sig_atomic_t temporary_count = 0;

// On SIGTERM, SIGINT or SIGHUP: remove every temporary, then die of the same signal
// (the default action), so that the exit status says which one ended the run.
extern "C" void remove_temporaries_and_die(int signal) {
  for (int i = 0; i < temporary_count; ++i)
    ::unlinkat(temporaries[i].folder, temporaries[i].name, 0);
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

// Installs the handler once, for each of the signals that is not ignored (nohup's
// SIGHUP stays ignored).
void catch_signals() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  for (const int signal : {SIGTERM, SIGINT, SIGHUP}) {
    struct sigaction old {};
    ::sigaction(signal, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = remove_temporaries_and_die;
    ::sigemptyset(&action.sa_mask);
    ::sigaction(signal, &action, nullptr);
  }
}

// Blocks the three signals while it lives (the renames: all of them or, once one is
// done, all of them), then lets a pending one through.
struct SignalsHeld {
  sigset_t held{}, before{};
  SignalsHeld() {
    ::sigemptyset(&held);
    for (const int signal : {SIGTERM, SIGINT, SIGHUP}) ::sigaddset(&held, signal);
    ::sigprocmask(SIG_BLOCK, &held, &before);
  }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;
  ~SignalsHeld() {
    temporary_count = 0;  // renamed or removed: nothing left for the handler
    ::sigprocmask(SIG_SETMASK, &before, nullptr);
  }
};

// Writes all of `bytes` to a new file `temporary` in `folder`; returns 0 or the errno.
int write_new(int folder, const std::string& temporary, std::string_view bytes) {
  const int fd = ::openat(folder, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  int error = 0;
  for (std::size_t done = 0; done < bytes.size() && error == 0;) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno != EINTR) error = errno;
    if (n > 0) done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 && error == 0) error = errno;  // a full disk may say so only here
  return error;
}

}  // namespace

void check_writable(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    throw InputError(fmt::format("cannot write '{}': it exists and is not a regular file", path));
  }
  const fs::path folder = folder_of(path);
  struct stat folder_status {};
  if (::stat(folder.c_str(), &folder_status) != 0) {  // the real cause: missing, a loop, a file
    const int error = errno;
    throw InputError(fmt::format("cannot write '{}': folder '{}' {}", path, folder.string(),
                                 error == ENOENT
                                     ? std::string("does not exist")
                                     : fmt::format("cannot be used ({})", std::strerror(error))));
  }
  if (!S_ISDIR(folder_status.st_mode)) {
    throw InputError(fmt::format("cannot write '{}': '{}' is not a folder", path, folder.string()));
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    throw InputError(fmt::format("cannot write '{}': folder '{}' is not writable ({})", path,
                                 folder.string(), std::strerror(errno)));
  }
  const std::string name = fs::path(path).filename().string();
  const long limit = ::pathconf(folder.c_str(), _PC_NAME_MAX);
  if (name.empty() || name == "." || name == "..") {
    throw InputError(fmt::format("cannot write '{}': it names a folder, not a file", path));
  }
  if (limit > 0 && name.size() > static_cast<std::size_t>(limit)) {
    throw InputError(
        fmt::format("cannot write '{}': its name is {} bytes, more than the {} a file name "
                    "may have in '{}' ({})",
                    path, name.size(), limit, folder.string(), std::strerror(ENAMETOOLONG)));
  }
}

void check_outputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    check_writable(outputs[i].path);
    for (std::size_t j = 0; j < i; ++j) {
      if (same_file(outputs[i].path, outputs[j].path)) {
        throw InputError(
            fmt::format("{} '{}' and {} '{}' name the same file: each output needs its own",
                        outputs[j].option, outputs[j].path, outputs[i].option, outputs[i].path));
      }
    }
    for (const NamedPath& input : inputs) {
      if (same_file(outputs[i].path, input.path)) {
        throw InputError(
            fmt::format("{} '{}' is the input {} '{}': an output never overwrites an input",
                        outputs[i].option, outputs[i].path, input.option, input.path));
      }
    }
  }
}

void write_all(const std::vector<FileBytes>& files) {
  for (const FileBytes& f : files) check_writable(f.path);
  if (files.size() > kMaxTemporaries) {
    throw InputError(
        fmt::format("{} outputs: a run writes at most {}", files.size(), kMaxTemporaries));
  }
  catch_signals();
  std::vector<std::unique_ptr<Folder>> folders;
  std::vector<Pending> pending;
  const auto remove_temporaries = [&] {
    temporary_count = 0;
    for (const Pending& p : pending) {
      if (p.created) ::unlinkat(p.folder, p.temporary.c_str(), 0);
    }
  };
  const auto fail = [&](const std::string& path, int error) {
    remove_temporaries();
    return InputError(
        fmt::format("cannot write '{}': {} (no output was written)", path, std::strerror(error)));
  };
  for (std::size_t i = 0; i < files.size(); ++i) {
    folders.push_back(std::make_unique<Folder>(folder_of(files[i].path)));
    if (folders.back()->fd < 0) throw fail(files[i].path, errno);
    // Short, so that it fits wherever the final name fits; unique to this process and file.
    pending.push_back({files[i].path, fs::path(files[i].path).filename().string(),
                       fmt::format(".andrea-{}-{}.tmp", ::getpid(), i), folders.back()->fd, false});
    Pending& p = pending.back();
    temporaries[i].folder = p.folder;  // known to the handler before the file exists
    std::snprintf(temporaries[i].name, sizeof temporaries[i].name, "%s", p.temporary.c_str());
    temporary_count = static_cast<int>(i) + 1;
    const int error = write_new(p.folder, p.temporary, files[i].bytes);
    p.created = error != EEXIST;
    if (error != 0) throw fail(p.path, error);
  }
  const SignalsHeld held;  // every file is whole: now the renames, never cut by a signal
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const Pending p = pending[i];
    if (::renameat(p.folder, p.temporary.c_str(), p.folder, p.name.c_str()) != 0) {
      const int error = errno;
      pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(i));
      remove_temporaries();
      throw InputError(
          fmt::format("cannot write '{}': {}{}", p.path, std::strerror(error),
                      i > 0 ? fmt::format(" ({} of the {} outputs were written)", i, files.size())
                            : std::string(" (no output was written)")));
    }
  }
}

void write_file(const std::string& path, std::string_view bytes) {
  write_all({{path, std::string(bytes)}});
}

}  // namespace andrea::cli
