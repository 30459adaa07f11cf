# Library-kernel GPU tests (label `gpu`): AOT kernels against float64 host references. Links only
# tile_kernels_aot (PTX + stubs over tile_runtime) and a static gtest, so the executable runs on the GPU
# machine, which has no LLVM/MLIR. Each GPU test skips with the reason where there is no GPU.
# Included from test/CMakeLists.txt; absent in TILE_RUNTIME_ONLY builds (no compiler, so no AOT kernels).
if(TARGET tile_kernels_aot)
  add_executable(kernels_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/kernels_gpu_tests.cpp
                                 ${CMAKE_CURRENT_LIST_DIR}/kernels_gpu_autotune_tests.cpp)
  target_link_libraries(kernels_gpu_tests PRIVATE tile_kernels_aot GTest::gtest_main)
  tile_warnings(kernels_gpu_tests)
  gtest_discover_tests(kernels_gpu_tests PROPERTIES LABELS gpu)
endif()

# The attention forward and backward against float64 (every head dim, causal, grouped-query, packed lengths),
# and both against cuDNN's fused attention where cudnn.h is found (cuDNN itself is dlopen'ed at run time).
if(TARGET tile_kernels_aot)
  add_executable(attention_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/attention_gpu_tests.cpp
    ${CMAKE_CURRENT_LIST_DIR}/attention_backward_gpu_tests.cpp)
  target_link_libraries(attention_gpu_tests PRIVATE tile_kernels_aot GTest::gtest_main)
  if(TARGET tile_reference_attention)
    target_sources(attention_gpu_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/attention_cudnn_gpu_tests.cpp)
    target_link_libraries(attention_gpu_tests PRIVATE tile_reference_attention)
  endif()
  tile_warnings(attention_gpu_tests)
  gtest_discover_tests(attention_gpu_tests PROPERTIES LABELS gpu)
endif()
