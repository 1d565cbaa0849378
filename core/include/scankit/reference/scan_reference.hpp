// Host reference scans: simple, obviously correct, the oracle of the tests and the path the
// apps take on machines without a CUDA device. Any value type, any associative operator.
#pragma once

#include <cstdint>

namespace scankit::reference {

template <class T, class Op>
void inclusive_scan(const T* in, T* out, std::int64_t n, Op op) {
  if (n <= 0) return;
  T running = in[0];
  out[0] = running;
  for (std::int64_t i = 1; i < n; ++i) {
    running = op(running, in[i]);
    out[i] = running;
  }
}

template <class T, class Op>
void exclusive_scan(const T* in, T* out, std::int64_t n, T init, Op op) {
  T running = init;
  for (std::int64_t i = 0; i < n; ++i) {
    T next = op(running, in[i]);  // read in[i] before writing out[i]: in place is allowed
    out[i] = running;
    running = next;
  }
}

}  // namespace scankit::reference
