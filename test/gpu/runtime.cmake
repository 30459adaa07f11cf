# Runtime GPU tests (label `gpu`): each test skips with the reason when no GPU is usable, so they
# pass here and run for real on the GPU machine. Included from test/CMakeLists.txt.
# GoogleTest comes from test/CMakeLists.txt.

add_executable(runtime_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/runtime_gpu_tests.cpp
                                 ${CMAKE_CURRENT_LIST_DIR}/runtime_gpu_tensor_map_tests.cpp)
target_link_libraries(runtime_gpu_tests PRIVATE tile_runtime GTest::gtest_main)
gtest_discover_tests(runtime_gpu_tests PROPERTIES LABELS gpu)
# The CUDA-graph tests also capture library kernels compiled ahead of time (runtime-only, so the
# binary still runs on the GPU machine); TILE_RUNTIME_ONLY trees have none and test graphs of copies.
if(TARGET tile_kernels_aot)
  target_link_libraries(runtime_gpu_tests PRIVATE tile_kernels_aot)
  target_compile_definitions(runtime_gpu_tests PRIVATE TILE_RUNTIME_GPU_AOT=1)
endif()
