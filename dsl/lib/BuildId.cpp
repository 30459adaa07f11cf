//===- BuildId.cpp - the compiler build id, for keys outside the compiler --===//
#include "tile/Autotune.h"

#include "tile/Pipeline.h"

std::string tile::compilerBuildId() { return compiler::compilerBuildId(); }
