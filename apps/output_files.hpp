// The files a run writes, all or nothing: every output is checked before any work
// (its folder, its name, that it is no other output and no input), then written under
// a temporary name in its own folder, and renamed into place only when every output
// has been written in full. A failure removes the temporaries and names its reason
// (no space left on device, file too large, file name too long).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace andrea::cli {

/// A file named by an option: option "--out", path "x.npy".
struct NamedPath {
  std::string option;
  std::string path;
};

/// Throws andrea::InputError unless `path` can be written: its folder exists and is
/// writable, its name fits the folder's file system (NAME_MAX bytes), and the path
/// is absent or a regular file (never a directory, device or symlink).
void check_writable(const std::string& path);

/// Throws andrea::InputError naming both options when two outputs, or an output and
/// an input, are the same file (the same path, or hard or symbolic links to one file),
/// or when an output is refused by check_writable(). Call it before any work.
void check_outputs(const std::vector<NamedPath>& outputs,
                   const std::vector<NamedPath>& inputs = {});

/// One output: where it goes and every byte of it.
struct FileBytes {
  std::string path;
  std::string bytes;
};

/// Writes every file or none: each to a temporary name in the final file's folder
/// (at most 32 bytes long, so it fits wherever the final name fits), then, once all
/// of them are written and closed, renames each into place. Throws
/// andrea::InputError naming the file and the system's reason (strerror: "No space
/// left on device", "File too large", "File name too long") when one cannot be
/// written; the temporaries are removed and no final file is created or changed.
void write_all(const std::vector<FileBytes>& files);

/// write_all() of one file.
void write_file(const std::string& path, std::string_view bytes);

}  // namespace andrea::cli
