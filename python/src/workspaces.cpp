#include "workspaces.hpp"

#include <unordered_map>

namespace scankit::python {

workspace* workspace_for(std::uintptr_t stream) {
  // Never destroyed: at interpreter exit the streams they last served may be gone, and a
  // workspace returns its memory on that stream. The driver reclaims it when the process ends.
  static auto* by_stream = new std::unordered_map<std::uintptr_t, workspace>();
  return &(*by_stream)[stream];
}

}  // namespace scankit::python
