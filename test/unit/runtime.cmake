# Runtime unit tests (no GPU needed). Included from test/CMakeLists.txt.
if(NOT TARGET GTest::gtest_main)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    # Debian ships the sources; build them into our tree.
    add_subdirectory(/usr/src/googletest ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
    add_library(GTest::gtest_main ALIAS gtest_main)
  endif()
endif()
include(GoogleTest)

add_executable(runtime_tests ${CMAKE_CURRENT_LIST_DIR}/runtime_tests.cpp)
target_link_libraries(runtime_tests PRIVATE tile_runtime GTest::gtest_main)
# Each test in its own process: the DiskCache tests change environment variables.
gtest_discover_tests(runtime_tests PROPERTIES LABELS unit)
