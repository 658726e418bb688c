#pragma once
// Flush-to-zero and denormals-are-zero for the current thread while in scope (x86 MXCSR). Float
// data from low-entropy distributions (products of small probabilities, softmax tails, Adam's
// second moments of tiny gradients) is full of values below 1e-38; as denormals every arithmetic
// operation on them takes a microcode assist and a pass over them runs about 10x slower. Values
// that small contribute nothing at float precision.
#include <xmmintrin.h>

namespace scalinglab {

class FlushDenormals {
 public:
  FlushDenormals() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | 0x8040); }
  ~FlushDenormals() { _mm_setcsr(saved_); }
  FlushDenormals(const FlushDenormals&) = delete;
  FlushDenormals& operator=(const FlushDenormals&) = delete;

 private:
  unsigned saved_;
};

}  // namespace scalinglab
