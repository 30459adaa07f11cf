# Assembles every .ptx in PTX_DIR with ptxas for ARCH; fails on the first error or spill,
# printing ptxas's message. Run by ctest (ptxas_library_kernels).
file(GLOB files ${PTX_DIR}/*.ptx)
list(LENGTH files count)
if(count EQUAL 0)
  message(FATAL_ERROR "no PTX in ${PTX_DIR}: was tile_kernels_aot built?")
endif()
foreach(f ${files})
  execute_process(COMMAND ${PTXAS} -arch=${ARCH} -v ${f} -o /dev/null
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ptxas rejected ${f}:\n${out}")
  endif()
  string(REGEX MATCH "([1-9][0-9]*) bytes spill stores" spill "${out}")
  if(spill)
    message(FATAL_ERROR "${f} spills registers: ${spill}")
  endif()
endforeach()
message(STATUS "ptxas -arch=${ARCH} accepted ${count} library kernels without spills")
