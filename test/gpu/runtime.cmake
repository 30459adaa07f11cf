# Runtime GPU tests (label `gpu`): each test skips with the reason when no GPU is usable, so they
# pass here and run for real on the GPU machine. Included from test/CMakeLists.txt.
# GoogleTest comes from test/CMakeLists.txt.

add_executable(runtime_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/runtime_gpu_tests.cpp)
target_link_libraries(runtime_gpu_tests PRIVATE tile_runtime GTest::gtest_main)
gtest_discover_tests(runtime_gpu_tests PROPERTIES LABELS gpu)
