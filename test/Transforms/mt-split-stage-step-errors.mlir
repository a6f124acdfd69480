// RUN: mt-opt %s -split-input-file -verify-diagnostics -mt-split-stage-step

// A stage's gradient function that does not return the stage's output
// (not built by mt-derive-gradients) cannot give the forward its result.
func.func @f_stage0(%x: tensor<2x4xf32> {mt.stage_input},
                    %w: tensor<4xf32> {mt.param = #mt.param<name = "w", init = ones>}) -> tensor<2x4xf32>
    attributes {mt.stage = 0 : i64, mt.num_stages = 2 : i64, mt.pipeline_of = "f"} {
  %y = mt.mul %x, %w : tensor<2x4xf32>, tensor<4xf32>
  return %y : tensor<2x4xf32>
}
// expected-error @+1 {{mt-split-stage-step: @f_stage0_grad returns no stage output (mt.stage_output); run mt-derive-gradients first}}
func.func @f_stage0_grad(%x: tensor<2x4xf32> {mt.stage_input},
                         %w: tensor<4xf32> {mt.param = #mt.param<name = "w", init = ones>},
                         %dy: tensor<2x4xf32> {mt.cotangent}) -> tensor<2x4xf32>
    attributes {mt.gradient_of = @f_stage0, mt.stage = 0 : i64, mt.num_stages = 2 : i64, mt.pipeline_of = "f"} {
  %dx = mt.mul %dy, %w {mt.backward} : tensor<2x4xf32>, tensor<4xf32>
  return %dx : tensor<2x4xf32>
}

// -----

// Its arguments must start with the forward's.
func.func @f_stage0(%x: tensor<2x4xf32> {mt.stage_input},
                    %w: tensor<4xf32> {mt.param = #mt.param<name = "w", init = ones>}) -> tensor<2x4xf32>
    attributes {mt.stage = 0 : i64, mt.num_stages = 2 : i64, mt.pipeline_of = "f"} {
  %y = mt.mul %x, %w : tensor<2x4xf32>, tensor<4xf32>
  return %y : tensor<2x4xf32>
}
// expected-error @+1 {{mt-split-stage-step: @f_stage0_grad does not start with @f_stage0's arguments}}
func.func @f_stage0_grad(%dy: tensor<2x4xf32> {mt.cotangent}) -> tensor<2x4xf32>
    attributes {mt.gradient_of = @f_stage0, mt.stage = 0 : i64, mt.num_stages = 2 : i64, mt.pipeline_of = "f"} {
  return %dy : tensor<2x4xf32>
}

// -----

// A forward op may not read a backward value.
func.func @f_stage0(%x: tensor<2x4xf32> {mt.stage_input},
                    %w: tensor<4xf32> {mt.param = #mt.param<name = "w", init = ones>}) -> tensor<2x4xf32>
    attributes {mt.stage = 0 : i64, mt.num_stages = 2 : i64, mt.pipeline_of = "f"} {
  %y = mt.mul %x, %w : tensor<2x4xf32>, tensor<4xf32>
  return %y : tensor<2x4xf32>
}
func.func @f_stage0_grad(%x: tensor<2x4xf32> {mt.stage_input},
                         %w: tensor<4xf32> {mt.param = #mt.param<name = "w", init = ones>},
                         %dy: tensor<2x4xf32> {mt.cotangent})
    -> (tensor<2x4xf32> {mt.stage_input_grad}, tensor<2x4xf32> {mt.stage_output})
    attributes {mt.gradient_of = @f_stage0, mt.stage = 0 : i64, mt.num_stages = 2 : i64, mt.pipeline_of = "f"} {
  %dx = mt.mul %dy, %w {mt.backward} : tensor<2x4xf32>, tensor<4xf32>
  // expected-error @+1 {{mt-split-stage-step: a forward op reads a backward value}}
  %y = mt.mul %dx, %w : tensor<2x4xf32>, tensor<4xf32>
  return %dx, %y : tensor<2x4xf32>, tensor<2x4xf32>
}
