#include "scalinglab/core/state_blob.hpp"

#include <cstring>

#include "scalinglab/core/error.hpp"

namespace scalinglab {

void BlobWriter::bytes(const void* data, std::size_t n) { out_.append(static_cast<const char*>(data), n); }
void BlobWriter::u64(uint64_t v) { bytes(&v, sizeof v); }
void BlobWriter::f64(double v) { bytes(&v, sizeof v); }
void BlobWriter::floats(const std::vector<float>& v) {
  u64(v.size());
  bytes(v.data(), v.size() * sizeof(float));
}
void BlobWriter::doubles(const std::vector<double>& v) {
  u64(v.size());
  bytes(v.data(), v.size() * sizeof(double));
}
void BlobWriter::u32s(const std::vector<uint32_t>& v) {
  u64(v.size());
  bytes(v.data(), v.size() * sizeof(uint32_t));
}

void BlobReader::bytes(void* data, std::size_t n) {
  if (n > in_.size() - pos_) throw InputError(what_ + " is cut short or damaged");
  if (n) std::memcpy(data, in_.data() + pos_, n);
  pos_ += n;
}
uint64_t BlobReader::u64() {
  uint64_t v = 0;
  bytes(&v, sizeof v);
  return v;
}
double BlobReader::f64() {
  double v = 0;
  bytes(&v, sizeof v);
  return v;
}
std::size_t BlobReader::count(std::size_t element_size) {
  const uint64_t n = u64();
  if (n > (in_.size() - pos_) / element_size) throw InputError(what_ + " is cut short or damaged");
  return static_cast<std::size_t>(n);
}
std::vector<float> BlobReader::floats() {
  std::vector<float> v(count(sizeof(float)));
  bytes(v.data(), v.size() * sizeof(float));
  return v;
}
std::vector<double> BlobReader::doubles() {
  std::vector<double> v(count(sizeof(double)));
  bytes(v.data(), v.size() * sizeof(double));
  return v;
}
std::vector<uint32_t> BlobReader::u32s() {
  std::vector<uint32_t> v(count(sizeof(uint32_t)));
  bytes(v.data(), v.size() * sizeof(uint32_t));
  return v;
}

}  // namespace scalinglab
