package io.headscope.analysis.heads;

import io.headscope.model.BertModel;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Trains the shipped classifier model: every hand-labelled map (both sets; the consensus where two
 * labellers worked), the penalty chosen by grouped cross-validation over all of them (folds by input,
 * seed {@link #SEED}), written to the resources module. {@code ShippedClassifierTest} checks that the
 * shipped file is what this produces.
 *
 * <p>Usage (test class path): {@code MKL_CBWR=AUTO,STRICT java io.headscope.analysis.heads.TrainClassifier
 * [RESOURCES_DIR]}: MKL in the strict mode the tests and {@code ./headscope} run in, so the labelled maps' features
 * are the tests' to the bit and {@code ShippedClassifierTest}'s check is exact (1e-9).
 */
final class TrainClassifier {
  static final long SEED = 20261123L;

  private TrainClassifier() {}

  static LogisticModel train(List<ClassifierEvaluation.Map1> maps) {
    double l2 = ClassifierEvaluation.choosePenalty(maps, SEED);
    return ClassifierEvaluation.fit(maps, l2);
  }

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args.length > 0 ? args[0] : "resources/src/main/resources");
    Path out = root.resolve(LearnedRule.RESOURCE.substring(1));
    Files.createDirectories(out.getParent());
    try (BertModel model = BertModel.load(ModelRepository.standard().resolve("bert-base-uncased", ProgressListener.NONE))) {
      List<ClassifierEvaluation.Map1> maps = ClassifierEvaluation.score(model, LabelledMaps.loadAll());
      LogisticModel m = train(maps);
      m.write(out);
      System.out.println("wrote " + out + " (l2 " + m.l2() + ", " + m.trainedOn() + ")");
      // the rule's thresholds are searched on the same maps; Thresholds.DEFAULT holds what this prints
      Thresholds t = ThresholdSearch.best(maps.stream().map(ClassifierEvaluation.Map1::scores).toList());
      System.out.println("rule thresholds searched on every labelled map: " + t);
    }
  }
}
