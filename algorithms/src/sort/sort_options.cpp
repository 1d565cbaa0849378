#include "scankit/sort_options.hpp"

#include "scankit/error.hpp"

namespace scankit {

const char* to_string(sort_strategy s) noexcept {
  switch (s) {
    case sort_strategy::automatic: return "automatic";
    case sort_strategy::onesweep: return "onesweep";
    case sort_strategy::reduce_then_scan: return "reduce_then_scan";
  }
  return "unknown";
}

sort_strategy parse_sort_strategy(const std::string& name) {
  for (sort_strategy s : {sort_strategy::automatic, sort_strategy::onesweep, sort_strategy::reduce_then_scan}) {
    if (name == to_string(s)) return s;
  }
  throw error("unknown sort strategy '" + name + "' (automatic, onesweep, reduce_then_scan)");
}

}  // namespace scankit
