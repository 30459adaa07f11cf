# Assembles every .ptx in PTX_DIR with ptxas for ARCH; fails on the first error or spill,
# printing ptxas's message. Run by ctest (ptxas_library_kernels).
file(GLOB files ${PTX_DIR}/*.ptx)
list(LENGTH files count)
if(count EQUAL 0)
  message(FATAL_ERROR "no PTX in ${PTX_DIR}: was tile_kernels_aot built?")
endif()
foreach(f ${files})
  # Each file for the target it names (sm_90a where the kernel is arch-specific), else ARCH.
  file(STRINGS ${f} target_line REGEX "^\\.target " LIMIT_COUNT 1)
  string(REGEX MATCH "sm_[0-9]+a?" arch "${target_line}")
  if(NOT arch)
    set(arch ${ARCH})
  endif()
  execute_process(COMMAND ${PTXAS} -arch=${arch} -v ${f} -o /dev/null
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ptxas -arch=${arch} rejected ${f}:\n${out}")
  endif()
  # wgmma serialised (C7514/C7515/C7517), setmaxnreg ignored (C7508): slow code, not an error
  # to ptxas, an error here.
  string(REGEX MATCH "\\(C75(08|14|15|17)\\)[^\n]*" perf "${out}")
  if(perf)
    message(FATAL_ERROR "ptxas -arch=${arch} warns on ${f}: ${perf}")
  endif()
  string(REGEX MATCH "([1-9][0-9]*) bytes spill stores" spill "${out}")
  if(spill)
    message(FATAL_ERROR "${f} spills registers: ${spill}")
  endif()
endforeach()
message(STATUS "ptxas accepted ${count} library kernels without spills")
