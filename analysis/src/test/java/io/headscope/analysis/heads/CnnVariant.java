package io.headscope.analysis.heads;

import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import java.util.List;
import java.util.Locale;

/**
 * The CNN's cross-validation alone ({@link CnnExperiment#cnn}), from the image cache that
 * {@link CnnExperiment} wrote, without scoring the logistic model's features (ten minutes of forward
 * passes on the shared machine): for trying a training setting, e.g.
 * {@code -Dheadscope.cnn.maxEpochs=60}. The model is loaded for its tokenizer only (the length buckets).
 */
final class CnnVariant {
  private CnnVariant() {}

  public static void main(String[] args) throws Exception {
    List<ClassifierEvaluation.Map1> maps;
    float[][][][] images;
    try (BertModel model = BertModel.load(ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE))) {
      maps = LabelledMaps.loadAll().entries().stream()
          .map(e -> new ClassifierEvaluation.Map1(e, null, null, model.encode(e.a(), e.b()).tokens().size())).toList();
      images = CnnData.images(() -> model, maps);
    }
    CnnTraining.oneThread();
    System.out.printf(Locale.ROOT, "max epochs %d, filters %s%n", CnnTraining.MAX_EPOCHS,
        java.util.Arrays.toString(CnnTraining.FILTERS));
    long t = System.nanoTime();
    CnnExperiment.Probabilities cnn = CnnExperiment.cnn(maps, images, TrainClassifier.SEED);
    System.out.printf(Locale.ROOT, "CNN cross-validation: %.0f s%n", (System.nanoTime() - t) / 1e9);
    CnnExperiment.report(maps, cnn);
  }
}
