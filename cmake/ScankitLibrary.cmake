# scankit_add_library(<name> EXPORT_NAME <export name> [OWN_ARCHITECTURES] SOURCES <files...>): one
# of scankit's libraries, static unless SCANKIT_SHARED (shared keeps the test and benchmark binaries
# small enough to ship to a GPU machine), position-independent, whole device code per translation
# unit, for the GPUs of CMAKE_CUDA_ARCHITECTURES (ScankitArchitectures.cmake) unless
# OWN_ARCHITECTURES (the caller sets the target's CUDA_ARCHITECTURES).
include(${CMAKE_CURRENT_LIST_DIR}/ScankitArchitectures.cmake)
function(scankit_add_library name)
  cmake_parse_arguments(ARG "OWN_ARCHITECTURES" "EXPORT_NAME" "SOURCES" ${ARGN})
  if(SCANKIT_SHARED)
    add_library(${name} SHARED ${ARG_SOURCES})
  else()
    add_library(${name} STATIC ${ARG_SOURCES})
  endif()
  add_library(scankit::${ARG_EXPORT_NAME} ALIAS ${name})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${ARG_EXPORT_NAME} POSITION_INDEPENDENT_CODE ON
                                           CUDA_SEPARABLE_COMPILATION OFF)
  target_compile_options(${name} PRIVATE
                         $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcudafe --diag_suppress=20012>)
  if(NOT ARG_OWN_ARCHITECTURES)
    scankit_library_architectures(${name})
  endif()
endfunction()
