// The compiled-kernel cache key: a digest of length-prefixed inputs.
#include "tile/runtime/KernelCacheKey.h"

#include "tile/runtime/CompiledKernel.h"
#include "tile/runtime/Hash.h"

namespace tile::rt {

namespace {

// "<name> <bytes>\n<value>\n": a value holding "\nspec:" cannot pass for the next field.
void addField(std::string &text, const char *name, const std::string &value) {
  text += name;
  text += ' ';
  text += std::to_string(value.size());
  text += '\n';
  text += value;
  text += '\n';
}

} // namespace

std::string kernelCacheKey(const KernelCacheKeyInputs &in) {
  std::string text = "tile-kernel-key v1\n";
  addField(text, "record", std::to_string(kCompiledKernelFormatVersion));
  addField(text, "ir", in.tileIR);
  addField(text, "spec", in.specialization);
  addField(text, "build", in.compilerBuild);
  addField(text, "llvm", in.llvmVersion);
  addField(text, "target", in.target);
  addField(text, "options", in.options);
  return digest(text);
}

} // namespace tile::rt
