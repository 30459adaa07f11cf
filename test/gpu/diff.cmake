# GPU == CPU executor differential test (label `gpu`): replays the bundle written on the
# build machine (scripts/gpu-bundle.sh) with the runtime alone.
add_executable(diff_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/diff_gpu_tests.cpp)
target_link_libraries(diff_gpu_tests PRIVATE tile_runtime GTest::gtest_main)
gtest_discover_tests(diff_gpu_tests PROPERTIES LABELS gpu)
