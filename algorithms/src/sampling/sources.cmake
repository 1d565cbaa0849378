# The sampling module (included from algorithms/CMakeLists.txt): one translation unit per weight
# type so they compile in parallel, the top-k / top-p sampler (the token sampler likewise, one unit
# per value type),
# sampling without replacement, the table's memory and status, and the alias method.
target_sources(scankit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sampling_table.cu
  ${CMAKE_CURRENT_LIST_DIR}/sampling_float.cu
  ${CMAKE_CURRENT_LIST_DIR}/sampling_double.cu
  ${CMAKE_CURRENT_LIST_DIR}/sampling_top.cu
  ${CMAKE_CURRENT_LIST_DIR}/sampling_tokens.cu
  ${CMAKE_CURRENT_LIST_DIR}/sampling_tokens_half.cu
  ${CMAKE_CURRENT_LIST_DIR}/sampling_tokens_bf16.cu
  ${CMAKE_CURRENT_LIST_DIR}/sampling_without_replacement.cu
  ${CMAKE_CURRENT_LIST_DIR}/sampling_alias.cu
)
