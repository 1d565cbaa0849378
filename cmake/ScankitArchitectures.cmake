# scankit_library_architectures(<target>): the device code of one of scankit's libraries for the
# GPUs in CMAKE_CUDA_ARCHITECTURES, with one front-end compile per GPU generation the code tells
# apart rather than one per GPU.
#
# The device code asks __CUDA_ARCH__ only whether it is at least 800 (Ampere) or 900
# (Hopper), and the tuning tables give every GPU sm_90's entry (device/tuning/gpu_arch.hpp). So
# the PTX of compute_80 is the same program as that of compute_89, and compute_90's as that of
# compute_100: nvcc compiles the source once per generation (cicc) and assembles that PTX for each
# GPU (ptxas). (The default list, 80;90;100, leaves sm_89 out: sm_80's machine code runs on every
# 8.x GPU, and the program is the same.) For 80;89;90;100 that is two front-end compiles instead of four
# (docs/notes/2026-12-03-house-third-round.md). The machine code for every listed GPU is still
# built; the newest generation's PTX is embedded for GPUs after them.
#
# Lists with one GPU, or entries CMake spells itself (80-real, native, all), are left to CMake.
# Configuring fails if a source starts asking for another threshold, so the grouping cannot
# silently change what a GPU runs.

function(scankit_check_architecture_thresholds)
  file(GLOB_RECURSE sources ${PROJECT_SOURCE_DIR}/core/*.cuh ${PROJECT_SOURCE_DIR}/core/*.hpp
       ${PROJECT_SOURCE_DIR}/core/*.cu ${PROJECT_SOURCE_DIR}/algorithms/*.cuh
       ${PROJECT_SOURCE_DIR}/algorithms/*.hpp ${PROJECT_SOURCE_DIR}/algorithms/*.cu)
  foreach(source IN LISTS sources)
    file(STRINGS ${source} lines REGEX "__CUDA_ARCH__[ ]*[<>=!]+[ ]*[0-9]+")
    foreach(line IN LISTS lines)
      string(REGEX MATCH "__CUDA_ARCH__[ ]*[<>=!]+[ ]*([0-9]+)" _ "${line}")
      if(NOT CMAKE_MATCH_1 MATCHES "^(800|900)$")
        message(FATAL_ERROR "${source} compares __CUDA_ARCH__ with ${CMAKE_MATCH_1}: "
                            "cmake/ScankitArchitectures.cmake groups GPUs by 800 and 900 only; add the new generation there")
      endif()
    endforeach()
  endforeach()
endfunction()

function(scankit_library_architectures target)
  set(archs ${CMAKE_CUDA_ARCHITECTURES})
  list(LENGTH archs count)
  if(count LESS 2)
    return()
  endif()
  foreach(arch IN LISTS archs)
    if(NOT arch MATCHES "^[0-9]+$" OR arch LESS 80)
      return()
    endif()
  endforeach()
  get_property(checked GLOBAL PROPERTY SCANKIT_ARCHITECTURE_THRESHOLDS_CHECKED)
  if(NOT checked)
    scankit_check_architecture_thresholds()
    set_property(GLOBAL PROPERTY SCANKIT_ARCHITECTURE_THRESHOLDS_CHECKED TRUE)
  endif()
  list(SORT archs COMPARE NATURAL)
  set(generations)
  foreach(arch IN LISTS archs)
    if(arch LESS 90)
      set(generation 80)
    else()
      set(generation 90)
    endif()
    list(APPEND generations ${generation})
    list(APPEND gpus_${generation} sm_${arch})
  endforeach()
  list(REMOVE_DUPLICATES generations)
  list(GET generations -1 newest)
  list(APPEND gpus_${newest} compute_${newest})
  set(options)
  foreach(generation IN LISTS generations)
    list(JOIN gpus_${generation} "," codes)
    list(APPEND options "--generate-code=arch=compute_${generation},code=[${codes}]")
  endforeach()
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES OFF)
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${options}>")
endfunction()
