# The distributed module (included from algorithms/CMakeLists.txt): scan, compaction and sort of
# arrays sharded over the GPUs of one host, on NCCL. A library of its own, scankit_distributed
# (scankit::distributed), built only when NCCL is found (it ships with the CUDA toolkit here).
# Mostly host code (g++) over scankit's precompiled API; the one CUDA file holds the sample
# sort's two small kernels.
find_path(SCANKIT_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}/include)
find_library(SCANKIT_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
if(NOT SCANKIT_NCCL_INCLUDE_DIR OR NOT SCANKIT_NCCL_LIBRARY)
  message(STATUS "NCCL not found (nccl.h / libnccl): scankit_distributed, its tests and bench_distributed are not built")
  return()
endif()
message(STATUS "NCCL: ${SCANKIT_NCCL_LIBRARY}: building scankit_distributed")

scankit_add_library(scankit_distributed EXPORT_NAME distributed SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/shard_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sample_sort_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unique_id.cpp
  ${CMAKE_CURRENT_LIST_DIR}/communicator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collectives.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compact.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rebalance.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sort.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sort_kernels.cu
)
# The public headers need no NCCL include (communicator.hpp declares ncclComm_t itself), so NCCL
# stays private; a static build still passes the library on to whoever links this one.
target_include_directories(scankit_distributed PRIVATE ${SCANKIT_NCCL_INCLUDE_DIR})
target_link_libraries(scankit_distributed PUBLIC scankit PRIVATE ${SCANKIT_NCCL_LIBRARY})
install(TARGETS scankit_distributed EXPORT scankitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
