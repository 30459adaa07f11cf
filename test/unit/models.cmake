# models_tests: the host-side pieces of the MNIST training program (idx loader, checkpoints, CLI,
# progress display, initialisation). No compiler, no GPU: built in TILE_RUNTIME_ONLY trees too.
# Included from test/CMakeLists.txt (which sets up GoogleTest).
file(GLOB MODELS_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/models_*.cpp)
add_executable(models_tests ${MODELS_TEST_SOURCES})
target_link_libraries(models_tests PRIVATE tile_models_host GTest::gtest_main)
# The real data sets are read from <repo>/.data/{mnist,fashion-mnist} when present.
target_compile_definitions(models_tests PRIVATE TILE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# PRE_TEST: discover at ctest time, so building never runs the binary. Each test runs in its own
# process (one lowers RLIMIT_FSIZE to make a checkpoint save fail midway).
gtest_discover_tests(models_tests DISCOVERY_MODE PRE_TEST PROPERTIES LABELS models)
