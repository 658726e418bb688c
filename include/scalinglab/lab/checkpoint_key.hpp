#pragma once
// The key that signs this user's checkpoints. It is kept outside every results folder, in
// $XDG_CONFIG_HOME/scalinglab/checkpoint.key (~/.config/scalinglab/checkpoint.key when
// XDG_CONFIG_HOME is unset): 32 random bytes, made on first use, readable by the user only. A
// results folder carried to another machine resumes its tasks there only if the key is carried too
// (copy the file); otherwise its tasks start afresh, with a warning.
#include <string>

namespace scalinglab {

// Where the key is (or will be made).
std::string checkpoint_key_path();

// The key, made on first use. InputError naming the file when it cannot be made or read, or when
// it is not a regular file of 32 bytes that only its owner may read.
std::string checkpoint_key();

}  // namespace scalinglab
