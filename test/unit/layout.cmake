# layout_tests: the linear-layout algebra and the blocked/slice layouts expressed in it,
# checked against a brute-force transcription of the layouts' definition (ctest label `layout`).
if(NOT TILE_RUNTIME_ONLY AND TARGET tile_layout)
  add_executable(layout_tests ${CMAKE_CURRENT_LIST_DIR}/linear_layout_tests.cpp ${CMAKE_CURRENT_LIST_DIR}/mma_layout_tests.cpp
                 ${CMAKE_CURRENT_LIST_DIR}/shared_layout_tests.cpp)
  target_link_libraries(layout_tests PRIVATE tile_layout GTest::gtest_main)
  tile_warnings(layout_tests)
  gtest_discover_tests(layout_tests DISCOVERY_MODE PRE_TEST PROPERTIES LABELS layout)
endif()

# layout_attr_tests: every distributed layout attribute's toLinearLayout against an
# independent formula, #tile.linear's text form, tensor-type checks (needs MLIR).
if(NOT TILE_RUNTIME_ONLY AND TARGET tile_dialect)
  add_executable(layout_attr_tests ${CMAKE_CURRENT_LIST_DIR}/layout_attr_tests.cpp)
  target_link_libraries(layout_attr_tests PRIVATE tile_dialect GTest::gtest_main)
  gtest_discover_tests(layout_attr_tests DISCOVERY_MODE PRE_TEST PROPERTIES LABELS layout)
endif()

# layout_conversion_tests: how a convert_layout moves its data (tile/Analysis/LayoutConversion.h):
# registers, warp shuffles or shared memory, every plan checked element by element.
if(NOT TILE_RUNTIME_ONLY AND TARGET tile_compiler)
  add_executable(layout_conversion_tests ${CMAKE_CURRENT_LIST_DIR}/layout_conversion_tests.cpp)
  target_link_libraries(layout_conversion_tests PRIVATE tile_compiler GTest::gtest_main)
  gtest_discover_tests(layout_conversion_tests DISCOVERY_MODE PRE_TEST PROPERTIES LABELS layout)
endif()
