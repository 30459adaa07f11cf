# Runtime unit tests (no GPU needed). Included from test/CMakeLists.txt.
# GoogleTest comes from test/CMakeLists.txt.

add_executable(runtime_tests ${CMAKE_CURRENT_LIST_DIR}/runtime_tests.cpp ${CMAKE_CURRENT_LIST_DIR}/runtime_diff_bundle_tests.cpp
               ${CMAKE_CURRENT_LIST_DIR}/runtime_compiled_kernel_tests.cpp
               ${CMAKE_CURRENT_LIST_DIR}/runtime_autotune_tests.cpp
               ${CMAKE_CURRENT_LIST_DIR}/runtime_graph_tests.cpp
               ${CMAKE_CURRENT_LIST_DIR}/runtime_tensor_map_tests.cpp
               ${CMAKE_CURRENT_LIST_DIR}/runtime_cache_key_tests.cpp
               ${CMAKE_CURRENT_LIST_DIR}/runtime_env_registry_tests.cpp)
target_link_libraries(runtime_tests PRIVATE tile_runtime GTest::gtest_main)
# EnvRegistry.CoversEverySourceRead scans the checkout's sources for TILE_* variables.
target_compile_definitions(runtime_tests PRIVATE TILE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# Each test in its own process: the DiskCache tests change environment variables.
gtest_discover_tests(runtime_tests PROPERTIES LABELS unit)
