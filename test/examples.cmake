# The examples (examples/), each built as a project of its own against a fresh install of this build
# tree (find_package(tile)) and run (label `examples`): the JIT one on the CPU executor where there is
# no GPU; the AOT one must link no LLVM/MLIR and skips (77) without a GPU.
if(NOT TILE_RUNTIME_ONLY)
  set(TILE_EXAMPLES_PREFIX ${CMAKE_BINARY_DIR}/examples/prefix)
  add_test(NAME examples_install
           COMMAND ${CMAKE_COMMAND} -E env --unset=DESTDIR ${CMAKE_COMMAND} --install ${CMAKE_BINARY_DIR} --prefix ${TILE_EXAMPLES_PREFIX})
  set_tests_properties(examples_install PROPERTIES FIXTURES_SETUP tile_installed LABELS examples)
  foreach(example jit aot)
    set(runtime_only "")
    if(example STREQUAL aot)
      set(runtime_only runtime-only)
    endif()
    add_test(NAME example_${example}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/examples/run-example.sh ${PROJECT_SOURCE_DIR}/examples/${example}
                     ${CMAKE_BINARY_DIR}/examples/${example} ${TILE_EXAMPLES_PREFIX} softmax_${example} ${runtime_only})
    set_tests_properties(example_${example} PROPERTIES FIXTURES_REQUIRED tile_installed LABELS examples
                         SKIP_RETURN_CODE 77 TIMEOUT 900
                         # The examples' kernel caches stay out of the user's.
                         ENVIRONMENT TILE_CACHE_DIR=${CMAKE_BINARY_DIR}/examples/kernel-cache)
  endforeach()
endif()
