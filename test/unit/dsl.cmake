# dsl_tests: unit tests of the C++ DSL front end (tracing, diagnostics, compile cache).
# Included from test/CMakeLists.txt (which sets up GoogleTest); needs the MLIR build.
if(NOT TILE_RUNTIME_ONLY AND TARGET tile_dsl)
  include(GoogleTest)
  file(GLOB DSL_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/dsl_*.cpp)
  add_executable(dsl_tests ${DSL_TEST_SOURCES})
  target_link_libraries(dsl_tests PRIVATE tile_dsl GTest::gtest_main)
  # dsl_dump_test feeds a dumped kernel's tile IR to tilec.
  if(TARGET tilec)
    add_dependencies(dsl_tests tilec)
    target_compile_definitions(dsl_tests PRIVATE TILE_TILEC_PATH="$<TARGET_FILE:tilec>")
  endif()
  # PRE_TEST: discover at ctest time, so building never runs the binary. Each test runs in
  # its own process (the compile tests point TILE_CACHE_DIR at a private directory).
  gtest_discover_tests(dsl_tests DISCOVERY_MODE PRE_TEST PROPERTIES LABELS unit)
endif()
