#include "scankit/compact_options.hpp"

#include "scankit/error.hpp"

namespace scankit {

const char* to_string(compact_strategy s) noexcept {
  switch (s) {
    case compact_strategy::automatic: return "automatic";
    case compact_strategy::single_pass: return "single_pass";
    case compact_strategy::three_step: return "three_step";
  }
  return "?";
}

compact_strategy parse_compact_strategy(const std::string& name) {
  for (compact_strategy s : {compact_strategy::automatic, compact_strategy::single_pass, compact_strategy::three_step}) {
    if (name == to_string(s)) return s;
  }
  throw error("unknown compaction strategy '" + name + "' (known: automatic, single_pass, three_step)");
}

}  // namespace scankit
