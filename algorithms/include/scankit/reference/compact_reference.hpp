// Host references of the compaction algorithms: simple, obviously correct loops, the oracle of
// the tests and what the apps run on machines without a CUDA device. Host pointers; each returns
// the selected count. Same semantics as the device versions (scankit/compact.hpp):
//   select_*        selected items in input order; out == in (in place) allowed
//   partition_if    one array: selected in input order, then the rejected in REVERSE input order;
//                   two arrays: both in input order
//   unique          first item of every run of equal items (eq(previous, item)); in place allowed
#pragma once

#include <cstdint>

namespace scankit::reference {

template <class T, class Pred>
std::int64_t select_if(const T* in, T* out, std::int64_t n, Pred pred) {
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (pred(in[i])) out[count++] = in[i];  // count <= i: in place never overwrites unread items
  }
  return count;
}

template <class T, class S, class Pred>
std::int64_t select_by_stencil(const T* in, const S* stencil, T* out, std::int64_t n, Pred pred) {
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (pred(stencil[i])) out[count++] = in[i];
  }
  return count;
}

template <class T, class F>
std::int64_t select_flagged(const T* in, const F* flags, T* out, std::int64_t n) {
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (static_cast<bool>(flags[i])) out[count++] = in[i];
  }
  return count;
}

template <class T, class Pred>
std::int64_t partition_if(const T* in, T* out, std::int64_t n, Pred pred) {
  std::int64_t selected = 0;
  std::int64_t rejected = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (pred(in[i])) {
      out[selected++] = in[i];
    } else {
      out[n - 1 - rejected++] = in[i];
    }
  }
  return selected;
}

template <class T, class Pred>
std::int64_t partition_if(const T* in, T* out_selected, T* out_rejected, std::int64_t n, Pred pred) {
  std::int64_t selected = 0;
  std::int64_t rejected = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (pred(in[i])) {
      out_selected[selected++] = in[i];
    } else {
      out_rejected[rejected++] = in[i];
    }
  }
  return selected;
}

template <class T, class Eq>
std::int64_t unique(const T* in, T* out, std::int64_t n, Eq eq) {
  if (n <= 0) return 0;
  T previous = in[0];
  out[0] = previous;
  std::int64_t count = 1;
  for (std::int64_t i = 1; i < n; ++i) {
    const T item = in[i];  // read before any write: in place is allowed
    if (!eq(previous, item)) out[count++] = item;
    previous = item;
  }
  return count;
}

template <class T>
std::int64_t unique(const T* in, T* out, std::int64_t n) {
  return unique(in, out, n, [](const T& a, const T& b) { return a == b; });
}

template <class K, class V, class Eq>
std::int64_t unique_by_key(const K* keys_in, const V* values_in, K* keys_out, V* values_out, std::int64_t n, Eq eq) {
  if (n <= 0) return 0;
  K previous = keys_in[0];
  keys_out[0] = previous;
  values_out[0] = values_in[0];
  std::int64_t count = 1;
  for (std::int64_t i = 1; i < n; ++i) {
    const K key = keys_in[i];
    if (!eq(previous, key)) {
      values_out[count] = values_in[i];
      keys_out[count++] = key;
    }
    previous = key;
  }
  return count;
}

template <class K, class V>
std::int64_t unique_by_key(const K* keys_in, const V* values_in, K* keys_out, V* values_out, std::int64_t n) {
  return unique_by_key(keys_in, values_in, keys_out, values_out, n, [](const K& a, const K& b) { return a == b; });
}

}  // namespace scankit::reference
