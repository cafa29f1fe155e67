package io.headscope.model.engine;

import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.List;

/**
 * One call of the engine: a batch of inputs, the interventions that hold for this call only, what to
 * capture and what to read out. Immutable; the {@code with...} methods return changed copies.
 *
 * <p>A partial run ({@link #startingAt}) begins at layer {@code from} on a given residual stream
 * instead of the embeddings (the inputs still give the padding); a run that stops before the last
 * layer ({@link #stoppingBefore}) has no readouts.
 *
 * @param inputs the batch; inputs of different lengths are padded and masked
 * @param from the first layer to run (0: from the embeddings)
 * @param start the input to layer {@code from}, (B, T, d), when {@code from > 0} or given explicitly
 * @param to the layer to stop before (the number of layers: run to the end)
 */
public record RunRequest(List<Encoding> inputs, List<Intervention> interventions, List<Capture> captures,
    Readouts readouts, int from, Activation start, int to) {

  public RunRequest {
    inputs = List.copyOf(inputs);
    interventions = List.copyOf(interventions);
    captures = List.copyOf(captures);
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("no inputs");
    }
  }

  /** The plain forward pass of every layer, capturing and reading nothing yet. */
  public static RunRequest of(List<Encoding> inputs) {
    return new RunRequest(inputs, List.of(), List.of(), Readouts.none(), 0, null, Integer.MAX_VALUE);
  }

  public static RunRequest of(Encoding input) {
    return of(List.of(input));
  }

  /** Adds an intervention (null is ignored: "nothing to change"). */
  public RunRequest intervene(Intervention i) {
    if (i == null) {
      return this;
    }
    List<Intervention> next = new ArrayList<>(interventions);
    next.add(i);
    return new RunRequest(inputs, next, captures, readouts, from, start, to);
  }

  public RunRequest capture(Capture c) {
    List<Capture> next = new ArrayList<>(captures);
    next.add(c);
    return new RunRequest(inputs, interventions, next, readouts, from, start, to);
  }

  public RunRequest read(Readouts r) {
    return new RunRequest(inputs, interventions, captures, r, from, start, to);
  }

  /** Runs from layer {@code layer} on {@code residPre}, the input to that layer, (B, T, d). */
  public RunRequest startingAt(int layer, Activation residPre) {
    return new RunRequest(inputs, interventions, captures, readouts, layer, residPre, to);
  }

  /** Stops before layer {@code layer} (its {@code resid_pre} is the last layer's output). */
  public RunRequest stoppingBefore(int layer) {
    return new RunRequest(inputs, interventions, captures, readouts, from, start, layer);
  }
}
