# models_tests: the host-side pieces of the MNIST training program (idx loader, checkpoints, CLI,
# progress display, initialisation, profile table) and the step graph's capture/replay logic over a
# fake launcher (tile_model). No compiler, no GPU: built in TILE_RUNTIME_ONLY trees too.
# Included from test/CMakeLists.txt (which sets up GoogleTest).
file(GLOB MODELS_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/models_*.cpp)
list(FILTER MODELS_TEST_SOURCES EXCLUDE REGEX "models_gpu_[^/]*\\.cpp$")
add_executable(models_tests ${MODELS_TEST_SOURCES})
target_link_libraries(models_tests PRIVATE tile_model GTest::gtest_main)
# The real data sets are read from <repo>/.data/{mnist,fashion-mnist} when present.
target_compile_definitions(models_tests PRIVATE TILE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# PRE_TEST: discover at ctest time, so building never runs the binary. Each test runs in its own
# process (one lowers RLIMIT_FSIZE to make a checkpoint save fail midway).
gtest_discover_tests(models_tests DISCOVERY_MODE PRE_TEST PROPERTIES LABELS models)

# models_gpu_tests: the MNIST CNN on the GPU through the ahead-of-time kernels (label `gpu`,
# skipped without a GPU): whole-network gradients against float64 (models_mnist_reference.h).
# Runtime-only like kernels_gpu_tests, so it runs on the GPU machine. tile_model is defined in
# models/ (added after test/).
if(TARGET tile_kernels_aot)
  add_executable(models_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/models_gpu_mnist_tests.cpp)
  target_link_libraries(models_gpu_tests PRIVATE tile_model tile_kernels_aot GTest::gtest_main)
  tile_warnings(models_gpu_tests)
  gtest_discover_tests(models_gpu_tests DISCOVERY_MODE PRE_TEST PROPERTIES LABELS gpu)
endif()

# cudnn_gpu_tests: every layer of the MNIST CNN, forward and backward, and one whole training
# step against cuDNN and cuBLAS (label `gpu`). The libraries are dlopen'ed at run time (the
# binary links neither; gpu-check.sh points LD_LIBRARY_PATH at PyTorch's cuDNN 9.19 on the GPU
# machine); only their headers are needed here.
find_path(CUDNN_INCLUDE_DIR cudnn.h PATHS ${CUDA_DRIVER_INCLUDE_DIR} /usr/include NO_DEFAULT_PATH)
find_path(CUBLAS_INCLUDE_DIR cublas_v2.h PATHS ${CUDA_DRIVER_INCLUDE_DIR} /usr/include NO_DEFAULT_PATH)
# tile_reference_apis: their entry-point tables (test/common/cudnn_api.h), shared with bench_anchors.
if(CUDNN_INCLUDE_DIR AND CUBLAS_INCLUDE_DIR)
  add_library(tile_reference_apis STATIC ${PROJECT_SOURCE_DIR}/test/common/cudnn_api.cpp)
  target_include_directories(tile_reference_apis PUBLIC ${PROJECT_SOURCE_DIR}/test/common ${CUDNN_INCLUDE_DIR}
                                                        ${CUBLAS_INCLUDE_DIR})
  target_link_libraries(tile_reference_apis PUBLIC ${CMAKE_DL_LIBS})
  tile_warnings(tile_reference_apis)
  # tile_reference_attention: cuDNN's fused attention forward and backward through the backend graph
  # API (test/common/cudnn_attention.h, cudnn_graph.h), the oracle of attention_gpu_tests and
  # bench_attention's anchor.
  add_library(tile_reference_attention STATIC ${PROJECT_SOURCE_DIR}/test/common/cudnn_attention.cpp
                                              ${PROJECT_SOURCE_DIR}/test/common/cudnn_graph.cpp)
  target_link_libraries(tile_reference_attention PUBLIC tile_reference_apis tile_runtime)
  tile_warnings(tile_reference_attention)
endif()
if(TARGET tile_kernels_aot AND TARGET tile_reference_apis)
  add_executable(cudnn_gpu_tests
    ${CMAKE_CURRENT_LIST_DIR}/cudnn_gpu_tests.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cudnn_layers.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cudnn_mnist.cpp)
  target_link_libraries(cudnn_gpu_tests PRIVATE tile_model tile_kernels_aot tile_reference_apis GTest::gtest_main)
  tile_warnings(cudnn_gpu_tests)
  gtest_discover_tests(cudnn_gpu_tests DISCOVERY_MODE PRE_TEST PROPERTIES LABELS gpu)
elseif(TARGET tile_kernels_aot)
  message(STATUS "cudnn_gpu_tests not built: cudnn.h or cublas_v2.h not found")
endif()
