package io.headscope.analysis.heads;

import io.headscope.analysis.heads.cnn.CnnClassifier;
import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * Trains the shipped CNN as {@link TrainClassifier} trains the logistic model: every hand-labelled map
 * (the consensus label), the number of epochs chosen by a grouped cross-validation over all of them
 * (folds by input, seed {@link TrainClassifier#SEED}, as in each outer fold of {@link CnnExperiment}),
 * then one run on all the maps with that many epochs, written to the resources module in
 * {@link CnnClassifier}'s format.
 *
 * <p>Usage (test class path): {@code java -Dheadscope.cnn.marked=true io.headscope.analysis.heads.TrainCnn
 * [RESOURCES_DIR]} (the shipped network reads the marked-columns channel, docs/CNN.md).
 */
final class TrainCnn {
  private TrainCnn() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args.length > 0 ? args[0] : "analysis/src/test/resources");
    Path out = root.resolve(CnnClassifier.RESOURCE.substring(1));
    Files.createDirectories(out.getParent());
    // the CNN reads only the images, the labels and the inputs (for the folds): no feature is scored
    List<ClassifierEvaluation.Map1> maps = LabelledMaps.loadAll().entries().stream()
        .map(e -> new ClassifierEvaluation.Map1(e, null, null, 0)).toList();
    float[][][][] images;
    BertModel[] model = new BertModel[1];
    try {
      images = CnnData.images(() -> model[0] = BertModel.load(
          ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE)), maps);
    } finally {
      if (model[0] != null) {
        model[0].close();
      }
    }
    CnnTraining.oneThread();
    long seed = TrainClassifier.SEED;
    long start = System.nanoTime();
    int[] labels = maps.stream().mapToInt(m -> m.entry().label().ordinal()).toArray();
    List<Integer> all = new ArrayList<>(IntStream.range(0, maps.size()).boxed().toList());
    int[] fold = ClassifierEvaluation.folds(maps, ClassifierEvaluation.INNER_FOLDS, seed);
    int epochs = CnnTraining.chooseEpochs(images, labels, all, fold, ClassifierEvaluation.INNER_FOLDS, seed);
    long chosen = System.nanoTime();
    CnnClassifier c = CnnTraining.train(images, labels, all, epochs, seed,
        String.format(Locale.ROOT, "%d hand-labelled maps (labels/README.md), %d epochs, seed %d, filters %s, %d channels",
            maps.size(), epochs, seed, java.util.Arrays.toString(CnnTraining.FILTERS), images[0].length));
    c.write(out);
    System.out.printf(Locale.ROOT, "wrote %s (%s; %d weights); epochs chosen in %.0f s, final run %.0f s%n", out,
        c.description(), c.parameterCount(), (chosen - start) / 1e9, (System.nanoTime() - chosen) / 1e9);
  }
}
