//===- ElementwiseIntoTransposes.h - elementwise ops through views -*- C++ -*-===//
#ifndef MT_CONVERSION_FUSEELEMENTWISE_ELEMENTWISEINTOTRANSPOSES_H
#define MT_CONVERSION_FUSEELEMENTWISE_ELEMENTWISEINTOTRANSPOSES_H

namespace mlir {
class Operation;
} // namespace mlir

namespace mt {

/// Merges each elementwise generic under `root` whose result is read only by
/// transposes, through slices and reshapes (a QKV bias add read by the three
/// head splits), into those transposes: each becomes a generic computing the
/// producer's body on the same views of the producer's operands.
void fuseElementwiseIntoTransposes(mlir::Operation *root);

} // namespace mt

#endif
