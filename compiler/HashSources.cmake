# Writes ${OUT}: a C string literal hashing every compiler source, so the on-disk
# kernel cache is invalidated by any change to the compiler.
file(GLOB_RECURSE sources ${SRC_DIR}/*.cpp ${SRC_DIR}/*.h ${SRC_DIR}/*.td)
list(SORT sources)
set(all "")
foreach(f ${sources})
  file(SHA256 ${f} h)
  string(APPEND all ${h})
endforeach()
string(SHA256 id "${all}")
string(SUBSTRING ${id} 0 16 id)
file(WRITE ${OUT}.tmp "#define TILE_COMPILER_SOURCES_HASH \"${id}\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
