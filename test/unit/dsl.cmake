# dsl_tests: unit tests of the C++ DSL front end (tracing, diagnostics, compile cache).
# Included from test/CMakeLists.txt. Needs the MLIR build (tile_dsl is not part of a
# runtime-only build).
if(NOT TILE_RUNTIME_ONLY AND TARGET tile_dsl)
  find_package(GTest REQUIRED)
  include(GoogleTest)
  file(GLOB DSL_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/dsl_*.cpp)
  add_executable(dsl_tests ${DSL_TEST_SOURCES})
  target_link_libraries(dsl_tests PRIVATE tile_dsl GTest::gtest GTest::gtest_main)
  # PRE_TEST: discover at ctest time, so building never runs the binary.
  gtest_discover_tests(dsl_tests DISCOVERY_MODE PRE_TEST PROPERTIES LABELS "unit;dsl")
endif()
