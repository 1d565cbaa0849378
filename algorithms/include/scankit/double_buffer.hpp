// Two device arrays of the same length that an algorithm ping-pongs between: it reads current(),
// writes the other one, and flips the selector, so it needs no temporary copy of the data. Plain
// C++. After a call, current() holds the result; the other array holds scratch.
#pragma once

namespace scankit {

template <class T>
struct double_buffer {
  T* buffers[2] = {nullptr, nullptr};
  int selector = 0;

  double_buffer() = default;
  double_buffer(T* current, T* alternate) : buffers{current, alternate} {}

  T* current() const { return buffers[selector]; }
  T* alternate() const { return buffers[selector ^ 1]; }
  void flip() { selector ^= 1; }
};

}  // namespace scankit
