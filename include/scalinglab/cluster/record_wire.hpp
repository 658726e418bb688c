#pragma once
// A task's record as bytes, for sending between processes: exact (every double's 64 bits, NaN and
// -0 included, unlike JSON text) and cheap. Layout (native endianness: the ranks of one job share
// an architecture): u32 count of scalars, then per scalar u32 name length, name bytes, f64 value;
// u32 count of series, then per series u32 name length, name bytes, u64 length, f64 values.
#include <string>

#include "scalinglab/lab/measure.hpp"

namespace scalinglab {

void append_record(const Record& record, std::string& bytes);
// Reads a record from `bytes` at `offset` (advanced past it); std::runtime_error on truncated or
// malformed input.
Record read_record(const std::string& bytes, std::size_t& offset);

}  // namespace scalinglab
