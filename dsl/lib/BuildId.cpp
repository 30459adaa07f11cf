//===- BuildId.cpp - the compiler build id, for keys outside the compiler --===//
#include "tile/Autotune.h"

#include "tile/Compiler.h"

std::string tile::compilerBuildId() { return compiler::compilerBuildId(); }
