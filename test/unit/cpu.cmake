# cpu_tests: the CPU executor (ctest label `cpu`): library and test kernels against float64
# references, checking mode, and the random kernel generator. Needs the MLIR build.
if(NOT TILE_RUNTIME_ONLY AND TARGET tile_dsl)
  include(GoogleTest)
  file(GLOB CPU_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/cpu_*.cpp)
  add_executable(cpu_tests ${CPU_TEST_SOURCES})
  target_include_directories(cpu_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR} ${PROJECT_SOURCE_DIR}/test/kernels)
  target_link_libraries(cpu_tests PRIVATE tile_kernels GTest::gtest_main)
  # aot::declaredVariants: the specialisations gen_kernels_aot compiles (cpu_library_launch_tests).
  target_link_libraries(cpu_tests PRIVATE tile_aot_writer)
  # -Wno-restrict: GCC 12 false positive on std::string concatenation (as in dsl/).
  tile_warnings(cpu_tests)
  target_compile_options(cpu_tests PRIVATE -Wno-restrict)
  # The JIT's link check (compiler/lib/CPU/HostJit.cpp) reaches into these internals.
  target_include_directories(cpu_tests PRIVATE ${PROJECT_SOURCE_DIR}/compiler/lib/CPU)
  target_link_libraries(cpu_tests PRIVATE tile_cpu)
  # PRE_TEST: discover at ctest time, so building never runs the binary.
  gtest_discover_tests(cpu_tests DISCOVERY_MODE PRE_TEST PROPERTIES LABELS cpu)
  # Again with the code generated for the x86-64 baseline (SSE2, no F16C, no AVX-512
  # BF16), whatever CPU runs the tests: no kernel may need the host's instruction set or
  # a helper outside the executor's provided symbols. Their properties are set by a file
  # ctest includes after discovery, on the discovered list: gtest_discover_tests flattens
  # PROPERTIES, so a list value there (two labels, two variables) is lost, and escaping
  # its semicolons does not survive the two expansions in GoogleTestAddTests.cmake.
  # TILE_TEST_EXPECT_CPU makes the binary check the JIT's choice (cpu_jit_tests.cpp).
  gtest_discover_tests(cpu_tests DISCOVERY_MODE PRE_TEST TEST_PREFIX "x86-64-baseline."
                       TEST_LIST cpu_tests_BASELINE_TESTS)
  set(baseline_properties ${CMAKE_CURRENT_BINARY_DIR}/cpu_tests_baseline_properties.cmake)
  file(WRITE ${baseline_properties} [=[
if(cpu_tests_BASELINE_TESTS)
  set_tests_properties(${cpu_tests_BASELINE_TESTS} PROPERTIES LABELS "cpu;cpu-baseline"
                       ENVIRONMENT "TILE_CPU_TARGET=x86-64;TILE_TEST_EXPECT_CPU=x86-64")
endif()
]=])
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${baseline_properties})
  # Fails unless every x86-64-baseline.* test carries both labels and both variables, and
  # there is one for every test of cpu_tests (what ctest would run, not what this file says).
  add_test(NAME cpu_baseline_properties
           COMMAND ${CMAKE_COMMAND} -DCTEST=${CMAKE_CTEST_COMMAND} -DBUILD_DIR=${CMAKE_CURRENT_BINARY_DIR}
                   -DCPU_TESTS=$<TARGET_FILE:cpu_tests> -P ${CMAKE_CURRENT_LIST_DIR}/cpu_baseline_properties.cmake)
  set_tests_properties(cpu_baseline_properties PROPERTIES LABELS "cpu;cpu-baseline")
endif()
