//===- MTInterfaces.cpp - op interfaces of the mt dialect ------------------===//
#include "mt/Dialect/MT/IR/MTInterfaces.h"

#include "mt/Dialect/MT/IR/MTInterfaces.cpp.inc"
