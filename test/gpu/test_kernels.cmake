# GPU tests of test/kernels (2-D layouts, reductions along both axes, argmax, atomics,
# half precision, loops and branches), compiled ahead of time like the library.
if(TARGET tile_aot_writer)
  add_executable(gen_test_kernels_aot ${CMAKE_CURRENT_LIST_DIR}/gen_test_kernels_aot.cpp)
  target_link_libraries(gen_test_kernels_aot PRIVATE tile_aot_writer tile_kernels)
  tile_aot_kernel_library(tile_test_kernels_aot gen_test_kernels_aot test_kernels_aot)

  add_executable(test_kernels_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/test_kernels_gpu_tests.cpp
                                       ${CMAKE_CURRENT_LIST_DIR}/math_gpu_tests.cpp
                                       ${CMAKE_CURRENT_LIST_DIR}/atomic_gpu_tests.cpp)
  target_link_libraries(test_kernels_gpu_tests PRIVATE tile_test_kernels_aot GTest::gtest_main)
  gtest_discover_tests(test_kernels_gpu_tests PROPERTIES LABELS gpu)

  # Not a ctest: gpu-check.sh runs it under compute-sanitizer memcheck, which must report the
  # stray write at its DSL line (test/kernels/PlantedBugKernels.h, PLANTED-OOB-STORE).
  add_executable(planted_oob_store ${CMAKE_CURRENT_LIST_DIR}/planted_oob_store.cpp)
  target_link_libraries(planted_oob_store PRIVATE tile_test_kernels_aot)
endif()
