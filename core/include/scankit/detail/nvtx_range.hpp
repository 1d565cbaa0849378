// NVTX ranges around scankit's public calls, on the "scankit" domain: a timeline in Nsight Systems
// shows each call by name (scankit::sort_pairs, scankit::select_flagged, ...) around the kernels it
// launched. The build switch SCANKIT_NVTX (CMake option of the same name, on by default) compiles
// them out. NVTX v3 is header-only: without a tool attached, a range is a call into an empty
// function.
#pragma once

#ifndef SCANKIT_NVTX
#define SCANKIT_NVTX 1
#endif

#if SCANKIT_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace scankit::detail {

class nvtx_range {
 public:
  // `name` must live until the range ends (a string literal, or a string that lives through the call).
  explicit nvtx_range(const char* name) noexcept {
#if SCANKIT_NVTX
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = name;
    nvtxDomainRangePushEx(domain(), &attributes);
#else
    (void)name;
#endif
  }
  ~nvtx_range() {
#if SCANKIT_NVTX
    nvtxDomainRangePop(domain());
#endif
  }
  nvtx_range(const nvtx_range&) = delete;
  nvtx_range& operator=(const nvtx_range&) = delete;

 private:
#if SCANKIT_NVTX
  static nvtxDomainHandle_t domain() noexcept {
    static const nvtxDomainHandle_t handle = nvtxDomainCreateA("scankit");
    return handle;
  }
#endif
};

}  // namespace scankit::detail
