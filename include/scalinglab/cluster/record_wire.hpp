#pragma once
// A task's record as bytes, for sending between processes: exact (every double's 64 bits, NaN and
// -0 included, unlike JSON text) and cheap. Layout (native endianness: the ranks of one job share
// an architecture): u32 count of scalars, then per scalar u32 name length, name bytes, f64 value;
// u32 count of series, then per series u32 name length, name bytes, u64 length, f64 values.
#include <cstring>
#include <stdexcept>
#include <string>

#include "scalinglab/lab/measure.hpp"

namespace scalinglab {

namespace wire {
// A value's bytes appended to `out`; read back from `in` at `at` (advanced), runtime_error if cut.
template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class T>
T take(const std::string& in, std::size_t& at) {
  if (at > in.size() || in.size() - at < sizeof(T)) throw std::runtime_error("message bytes: truncated");
  T v;
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return v;
}
}  // namespace wire

void append_record(const Record& record, std::string& bytes);
// Reads a record from `bytes` at `offset` (advanced past it); std::runtime_error on truncated or
// malformed input.
Record read_record(const std::string& bytes, std::size_t& offset);

}  // namespace scalinglab
