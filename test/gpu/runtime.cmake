# Runtime GPU tests (label `gpu`): each test skips with the reason when no GPU is usable, so they
# pass here and run for real on the GPU machine. Included from test/CMakeLists.txt.
if(NOT TARGET GTest::gtest_main)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    add_subdirectory(/usr/src/googletest ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
    add_library(GTest::gtest_main ALIAS gtest_main)
  endif()
endif()
include(GoogleTest)

add_executable(runtime_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/runtime_gpu_tests.cpp)
target_link_libraries(runtime_gpu_tests PRIVATE tile_runtime GTest::gtest_main)
gtest_discover_tests(runtime_gpu_tests PROPERTIES LABELS gpu)
