# lit configuration for the tile compiler tests.
import os
import lit.formats

# Run from the source tree (`lit test/lit/Transforms/foo.mlir`), lit finds this file, not the
# build's lit.site.cfg.py, which says where the tools are: load that one (it loads this file
# again, with the build's paths set), from $TILE_BUILD_DIR or the checkout's build/.
if not hasattr(config, "tile_obj_root"):
    build = os.environ.get("TILE_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
    site = os.path.join(os.path.abspath(build), "test", "lit", "lit.site.cfg.py")
    if not os.path.exists(site):
        lit_config.fatal("no %s: build the project first (scripts/setup.sh) or set TILE_BUILD_DIR" % site)
    lit_config.load_config(config, site)
else:
    config.name = "tile"
    config.test_format = lit.formats.ShTest(True)
    config.suffixes = [".mlir", ".cpp"]
    config.test_source_root = os.path.dirname(__file__)
    config.test_exec_root = os.path.join(config.tile_obj_root, "test", "lit")
    config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

    for tool, sub in [("tile-opt", "tile-opt/tile-opt"), ("tilec", "tilec/tilec")]:
        config.substitutions.append((r"\b%s\b" % tool, os.path.join(config.tile_tools_dir, sub)))
    # Compile-only checks of the DSL's headers (what a launch with wrong arguments reports).
    config.substitutions.append(("%tile-cxx-syntax", "%s -std=c++20 -fsyntax-only -I%s -I%s" % (
        config.cxx_compiler, os.path.join(config.tile_src_root, "dsl", "include"),
        os.path.join(config.tile_src_root, "runtime", "include"))))
    config.environment["PATH"] = os.pathsep.join([config.llvm_tools_dir, "/usr/local/cuda/bin", config.environment.get("PATH", "")])
    # Compilation must not be served from (or pollute) the user's kernel cache.
    config.environment["TILE_CACHE_DIR"] = os.path.join(config.test_exec_root, "cache")
    if os.path.exists("/usr/local/cuda/bin/ptxas"):
        config.available_features.add("ptxas")
    # tilec --stage=sass and TILE_DUMP_DIR's .sass files need one (looked up as tilec does).
    import shutil
    if any(shutil.which(t, path=config.environment["PATH"]) for t in ("nvdisasm", "cuobjdump")):
        config.available_features.add("sass-disassembler")
