#include "workspaces.hpp"

#include <nanobind/nanobind.h>

#include <array>
#include <memory>
#include <unordered_map>

#include "scankit/error.hpp"
#include "scankit/memory_resource.hpp"

namespace nb = nanobind;

namespace scankit::python {
namespace {

// A framework's allocator as two Python callables: allocate(bytes, stream) -> address (an int),
// deallocate(address, bytes, stream).
struct framework_allocator {
  nb::object allocate;
  nb::object deallocate;
  std::unique_ptr<callback_resource> resource;
};

void* call_allocate(void* context, std::size_t bytes, cudaStream_t stream) {
  auto* a = static_cast<framework_allocator*>(context);
  const nb::gil_scoped_acquire gil;
  try {
    return reinterpret_cast<void*>(nb::cast<std::uintptr_t>(a->allocate(bytes, reinterpret_cast<std::uintptr_t>(stream))));
  } catch (nb::python_error&) {
    return nullptr;  // the framework is out of memory: scankit raises CudaError (cudaErrorMemoryAllocation)
  }
}

void call_deallocate(void* context, void* memory, std::size_t bytes, cudaStream_t stream) {
  auto* a = static_cast<framework_allocator*>(context);
  const nb::gil_scoped_acquire gil;
  try {
    a->deallocate(reinterpret_cast<std::uintptr_t>(memory), bytes, reinterpret_cast<std::uintptr_t>(stream));
  } catch (nb::python_error& e) {
    e.discard_as_unraisable(__func__);
  }
}

// Slot 0: scankit's built-in pool; 1: PyTorch; 2: CuPy (registered by the Python side).
std::array<framework_allocator, 3>& allocators() {
  // Never destroyed, as the workspaces below that refer to them.
  static auto* all = new std::array<framework_allocator, 3>();
  return *all;
}

std::unordered_map<std::uintptr_t, workspace>& by_stream() {
  // Never destroyed: at interpreter exit the streams they last served may be gone, and a
  // workspace returns its memory on that stream. The driver reclaims it when the process ends.
  static auto* all = new std::unordered_map<std::uintptr_t, workspace>();
  return *all;
}

}  // namespace

workspace* workspace_for(std::uintptr_t stream) { return &by_stream()[stream]; }

device_memory_resource* resource_for_slot(int slot) {
  if (slot < 1 || slot > 2) return nullptr;
  return allocators()[static_cast<std::size_t>(slot)].resource.get();
}

void bind_workspaces(nb::module_& m) {
  m.def(
      "set_framework_allocator",
      [](int slot, nb::object allocate, nb::object deallocate) {
        if (slot < 1 || slot > 2) throw error("set_framework_allocator: slot must be 1 (torch) or 2 (CuPy)");
        framework_allocator& a = allocators()[static_cast<std::size_t>(slot)];
        a.allocate = std::move(allocate);
        a.deallocate = std::move(deallocate);
        a.resource = std::make_unique<callback_resource>(&call_allocate, &call_deallocate, &a);
      },
      "Registers a framework's allocator (slot 1: torch, 2: CuPy) for the workspaces of new streams.");
  m.def(
      "adopt_stream",
      [](std::uintptr_t stream, int slot) {
        auto& all = by_stream();
        if (all.count(stream) != 0) return false;
        device_memory_resource* resource = nullptr;
        if (slot >= 1 && slot <= 2) resource = allocators()[static_cast<std::size_t>(slot)].resource.get();
        all.emplace(stream, workspace(resource));  // nullptr: the built-in pool
        return true;
      },
      "Creates the workspace of a stream not seen before, from the allocator in `slot` (0: scankit's pool).");
  m.def("workspace_bytes", [](std::uintptr_t stream) {
    auto& all = by_stream();
    const auto found = all.find(stream);
    return found == all.end() ? std::size_t{0} : found->second.capacity_bytes();
  });
}

}  // namespace scankit::python
