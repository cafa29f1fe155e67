package io.headscope.analysis.heads;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.pooling.Pool;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.GradientCollector;
import ai.djl.training.ParameterStore;
import ai.djl.training.Trainer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import io.headscope.analysis.heads.cnn.CnnClassifier;
import io.headscope.analysis.heads.cnn.MapImage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Trains the CNN of {@link CnnClassifier} with DJL's training API on the PyTorch engine (issue 32):
 * convolutions of {@link #FILTERS} filters (3 x 3, padding 1, ReLU, 2 x 2 max pooling), one linear layer,
 * softmax cross-entropy of the consensus label, Adam at a fixed learning rate, mini-batches in an order
 * shuffled with the seed. The engine's generator is seeded before the weights are initialised, so a run
 * is a function of (images, labels, seed, epochs).
 *
 * <p>The learning rate is fixed (no schedule depending on the number of epochs), so the network after
 * epoch {@code e} of a long run is the network of a run of {@code e} epochs: the inner validation reads
 * every epoch count from one run ({@link #run} with a per-epoch callback).
 */
final class CnnTraining {
  static final String ENGINE = "PyTorch";
  static final int[] FILTERS = {8, 16, 16};
  static final int BATCH = 32;
  static final float LEARNING_RATE = 2e-3f;
  /** The most epochs the inner validation tries; {@code -Dheadscope.cnn.maxEpochs} for the variant runs of docs/CNN.md. */
  static final int MAX_EPOCHS = Integer.getInteger("headscope.cnn.maxEpochs", 40);
  static final int EPOCH_STEP = 5;
  /**
   * How many of the inner folds are held out in turn when choosing the epochs: one (train on three
   * quarters of the training inputs, validate on the last quarter), for time: on the shared 2-core
   * machine the full 8 x 4 inner runs would have taken over an hour.
   */
  static final int INNER_RUNS = 1;

  private CnnTraining() {}

  /**
   * One torch thread for training: with two or more on a shared machine the tiny convolutions spent
   * most of their time waiting for each other (10 to 24 s an epoch against 1.3 s measured on one
   * thread), and one thread makes the float sums' order, hence the trained bits, fixed. Called by the
   * mains after BERT's forward passes, which keep the engine's default.
   */
  static void oneThread() {
    Engine.getEngine(ENGINE); // loads the native library, which the thread setters call into
    ai.djl.pytorch.jni.JniUtils.setNumThreads(1);
    ai.djl.pytorch.jni.JniUtils.setNumInteropThreads(1);
  }

  /** The network: DJL blocks mirroring {@link CnnClassifier#logits}. */
  static SequentialBlock network(int[] filters) {
    SequentialBlock b = new SequentialBlock();
    for (int f : filters) {
      b.add(Conv2d.builder().setKernelShape(new Shape(3, 3)).optPadding(new Shape(1, 1)).setFilters(f).build())
          .add(Activation.reluBlock())
          .add(Pool.maxPool2dBlock(new Shape(2, 2), new Shape(2, 2)));
    }
    b.add(Blocks.batchFlattenBlock()).add(Linear.builder().setUnits(HeadPattern.values().length).build());
    return b;
  }

  /** The trained weights as {@link CnnClassifier} tensors, in its names. */
  static Map<String, CnnClassifier.Tensor> export(SequentialBlock b) {
    Map<String, CnnClassifier.Tensor> out = new LinkedHashMap<>();
    int conv = 0;
    for (var child : b.getChildren()) {
      Block block = child.getValue();
      String prefix;
      if (block instanceof Conv2d) {
        prefix = "conv" + conv++;
      } else if (block instanceof Linear) {
        prefix = "linear";
      } else {
        continue;
      }
      for (String p : List.of("weight", "bias")) {
        NDArray a = block.getParameters().get(p).getArray();
        long[] s = a.getShape().getShape();
        int[] shape = new int[s.length];
        for (int k = 0; k < s.length; k++) {
          shape[k] = (int) s[k];
        }
        out.put(prefix + "." + p, new CnnClassifier.Tensor(shape, a.toFloatArray()));
      }
    }
    return out;
  }

  /** A network being trained, its DJL model and trainer; closes both. */
  static final class Run implements AutoCloseable {
    final Model model;
    final Trainer trainer;
    final SequentialBlock block;

    Run(long seed, int[] filters) {
      this(seed, filters, MapImage.CHANNELS);
    }

    Run(long seed, int[] filters, int channels) {
      // torch's generator draws the initial weights
      Engine.getEngine(ENGINE).setRandomSeed((int) seed);
      block = network(filters);
      model = Model.newInstance("kovaleva-cnn", Device.cpu(), ENGINE);
      model.setBlock(block);
      DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
          .optOptimizer(Optimizer.adam().optLearningRateTracker(Tracker.fixed(LEARNING_RATE)).build())
          .optDevices(new Device[] {Device.cpu()});
      trainer = model.newTrainer(config);
      trainer.initialize(new Shape(1, channels, MapImage.SIZE, MapImage.SIZE));
    }

    /** One epoch over {@code train} (indices into the data) in the order {@code shuffle} draws. */
    double epoch(float[][][][] images, int[] labels, List<Integer> train, Random shuffle) {
      List<Integer> order = new ArrayList<>(train);
      Collections.shuffle(order, shuffle);
      double lossSum = 0;
      for (int start = 0; start < order.size(); start += BATCH) {
        List<Integer> batch = order.subList(start, Math.min(order.size(), start + BATCH));
        try (NDManager sub = trainer.getManager().newSubManager()) {
          NDArray x = stack(sub, images, batch);
          NDArray y = sub.create(batch.stream().mapToInt(i -> labels[i]).toArray());
          try (GradientCollector gc = trainer.newGradientCollector()) {
            NDList out = trainer.forward(new NDList(x));
            NDArray loss = trainer.getLoss().evaluate(new NDList(y), out);
            lossSum += loss.getFloat() * batch.size();
            gc.backward(loss);
          }
          trainer.step();
        }
      }
      return lossSum / order.size();
    }

    /** DJL's probabilities for the maps {@code which}, [map][class]. */
    double[][] probabilities(float[][][][] images, List<Integer> which) {
      return outputs(images, which, true);
    }

    /** DJL's output before (softmax false) or after the softmax, [map][class]. */
    double[][] outputs(float[][][][] images, List<Integer> which, boolean softmax) {
      double[][] out = new double[which.size()][];
      try (NDManager sub = trainer.getManager().newSubManager()) {
        ParameterStore ps = new ParameterStore(sub, false);
        for (int start = 0; start < which.size(); start += 256) {
          List<Integer> batch = which.subList(start, Math.min(which.size(), start + 256));
          NDArray z = block.forward(ps, new NDList(stack(sub, images, batch)), false).singletonOrThrow();
          NDArray p = softmax ? z.softmax(1) : z;
          float[] v = p.toFloatArray();
          int c = HeadPattern.values().length;
          for (int k = 0; k < batch.size(); k++) {
            out[start + k] = new double[c];
            for (int j = 0; j < c; j++) {
              out[start + k][j] = v[k * c + j];
            }
          }
        }
      }
      return out;
    }

    CnnClassifier classifier(String description) {
      return new CnnClassifier(export(block), description);
    }

    @Override
    public void close() {
      trainer.close();
      model.close();
    }
  }

  static NDArray stack(NDManager m, float[][][][] images, List<Integer> which) {
    int channels = images[which.get(0)].length;
    int per = channels * MapImage.SIZE * MapImage.SIZE;
    float[] flat = new float[which.size() * per];
    int o = 0;
    for (int i : which) {
      for (float[][] ch : images[i]) {
        for (float[] row : ch) {
          System.arraycopy(row, 0, flat, o, row.length);
          o += row.length;
        }
      }
    }
    return m.create(flat, new Shape(which.size(), channels, MapImage.SIZE, MapImage.SIZE));
  }

  /** Trains {@code epochs} epochs on the maps {@code train} and exports the weights. */
  static CnnClassifier train(float[][][][] images, int[] labels, List<Integer> train, int epochs, long seed,
      String description) {
    try (Run r = new Run(seed, FILTERS, images[0].length)) {
      Random shuffle = new Random(seed);
      for (int e = 1; e <= epochs; e++) {
        r.epoch(images, labels, train, shuffle);
      }
      return r.classifier(description);
    }
  }

  /**
   * The number of epochs (a multiple of {@link #EPOCH_STEP} up to {@link #MAX_EPOCHS}) with the most
   * held-out hits summed over an inner grouped cross-validation of {@code train} (folds by input,
   * {@code innerFold} per training map; the first {@link #INNER_RUNS} folds held out in turn); ties go to
   * fewer epochs. Never reads anything outside {@code train}.
   */
  static int chooseEpochs(float[][][][] images, int[] labels, List<Integer> train, int[] innerFold, int folds,
      long seed) {
    int[] hits = new int[MAX_EPOCHS + 1];
    for (int f = 0; f < Math.min(folds, INNER_RUNS); f++) {
      List<Integer> tr = new ArrayList<>();
      List<Integer> va = new ArrayList<>();
      for (int k = 0; k < train.size(); k++) {
        (innerFold[k] == f ? va : tr).add(train.get(k));
      }
      try (Run r = new Run(seed, FILTERS, images[0].length)) {
        Random shuffle = new Random(seed);
        for (int e = 1; e <= MAX_EPOCHS; e++) {
          r.epoch(images, labels, tr, shuffle);
          if (e % EPOCH_STEP != 0) {
            continue; // only multiples of EPOCH_STEP are candidates; evaluating is read-only either way
          }
          double[][] p = r.probabilities(images, va);
          for (int k = 0; k < va.size(); k++) {
            if (argmax(p[k]) == labels[va.get(k)]) {
              hits[e]++;
            }
          }
        }
      }
    }
    // every EPOCH_STEP epochs only: choosing among 40 noisy counts would fit the inner folds' noise
    int best = EPOCH_STEP;
    for (int e = 2 * EPOCH_STEP; e <= MAX_EPOCHS; e += EPOCH_STEP) {
      if (hits[e] > hits[best]) {
        best = e;
      }
    }
    return best;
  }

  static int argmax(double[] p) {
    int b = 0;
    for (int k = 1; k < p.length; k++) {
      if (p[k] > p[b]) {
        b = k;
      }
    }
    return b;
  }
}
