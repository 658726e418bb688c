#pragma once
// Reading and writing whole files with errors a user can act on. Reads refuse what is not a
// regular file (a device such as /dev/zero would be read forever) and files past a size limit;
// writes go to a uniquely named temporary next to the target and are renamed over it, so a reader
// or a concurrent process sees the old file or the new one, never a mix, and a full disk is
// reported as such ("no space left on device") rather than as a generic failure.
#include <cstdint>
#include <optional>
#include <string>

namespace scalinglab {

// The whole of a regular file. InputError naming `what` and the path when it is missing, not a
// regular file, larger than `max_bytes`, or unreadable.
std::string read_file(const std::string& path, std::uint64_t max_bytes, const std::string& what = "file");

// Replaces `path` with `text` (temporary + fsync + rename). InputError with the system's reason on
// failure (a full disk, EFBIG past a file-size limit); nothing is left behind but the old file. A
// symbolic link at `path` is replaced, never written through; a directory, device or pipe there is
// refused.
void write_file(const std::string& path, const std::string& text, unsigned mode = 0644);

// Opens `path` (open(2) `flags`, O_CREAT allowed) without following a link and only if it is a
// regular file with no other name (a hard link to a file elsewhere would be written through);
// InputError naming `what` otherwise. For files kept open and written in place (a lock, an
// append-only log) in folders whose entries may have been planted.
int open_own_file(const std::string& path, int flags, const std::string& what);

// Entries of a folder that may have been planted (a received results folder's checkpoints/): the
// folder and the entry are opened without following a link, so neither a link named as the folder
// nor one named as the file leads elsewhere.
// The whole of `dir`/`name`: nullopt when the folder or the file does not exist; InputError naming
// `what` when either is a link, the folder is not a folder, the file is not a regular file (a pipe
// or device is never read: opened non-blocking, checked by fstat), or it is larger than
// `max_bytes` (refused before any byte is read).
std::optional<std::string> read_entry(const std::string& dir, const std::string& name, std::uint64_t max_bytes,
                                      const std::string& what);
// Removes `dir`/`name` if it is there, as an entry of `dir` itself: a link is removed as a link,
// and nothing is removed when `dir` is a link.
void remove_entry(const std::string& dir, const std::string& name);

// A sentence for an errno value: strerror's text in lower case ("no space left on device").
std::string system_error_text(int err);

// Limits on what is read: sweep and protocol files, and small metadata files (run.json).
inline constexpr std::uint64_t kMaxSweepFileBytes = 16ull << 20;
// CSV tables for the fitters.
inline constexpr std::uint64_t kMaxTableBytes = 1ull << 30;
// A fit saved by `scalinglab fit --save` (with its bootstrap replicates), read by `predict`.
inline constexpr std::uint64_t kMaxSavedFitBytes = 1ull << 30;

}  // namespace scalinglab
