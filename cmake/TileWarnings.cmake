# Warnings for this project's own code: tile_warnings(<target>) gives a target -Wall -Wextra,
# and -Werror when TILE_WERROR is ON (scripts/test.sh, i.e. CI, configures build/ so through
# scripts/setup.sh --werror). MLIR's and LLVM's headers are SYSTEM includes (top-level
# CMakeLists.txt), so their warnings do not count.
option(TILE_WERROR "Treat warnings in this project's code as errors (CI turns it on)" OFF)

# GCC's -Wmaybe-uninitialized stays a warning, never an error: at -O3 it reports values inside
# std::variant alternatives built in initializer lists that are always initialised (seen with
# GCC 12 in make-diff-bundle.cpp), and its results change with the optimiser's inlining.
function(tile_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra $<$<BOOL:${TILE_WERROR}>:-Werror>
                         $<$<AND:$<BOOL:${TILE_WERROR}>,$<CXX_COMPILER_ID:GNU>>:-Wno-error=maybe-uninitialized>)
endfunction()
