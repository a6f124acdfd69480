// RUN: mt-opt %s -split-input-file -mt-verify-model -verify-diagnostics | FileCheck %s

// A well-formed model passes unchanged; functions without parameters are not models.
// CHECK-LABEL: func.func @model
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = normal, std = 2.000000e-02>}, %[[X:.*]]: tensor<2x8xf32>, %[[L:.*]]: tensor<2xi32>)
// CHECK-NEXT: %[[D0:.*]] = mt.dropout %[[X]] {rate = 1.000000e-01 : f64, stream = 0 : i64}
// CHECK-NEXT: %[[Y:.*]] = mt.linear %[[D0]], %[[W]]
// CHECK-NEXT: %[[LOSS:.*]] = mt.cross_entropy %[[Y]], %[[L]]
// CHECK-NEXT: return %[[LOSS]]
func.func @model(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = normal, std = 0.02>},
                 %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %d = mt.dropout %x {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>
  %y = mt.linear %d, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
// CHECK-LABEL: func.func @helper
func.func @helper(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  return %x : tensor<2x8xf32>
}

// -----

// Dropout streams may repeat across a layer body and the outside: the layer
// index tells them apart.
// CHECK-LABEL: func.func @streams_in_layers
func.func @streams_in_layers(%g: tensor<2x8xf32> {mt.param = #mt.param<name = "g", init = ones>},
                             %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %d = mt.dropout %x {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>
  %h = mt.layer_stack (%hid = %d : tensor<2x8xf32>) layers (%gl = %g : tensor<2x8xf32>) -> tensor<2x8xf32> {
    %e = mt.dropout %hid {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>
    %m = mt.mul %e, %gl : tensor<2x8xf32>, tensor<8xf32>
    mt.yield %m : tensor<2x8xf32>
  }
  %loss = mt.cross_entropy %h, %labels : tensor<2x8xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// M1: two parameters share a name.
func.func @duplicate_names(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                           // expected-error @+1 {{model violates M1: parameter name 'w' is used by arguments 0 and 1}}
                           %v: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                           %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %y = mt.linear %x, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// M2: a parameter with a dynamic shape.
// expected-error @+1 {{model violates M2: parameter 'w' must be a statically shaped floating-point tensor}}
func.func @dynamic_param(%w: tensor<?x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                         %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %y = mt.linear %x, %w : tensor<2x8xf32>, tensor<?x8xf32> -> tensor<2x?xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x?xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// M2: an integer parameter.
// expected-error @+1 {{model violates M2: parameter 'steps' must be a statically shaped floating-point tensor}}
func.func @integer_param(%s: tensor<4xi32> {mt.param = #mt.param<name = "steps", init = zeros>},
                         %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %loss = mt.cross_entropy %x, %labels : tensor<2x8xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// M3: a model returns its loss first.
// expected-error @+1 {{model violates M3: a model function returns its loss first, a tensor<f32> (or tensor<f64>)}}
func.func @no_loss(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                   %x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %y = mt.linear %x, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// M4: two dropout sites in one body share a stream.
func.func @shared_stream(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                         %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  // expected-note @+1 {{first use here}}
  %a = mt.dropout %x {rate = 0.1 : f64, stream = 7 : i64} : tensor<2x8xf32>
  // expected-error @+1 {{model violates M4: dropout stream 7 is used twice in one body}}
  %b = mt.dropout %a {rate = 0.1 : f64, stream = 7 : i64} : tensor<2x8xf32>
  %y = mt.linear %b, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// After unrolling, layers share a body: (stream, layer) is the key.
// CHECK-LABEL: func.func @unrolled
func.func @unrolled(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                    %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %a = mt.dropout %x {layer = 0 : i64, rate = 0.1 : f64, stream = 7 : i64} : tensor<2x8xf32>
  %b = mt.dropout %a {layer = 1 : i64, rate = 0.1 : f64, stream = 7 : i64} : tensor<2x8xf32>
  %y = mt.linear %b, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// M5: a result after the loss is a scalar metric with a name.
// expected-error @+1 {{model violates M5: result 1 after the loss must be a tensor<f32> (or tensor<f64>) named by {mt.metric = "..."}; got 'tensor<f32>'}}
func.func @unnamed_metric(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                          %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> (tensor<f32>, tensor<f32>) {
  %y = mt.linear %x, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss, %loss : tensor<f32>, tensor<f32>
}

// -----

// M5: metric names are unique.
// expected-error @+1 {{model violates M5: two results are named metric 'lm loss'}}
func.func @twice(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                 %x: tensor<2x8xf32>, %labels: tensor<2xi32>)
    -> (tensor<f32>, tensor<f32> {mt.metric = "lm loss"}, tensor<f32> {mt.metric = "lm loss"}) {
  %y = mt.linear %x, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss, %loss, %loss : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// M6: mt.sequence names the decoder's sequence only.
func.func @encoder_sequence(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                            // expected-error @+1 {{model violates M6: mt.sequence marks a [batch, seq, ...] batch argument whose sequence is the decoder's, as "decoder"; argument 1 has "encoder" on 'tensor<2x3x8xf32>'}}
                            %x: tensor<2x3x8xf32> {mt.sequence = "encoder"},
                            %labels: tensor<2x3xi32>) -> tensor<f32> {
  %y = mt.linear %x, %w : tensor<2x3x8xf32>, tensor<4x8xf32> -> tensor<2x3x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x3x4xf32>, tensor<2x3xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// M6: a batch argument without a sequence dimension cannot be the decoder's.
func.func @flat_decoder(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                        %x: tensor<2x8xf32>,
                        // expected-error @+1 {{model violates M6: mt.sequence marks a [batch, seq, ...] batch argument whose sequence is the decoder's, as "decoder"; argument 2 has "decoder" on 'tensor<2xi32>'}}
                        %labels: tensor<2xi32> {mt.sequence = "decoder"}) -> tensor<f32> {
  %y = mt.linear %x, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
