# `cmake --install build [--prefix P]`: headers, static libraries and the CMake package
# (lib/cmake/tile: tileConfig.cmake, the exported targets, TileAot.cmake), so that a program of
# its own finds tile with find_package(tile) (examples/ shows both ways). The targets, in-tree
# under the same names as aliases:
#   tile::runtime     the runtime alone: driver, launches, AOT kernels (no LLVM/MLIR)
#   tile::tile        the DSL with both executors and the kernel library's declarations
#   tile::aot_writer  what tile_add_aot_kernels' generators link
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TILE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tile)
set(tile_exported tile_runtime)
if(NOT TILE_RUNTIME_ONLY)
  add_library(tile_jit INTERFACE)
  set_target_properties(tile_jit PROPERTIES EXPORT_NAME tile)
  target_link_libraries(tile_jit INTERFACE tile_dsl tile_kernels)
  # tile_dsl's archive needs the compiler's archives (the export names them as link-only).
  list(APPEND tile_exported tile_jit tile_dsl tile_kernels tile_aot_writer tile_compiler tile_dialect tile_layout tile_cpu)
endif()
foreach(t IN LISTS tile_exported)
  get_target_property(name ${t} EXPORT_NAME)
  add_library(tile::${name} ALIAS ${t})
endforeach()

install(TARGETS ${tile_exported} EXPORT tileTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY runtime/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(NOT TILE_RUNTIME_ONLY)
  install(DIRECTORY dsl/include/ kernels/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(FILES ${PROJECT_BINARY_DIR}/kernels/include/tile/kernels/AllKernels.h
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tile/kernels)
  install(FILES kernels/aot/AotWriter.h kernels/aot/AotDeclared.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tile/aot)
  install(FILES cmake/TileAot.cmake DESTINATION ${TILE_INSTALL_CMAKEDIR})
endif()
install(EXPORT tileTargets NAMESPACE tile:: DESTINATION ${TILE_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/tileConfig.cmake.in ${PROJECT_BINARY_DIR}/tileConfig.cmake
                              INSTALL_DESTINATION ${TILE_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tileConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tileConfig.cmake ${PROJECT_BINARY_DIR}/tileConfigVersion.cmake
        DESTINATION ${TILE_INSTALL_CMAKEDIR})
