#pragma once
// A task's state as bytes, for checkpoints: numbers and arrays in native byte order (a checkpoint is
// read back by the same build on the same kind of machine; its header names both). The reader
// never trusts a length it reads: every read is checked against what is left.
#include <cstdint>
#include <string>
#include <vector>

namespace scalinglab {

class BlobWriter {
 public:
  void u64(uint64_t v);
  void f64(double v);
  void floats(const std::vector<float>& v);
  void doubles(const std::vector<double>& v);
  void u32s(const std::vector<uint32_t>& v);
  void bytes(const void* data, std::size_t n);
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

// Reads what BlobWriter wrote; InputError ("... checkpoint is cut short or damaged") on any
// mismatch, so that a damaged file is a sentence and never a read out of bounds.
class BlobReader {
 public:
  BlobReader(const std::string& bytes, std::string what) : in_(bytes), what_(std::move(what)) {}
  uint64_t u64();
  double f64();
  std::vector<float> floats();
  std::vector<double> doubles();
  std::vector<uint32_t> u32s();
  void bytes(void* data, std::size_t n);
  // The count of a vector read next, checked against the bytes left before anything is allocated.
  std::size_t count(std::size_t element_size);
  bool done() const { return pos_ == in_.size(); }

 private:
  const std::string& in_;
  std::string what_;
  std::size_t pos_ = 0;
};

}  // namespace scalinglab
