# Writes OUT (the benchmarks' build_info.cpp) from TEMPLATE with the commit of SOURCE_DIR as
# `git describe` names it, at build time, and only when that changes: the stamp follows every
# commit built, and an unchanged commit relinks nothing.
execute_process(COMMAND git describe --always --dirty --abbrev=12
                WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE SCANKIT_BENCH_BUILD_COMMIT
                OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc
                ERROR_QUIET)
if(NOT rc EQUAL 0 OR SCANKIT_BENCH_BUILD_COMMIT STREQUAL "")
  set(SCANKIT_BENCH_BUILD_COMMIT "unknown")
endif()
configure_file(${TEMPLATE} ${OUT}.new @ONLY)
file(COPY_FILE ${OUT}.new ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.new)
